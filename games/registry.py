"""The games Card Arena knows, and what each brings: engine, bot contract, built-in bots."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.engine.agents import BotCall
from games.engine.game import GameState
from games.engine.runner import TimeControl
from games.engine.table import TableRules
from games.engine.tournament import Format


@dataclass(frozen=True)
class GameSpec:
    slug: str
    title: str
    state_class: type[GameState]
    bot_call: BotCall
    #: name -> module holding a standalone ``class Bot`` (stdlib only)
    builtin_bots: dict[str, str] = field(default_factory=dict)
    time_control: TimeControl = field(default_factory=TimeControl)
    #: the bot methods of the contract (a bot file must define them all)
    methods: tuple[str, ...] = ()
    #: the tournament format of the arena (scheduling and scoring)
    tournament: Callable[[], Format] | None = None
    #: standalone toolkit modules (stdlib only) a bot may import by file name, e.g.
    #: ``import movecheck``: the sandbox puts them beside the bot file
    toolkit: tuple[str, ...] = ()
    #: what a live table shows each seat and plays for an away person
    table: Callable[[], TableRules] | None = None

    def toolkit_files(self) -> dict[str, Path]:
        """File name -> path of each toolkit module."""
        files = {}
        for module_name in self.toolkit:
            module = importlib.import_module(module_name)
            assert module.__file__ is not None
            files[Path(module.__file__).name] = Path(module.__file__)
        return files

    @property
    def plays_alone(self) -> bool:
        """One seat per match (UTH: a bot against the dealer): no opponent in the match."""
        return self.state_class.max_seats == 1

    @property
    def builtin_names(self) -> list[str]:
        return list(self.builtin_bots)

    def builtin_path(self, name: str) -> Path:
        module = importlib.import_module(self._builtin_module(name))
        assert module.__file__ is not None
        return Path(module.__file__)

    def builtin_class(self, name: str) -> Any:
        return importlib.import_module(self._builtin_module(name)).Bot

    def _builtin_module(self, name: str) -> str:
        try:
            return self.builtin_bots[name]
        except KeyError:
            known = ", ".join(sorted(self.builtin_bots))
            raise KeyError(f"{self.slug} has no built-in bot {name!r} (known: {known})") from None


def _rps_poker() -> GameSpec:
    from games.rps_poker import botapi
    from games.rps_poker.rules import RpsPokerState
    from games.rps_poker.table import RpsPokerTable
    from games.rps_poker.tournament import RoundRobin

    return GameSpec(
        slug="rps-poker",
        title="RPS Poker",
        state_class=RpsPokerState,
        bot_call=botapi.bot_call,
        builtin_bots={
            name: f"games.rps_poker.bots.{name}" for name in ("minimal", "simple", "strong")
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=RoundRobin,
        table=RpsPokerTable,
    )


def _last_card() -> GameSpec:
    from games.last_card import botapi
    from games.last_card.rules import LastCardState
    from games.last_card.table import LastCardTable
    from games.last_card.tournament import Tables

    return GameSpec(
        slug="last-card",
        title="Last Card",
        state_class=LastCardState,
        bot_call=botapi.bot_call,
        builtin_bots={name: f"games.last_card.bots.{name}" for name in ("naive", "heuristic")},
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=Tables,
        toolkit=("games.last_card.movecheck",),
        table=LastCardTable,
    )


def _uth() -> GameSpec:
    from games.uth import botapi
    from games.uth.rules import UthState
    from games.uth.table import UthTable
    from games.uth.tournament import Duplicate

    return GameSpec(
        slug="uth",
        title="Ultimate Texas Hold'em",
        state_class=UthState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "always-check": "games.uth.bots.always_check",
            "basic": "games.uth.bots.basic",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=Duplicate,
        table=UthTable,
    )


def _kuhn() -> GameSpec:
    from games.kuhn import botapi
    from games.kuhn.rules import KuhnState
    from games.kuhn.table import KuhnTable
    from games.kuhn.tournament import ChipsRoundRobin

    return GameSpec(
        slug="kuhn",
        title="Kuhn poker",
        state_class=KuhnState,
        bot_call=botapi.bot_call,
        # the random bot's file is not random.py, which would hide the standard module from
        # the other bots of its folder
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.kuhn.bots.simple",
            "cfr": "games.kuhn.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=ChipsRoundRobin,
        table=KuhnTable,
    )


def _leduc() -> GameSpec:
    from games.leduc import botapi
    from games.leduc.rules import LeducState
    from games.leduc.table import LeducTable
    from games.leduc.tournament import ChipsRoundRobin

    return GameSpec(
        slug="leduc",
        title="Leduc hold'em",
        state_class=LeducState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.leduc.bots.simple",
            "cfr": "games.leduc.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=ChipsRoundRobin,
        table=LeducTable,
    )


def _blackjack_pp() -> GameSpec:
    from games.blackjack_pp import botapi
    from games.blackjack_pp.rules import BlackjackPPState
    from games.blackjack_pp.table import BlackjackPPTable
    from games.blackjack_pp.tournament import DealsRoundRobin

    return GameSpec(
        slug="blackjack-pp",
        title="Blackjack++",
        state_class=BlackjackPPState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.blackjack_pp.bots.simple",
            "cfr": "games.blackjack_pp.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=DealsRoundRobin,
        table=BlackjackPPTable,
    )


_FACTORIES = {
    "rps-poker": _rps_poker,
    "last-card": _last_card,
    "uth": _uth,
    "kuhn": _kuhn,
    "leduc": _leduc,
    "blackjack-pp": _blackjack_pp,
}
_CACHE: dict[str, GameSpec] = {}


def game_slugs() -> list[str]:
    return list(_FACTORIES)


def get_game(slug: str) -> GameSpec:
    if slug not in _FACTORIES:
        raise KeyError(f"unknown game {slug!r} (known: {', '.join(_FACTORIES)})")
    if slug not in _CACHE:
        _CACHE[slug] = _FACTORIES[slug]()
    return _CACHE[slug]
