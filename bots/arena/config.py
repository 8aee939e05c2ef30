"""Tournament configuration files for ``manage.py arena --config``, in the format of the
original bot kit (every game's bots are files of the same kinds, so every game reads it):

    {"game": "<game>", "ai_dirs": ["my-bots"], "ai": ["alice.py", "builtin:NAME"],
     "num_games": 1000}

``ai_dirs`` adds every bot file of each folder (``.js``, and ``.py`` with a ``class Bot``:
helper modules, such as a copy of a game's toolkit module, may sit beside the bots), ``ai``
(or ``ais``) names single bots (files or ``builtin:NAME``), ``num_games`` is the number of
games; ``seed`` may be given too. Relative paths are relative to the configuration file's
folder. Options given on the command line win over the file; bots named on the command line
join the file's. A file without ``"game"`` (the original kits' own) is played as the only game
its bots and keys fit (``infer_game``), or refused with the games to choose from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bots.languages import UnsupportedBot, by_suffix, language_of
from games.engine.spec import GameSpec
from games.registry import game_slugs, games

KEYS = ("game", "ai_dirs", "ai", "ais", "num_games", "seed")


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the problem."""


def read_config(path: Path) -> dict[str, Any]:
    """``{"game", "bots", "games", "seed", "skipped"}`` from a configuration file."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a JSON configuration ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f'{path}: expected a JSON object like {{"ai": [...], ...}}')
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    base = path.parent
    bots: list[str] = []
    skipped: list[str] = []
    for folder in _strings(data, "ai_dirs", path):
        where = base / folder
        if not where.is_dir():
            raise ConfigError(f"{path}: ai_dirs entry {folder!r} is not a folder")
        suffixes = by_suffix()
        for file in sorted(where.iterdir()):
            if not file.is_file() or file.suffix.lower() not in suffixes or file.name[0] in "._":
                skipped.append(f"File {file} is not valid: skipping")
            elif not (language := language_of(file)).is_bot_file(file.read_bytes()):
                skipped.append(
                    f"File {file} has no {language.bot_shape} (a helper module?): skipping"
                )
            else:
                bots.append(str(file))
    for source in _strings(data, "ai", path) + _strings(data, "ais", path):
        bots.append(source if source.startswith("builtin:") else str(base / source))
    games = data.get("num_games")
    if games is not None and (not isinstance(games, int) or isinstance(games, bool) or games < 1):
        raise ConfigError(f"{path}: num_games must be a positive whole number, not {games!r}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ConfigError(f"{path}: seed must be a whole number, not {seed!r}")
    game = data.get("game")
    known = game_slugs()
    if game is not None and not isinstance(game, str):
        raise ConfigError(f"{path}: game must be a name like {known[0]!r}, not {game!r}")
    if game is not None and game not in known:
        raise ConfigError(f"{path}: unknown game {game!r} (known: {', '.join(known)})")
    return {"game": game, "bots": bots, "games": games, "seed": seed, "skipped": skipped}


def _strings(data: dict[str, Any], key: str, path: Path) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of names")
    return value


def apply_config(opts: dict[str, Any]) -> list[str]:
    """Merge ``opts["config"]`` into the arena command's options; returns notes to show.
    ``opts["games_from"]`` names where a count of games came from (the file's key), for
    the command's messages."""
    path = opts["config"]
    config = read_config(path)
    if opts.get("game") and config["game"] and opts["game"] != config["game"]:
        raise ConfigError(f"--game {opts['game']} but {path} is for {config['game']}")
    notes = list(config["skipped"])
    opts["bots"] = config["bots"] + list(opts.get("bots") or [])
    if not opts.get("game") and not config["game"]:
        config["game"] = infer_game(path, opts["bots"], config["games"] is not None)
        notes.append(f'{path} names no "game": playing {config["game"]}, the only game it fits')
    opts["game"] = opts.get("game") or config["game"]
    if opts.get("games") is None and config["games"] is not None:
        opts["games"] = config["games"]
        opts["games_from"] = f"num_games in {path}"
    if opts.get("seed") is None:
        opts["seed"] = config["seed"]
    return notes


def infer_game(path: Path, bots: list[str], counts_games: bool) -> str:
    """The game of a configuration file without a ``"game"`` key (the original kits' files
    have none): the only game whose built-ins include every ``builtin:NAME`` it names, whose
    contract's methods every bot file defines, and, with ``num_games``, that counts games.
    Anything else is a clear error naming the games it would fit."""
    by_bots = [g for g in games() if g.tournament is not None and all(_fits(g, b) for b in bots)]
    in_games = [g for g in games() if getattr(g.tournament, "count_label", "") == "games"]
    fitting = [g for g in by_bots if g in in_games] if counts_games else by_bots
    if len(fitting) == 1:
        return fitting[0].slug
    if fitting:
        fits = f"its bots could play any of {', '.join(g.slug for g in fitting)}"
    elif by_bots:
        fits = (
            f"its bots are for {', '.join(g.slug for g in by_bots)}, but num_games counts "
            f"games, as only {', '.join(g.slug for g in in_games)} does"
        )
    else:
        fits = "its bots fit no game"
    raise ConfigError(
        f'{path} has no "game" key and {fits}: add "game": one of '
        f"{', '.join(game_slugs())} (or give --game)"
    )


def _fits(game: GameSpec, source: str) -> bool:
    """Whether a bot could be one of ``game``'s: a built-in of it, or a file its language
    reads as one of the game's (``Language.may_play``: every method of its contract)."""
    if source.startswith("builtin:"):
        return source.removeprefix("builtin:") in game.builtin_names
    try:
        language = language_of(Path(source))
        data = Path(source).read_bytes()
    except (OSError, UnsupportedBot):
        return True  # the arena says what is wrong with the file
    return language.may_play(data, game)
