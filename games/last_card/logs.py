"""What a Last Card tournament leaves for bot authors, as the original kit did: aligned text
tables and JSON of the overall statistics, of each bot's games and of each game, and a
readable log per game, with the reason for every illegal move.

    logs/overall-stats.log  .json   one row per bot, averaged per game
    logs/ai/NAME.log        .json   one row per game the bot played
    logs/game/0007.log      .json   one row per player of game 7, and who won
    logs/readable/0007.log          what happened in game 7, one line per event

A readable log can also be rebuilt from a match record (``arena --logs`` writes them to
``matches/``): ``python -m games.last_card.logs RECORD.json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from games.engine import untrusted
from games.engine.files import safe_filename
from games.last_card.movecheck import SUIT_NAMES, card_name
from games.last_card.rules import STATISTICS, LastCardState

HEADERS = {key: key.replace("_", " ") for key in STATISTICS}


def cards_text(cards: Sequence[Any]) -> str:
    shown = []
    for card in cards:
        ok = isinstance(card, str) and len(card) == 2 and card[1] in SUIT_NAMES
        shown.append(card_name(card) if ok and card[0] in "A23456789TJQK" else repr(card))
    return "[" + ", ".join(shown) + "]"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _attempt(move: Any) -> str:
    if isinstance(move, dict) and isinstance(move.get("cards"), list):
        if not move["cards"]:
            return "passes"
        text = "plays " + cards_text(move["cards"])
        if move.get("suit") is not None:
            text += f", chooses {SUIT_NAMES.get(move['suit'], repr(move['suit']))}"
        return text
    return f"answers {move!r:.120}"


def readable(state: LastCardState, names: Sequence[str]) -> list[str]:
    """The story of a game, one line per event."""
    lines: list[str] = []
    passing: int | None = None
    for event in state.history:
        kind = event["e"]
        who = names[event["seat"]] if "seat" in event else ""
        if kind == "start":
            for seat, hand in enumerate(event["hands"]):
                lines.append(f"{names[seat]} is dealt {cards_text(hand)}")
            lines.append(f"The first card is the {card_name(event['card'])}")
        elif kind == "play":
            text = f"{who} plays {cards_text(event['cards'])}"
            if event["suit"]:
                text += f", chooses {SUIT_NAMES[event['suit']]}"
            if event["call"]:
                text += " and calls last card"
            lines.append(text)
        elif kind == "pass":
            passing = event["seat"]
            if event.get("auto"):
                lines.append(f"{who} is out of the game and passes")
            elif event["call"]:
                lines.append(f"{who} passes and calls last card")
        elif kind == "illegal":
            lines.append(f"{who} {_attempt(event['move'])}")
            lines.append(f"Illegal move! {event['reason'][:1].upper()}{event['reason'][1:]}")
            passing = event["seat"]
        elif kind == "draw":
            if passing == event["seat"] and lines and not lines[-1].startswith("Illegal"):
                if lines[-1] == f"{who} passes and calls last card":
                    lines[-1] = f"{who} passes, calls last card and draws {_count(event['drawn'])}"
                elif lines[-1] == f"{who} is out of the game and passes":
                    lines[-1] += f" and draws {_count(event['drawn'])}"
                else:
                    lines.append(f"{who} passes and draws {_count(event['drawn'])}")
            else:
                lines.append(f"{who} draws {_count(event['drawn'])}")
            passing = None
        elif kind == "punished":
            text = f"{who} picks up {_count(event['drawn'])} as punishment"
            if event["drawn"] < event["owed"]:
                text += f" ({event['owed']} owed, no more cards to draw)"
            lines.append(text)
            passing = None
        elif kind == "skip":
            lines.append(f"{who} misses a turn")
        elif kind == "no_call":
            lines.append(
                f"{who} played its last card without calling last card on its previous turn: "
                f"draws {_count(event['drawn'])} as a penalty"
            )
        elif kind == "reshuffle":
            lines.append(f"The deck is empty: {_count(event['cards'])} played are shuffled into it")
        elif kind == "win":
            lines.append(f"{who} has no cards left and wins!")
        elif kind == "cap":
            lines.append(f"{event['turns']} turns without a winner: the game ends")
        elif kind == "fault":
            said = untrusted.one_line(event["reason"])  # the bot's words: one line, escaped
            lines.append(f"{who} is out of the game: {event['kind']}: {said}")
    if state.over:
        for seat, stats in enumerate(state.result()["stats"]):
            text = f"{names[seat]} ends with {cards_text(state.hands[seat])}: "
            text += f"{stats['points_taken']:g} points taken"
            if stats["last_card_pts"]:
                text += f" ({stats['last_card_pts']:g} for {stats['last_card_calls']} calls)"
            lines.append(text)
    return lines


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An aligned table: text columns to the left, numbers to the right."""
    shown = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in shown]) for i, h in enumerate(headers)]
    numeric = [all(_is_number(r[i]) for r in rows) and rows for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    return "\n".join([line(headers), *(line(r) for r in shown)]) + "\n"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def write_game(folder: Path, game_id: int, names: Sequence[str], state: LastCardState) -> None:
    """``game/ID.log`` and ``.json`` (one row per player) and ``readable/ID.log``."""
    result = state.result()
    winner = names[result["winner"]] if result["winner"] is not None else None
    rows = [
        [names[seat], seat, *(stats[key] for key in STATISTICS)]
        for seat, stats in enumerate(result["stats"])
    ]
    ending = f"winner: {winner}" if winner else f"no winner ({result['turns']} turns)"
    if result["faults"]:
        ending += "; out of the game: " + ", ".join(
            f"{names[int(s)]} ({f['kind']})" for s, f in result["faults"].items()
        )
    for sub in ("game", "readable"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    stem = f"{game_id:04d}"
    table = text_table(["player", "seat", *HEADERS.values()], rows)
    (folder / "game" / f"{stem}.log").write_text(f"game {game_id}: {ending}\n\n{table}")
    players = [
        {"name": names[seat], "seat": seat} | stats for seat, stats in enumerate(result["stats"])
    ]
    data = {"game": game_id, "winner": winner, "turns": result["turns"], "players": players}
    (folder / "game" / f"{stem}.json").write_text(json.dumps(data, indent=1) + "\n")
    (folder / "readable" / f"{stem}.log").write_text("\n".join(readable(state, names)) + "\n")


def write_tournament(
    folder: Path, summary: dict[str, Any], games: Sequence[tuple[int, list[str], dict[str, Any]]]
) -> None:
    """``overall-stats`` (one row per bot) and ``ai/NAME`` (one row per game of that bot)."""
    folder.mkdir(parents=True, exist_ok=True)
    bots = summary["bots"]
    rows = [[b["name"], b["games"], *(b[key] for key in STATISTICS)] for b in bots]
    table = text_table(["AI", "games", *HEADERS.values()], rows)
    head = (
        f"{summary['matches']} games, seed {summary['seed']}: averages per game played; "
        "the lowest points taken wins\n\n"
    )
    (folder / "overall-stats.log").write_text(head + table)
    overall = [
        {"name": b["name"], "games": b["games"]} | {k: b[k] for k in STATISTICS} for b in bots
    ]
    (folder / "overall-stats.json").write_text(json.dumps(overall, indent=1) + "\n")
    per_bot: dict[str, list[dict[str, Any]]] = {b["name"]: [] for b in bots}
    for game_id, names, result in games:
        for seat, name in enumerate(names):
            row = {"game": game_id} | {k: result["stats"][seat][k] for k in STATISTICS}
            per_bot.setdefault(name, []).append(row)
    (folder / "ai").mkdir(exist_ok=True)
    for name, bot_rows in per_bot.items():
        rows = [[r["game"], *(r[k] for k in STATISTICS)] for r in bot_rows]
        table = text_table(["gameID", *HEADERS.values()], rows)
        base = safe_filename(name)
        (folder / "ai" / f"{base}.log").write_text(table)
        (folder / "ai" / f"{base}.json").write_text(json.dumps(bot_rows, indent=1) + "\n")


def readable_from_record(record: dict[str, Any]) -> list[str]:
    """Replay a match record and tell its story."""
    state = LastCardState.replay(record["events"], len(record["seats"]), record["config"])
    assert isinstance(state, LastCardState)
    return readable(state, [seat["name"] for seat in record["seats"]])


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m games.last_card.logs RECORD.json", file=sys.stderr)
        return 2
    record = json.loads(Path(argv[0]).read_text())
    print("\n".join(readable_from_record(record)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
