"""What a game brings to the platform: :class:`GameSpec`.

Each game describes itself in its own package (``games/<game>/spec.py``, a function
``spec()``), and ``games/registry.py`` lists those modules, one line per game. Everything the
platform needs to know about a game is here or reached from here; code outside the game's
package asks the spec and never branches on the game's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.engine.agents import BotCall
from games.engine.cards import standard_deck
from games.engine.game import GameState
from games.engine.options import GameOption
from games.engine.runner import TimeControl
from games.engine.table import TableRules
from games.engine.tournament import Format

#: a replay builder: ``frames(record, seat names) -> frames`` (see games/replays.py)
FrameBuilder = Callable[[dict[str, Any], list[str]], list[dict[str, Any]]]


@dataclass(frozen=True)
class SolverOption:
    """One option of a game's solver: a keyword of :attr:`SolverSpec.make`, a flag of
    ``manage.py solve`` and a field (or a row of fields) of the strategy explorer's form.

    A value is what the command line gives (``"6,6,2"``, ``2``). The form asks for it in one
    menu of ``choices`` or, with ``parts``, in one menu per part, joined with ``separator``.
    """

    #: the keyword of ``make``; also the form field's name (the stem of its parts' names)
    name: str
    #: what the option is called: the form's label, and in words, lower-cased ("max hits 2")
    label: str
    #: what the command line's help says of it (the games that take it and the default are
    #: added)
    help: str = ""
    #: the value ``make`` takes when the option is not given
    default: Any = None
    #: turns the command line's text (and the form's choice) into a value, e.g. ``int``
    parse: Callable[[str], Any] = str
    #: the command line's placeholder for the value (``--max-hits K``)
    metavar: str = "VALUE"
    #: the command-line flag, when not ``--`` and the name with dashes
    flag_text: str = ""
    # -- the strategy explorer's form (the web)
    #: what the form offers, (value, what the menu says) pairs: the web's bounds (for a value
    #: in parts, the choices of each part)
    choices: tuple[tuple[Any, str], ...] = ()
    #: what the form shows first
    initial: Any = None
    #: the labels of the value's parts when the form asks for it part by part (fields
    #: ``<name>0``, ``<name>1``, ...), each from ``choices``
    parts: tuple[str, ...] = ()
    separator: str = ","
    #: the form's help under the field
    web_help: str = ""
    #: the form's message for an empty field
    missing: str = "Choose one."
    #: the form's message for a value that is not among the choices (default: Django's)
    refused: str = ""
    #: the limit the web sets, for the page's list of limits ("max hits 1 or 2")
    web_note: str = ""
    #: a value as people read it (``"6,6,T"`` -> ``"6, 6, 10"``)
    text: Callable[[Any], str] = str
    #: how a value is named in a description; ``{}`` is the value as people read it
    shown: str = ""
    #: how a value appears in a file name (its parts joined with ``-``): ``"hits{}"``
    file_name: str = "{}"
    #: values the web solves with fewer iterations than the game's ``web_limit``, (value, the
    #: most iterations) pairs: a value whose tree is far larger (Blackjack++'s 3 hits)
    web_iterations: tuple[tuple[Any, int], ...] = ()

    def web_limit_for(self, value: Any) -> int | None:
        """The most iterations the web runs with this value, if it sets fewer than the
        game's limit (:attr:`web_iterations`); None if it does not."""
        return next((most for v, most in self.web_iterations if str(v) == str(value)), None)

    @property
    def flag(self) -> str:
        return self.flag_text or "--" + self.name.replace("_", "-")

    @property
    def field_names(self) -> tuple[str, ...]:
        """The form's fields for the option: one, or one per part."""
        if self.parts:
            return tuple(f"{self.name}{i}" for i in range(len(self.parts)))
        return (self.name,)

    def split(self, value: Any) -> tuple[Any, ...]:
        """A value as the form's fields hold it."""
        if self.parts:
            return tuple(str(value).split(self.separator))
        return (value,)

    def join(self, fields: Sequence[Any]) -> Any:
        """A value from the form's fields (each already one of the choices)."""
        if self.parts:
            return self.separator.join(str(f) for f in fields)
        return fields[0]

    def describe(self, value: Any) -> str:
        """The value in words: ``up cards 6, 6, 10``."""
        return (self.shown or self.label.lower() + " {}").format(self.text(value))

    def detail(self, value: Any) -> str:
        """The value in words with its parts named: ``up cards 6, 6, 10 (player 0, ...)``."""
        if not self.parts:
            return self.describe(value)
        return f"{self.describe(value)} ({', '.join(p.lower() for p in self.parts)})"

    def plain(self, value: Any) -> str:
        """The value as the command line writes it, named: ``up cards 6,6,2`` (a list of
        parts, as a game's ``settings()`` gives it, is joined with ``separator``)."""
        if isinstance(value, list | tuple):
            value = self.separator.join(str(v) for v in value)
        return f"{self.label.lower()} {value}"

    def key(self, value: Any) -> str:
        """The value in a solve's cache key."""
        return str(value)

    def file_text(self, value: Any) -> str:
        """The value in a file name: ``6-6-2``, ``hits1``."""
        return self.file_name.format("-".join(str(v) for v in self.split(value)))


#: what ``manage.py solve --out DIR`` does for a game: ``export(directory, game, strategy,
#: algorithm, iterations) -> files written``, where ``strategy`` is the solved average
#: strategy as ``games.solver.export.strategy_table`` gives it and ``algorithm`` its title
Exporter = Callable[[Path, Any, dict[str, dict[str, float]], str, int], int]


#: the functions a bot written by ``manage.py solve --bot`` starts from when a game says
#: nothing: every solve fills the one table, and a situation the table lacks is answered
#: with a legal action at random
PLAIN_BOT_SOURCE = '''
def setting(obs):
    """The embedded table that covers this situation (a game solved whole has one)."""
    return ""


def fallback(obs, rng):
    """A situation no table covers: a legal action at random."""
    return rng.choice(obs["legal"])
'''


def _one_table(settings: dict[str, Any]) -> str:
    return ""


@dataclass(frozen=True)
class SolverBot:
    """How a solved strategy becomes a standalone bot file (``manage.py solve --bot``): the
    bot looks its move up by the solver's information set key, ``obs["infoset"]``, in the
    table of the solve whose settings match its deal, and samples the stored probabilities."""

    #: the contract's answer for a solver's action label, where they differ (``h`` -> ``hit``)
    answers: dict[str, str] = field(default_factory=dict)
    #: a solve's ``Game.settings()`` -> the name of its table in the bot
    table_key: Callable[[dict[str, Any]], str] = _one_table
    #: the bot's own code (standard library only) defining ``setting(obs)``, the name of the
    #: table for the bot's observation, as ``table_key`` names it, and ``fallback(obs, rng)``,
    #: the answer where no table holds the observation's key
    source: str = PLAIN_BOT_SOURCE
    #: what the bot does where no table covers its deal, in words (its docstring says so)
    fallback_text: str = "a legal action at random"


@dataclass(frozen=True)
class SolverSpec:
    """A game the CFR solver can solve (``manage.py solve`` and the strategy explorer)."""

    #: ``make(**options) -> games.solver.game.Game``; an option not given is left out (its
    #: default is ``make``'s); a wrong option raises ValueError with the reason
    make: Callable[..., Any]
    #: the most iterations a solve on the web may run, and what the form offers first
    web_limit: int = 1_000
    default_iterations: int = 100
    #: the iterations of the solve a match is reviewed with, where the explorer's first
    #: offer (``default_iterations``) leaves the values of actions it mixes apart by more
    #: than a mistake (games/solver/review.py); None: ``default_iterations``
    review_iterations: int | None = None
    #: what the solver's payoffs are counted in, and so a solve's exploitability, as the
    #: explorer's result says them (Blackjack++: "points per deal")
    unit: str = "chips per hand"
    #: other names ``manage.py solve`` accepts for the game
    aliases: tuple[str, ...] = ()
    #: the options ``make`` takes besides the game: flags of ``manage.py solve`` and fields
    #: of the explorer's form
    options: tuple[SolverOption, ...] = ()
    #: the solved strategy as the explorer shows it: ``strategy(pages, settings, at,
    #: base_url) -> {"tables": [...], "reading": text, ...}`` (games/solver/views.py);
    #: ``pages`` reads the stored strategy a page at a time (``StrategyPages``)
    strategy: Callable[..., dict[str, Any]] | None = None
    #: the page of the stored strategy an information set key is kept in: the explorer
    #: reads the pages a situation needs, never the whole strategy (Blackjack++ with 3 hits
    #: has 475,000 information sets); None: the strategy is one page
    page_of: Callable[[str], str] | None = None
    #: what ``manage.py solve --out DIR`` writes, if the game writes more than ``--json``
    export: Exporter | None = None
    #: the command line's help of ``--out`` for the game
    export_help: str = ""
    #: the decisions of a match record the solver can review (games/solver/review.py):
    #: ``review_moves(record) -> [Move, ...]``, every seat's, from the record as whoever
    #: asks may see it (a decision whose cards it hides has no key); None: no review
    review_moves: Callable[[dict[str, Any]], list[Any]] | None = None
    #: the solver options a match is reviewed with (its record decides: say the match's
    #: most hits), or why it cannot be; None: each option's default
    review_options: Callable[[dict[str, Any]], tuple[tuple[str, Any], ...] | str] | None = None
    #: an information set key in words, for the review (``"Qpb"`` -> ``"queen; checked,
    #: faces a bet"``); None: the key itself is shown
    describe_infoset: Callable[[str], str] | None = None
    #: a reviewed decision in words (``review_words(move) -> games.solver.review.Words``:
    #: what the seat held and had seen, and each action of its information set as a verb),
    #: for the review's sentences; None: the review shows the key and the action codes
    review_words: Callable[[Any], Any] | None = None
    #: how ``manage.py solve --bot`` writes a standalone bot that plays the solved strategy
    bot: SolverBot | None = None

    def __post_init__(self) -> None:
        if (self.review_iterations or 0) > self.web_limit:
            # a review's solve is a job of the web's queue, held to the web's limit
            raise ValueError(
                f"review_iterations {self.review_iterations} over web_limit {self.web_limit}"
            )

    @property
    def reviews(self) -> bool:
        """Whether the solver reviews the game's matches (templates cannot test
        ``review_moves``: they would call it)."""
        return self.review_moves is not None

    def iteration_limit(self, options: dict[str, Any]) -> int:
        """The most iterations the web runs with these options (``web_limit``, or less for
        an option's value that says so: ``SolverOption.web_iterations``)."""
        lower = (option.web_limit_for(options.get(option.name)) for option in self.options)
        return min([self.web_limit, *(most for most in lower if most is not None)])

    def option(self, name: str) -> SolverOption:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(f"no solver option {name!r}")


@dataclass(frozen=True)
class HandHistory:
    """Replays a hand history file of the game's original system (``manage.py replay``)."""

    #: ``replay(history) -> report`` (JSON data); ValueError says which round is wrong and why
    replay: Callable[[Any], dict[str, Any]]
    #: the report in lines of text
    lines: Callable[[dict[str, Any]], list[str]]


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
    #: what a seat's score in one match counts (replays, the end of a table)
    score_label: str = "score"
    #: the same after a score of 1 or -1, where ``score_label`` is a plural ("game won" for
    #: "games won": a live table's seat says "1 game won"); default: ``score_label``
    score_label_one: str = ""
    #: starter bots a person can download: a language of bots.languages (its name) -> file
    starters: dict[str, Path] = field(default_factory=dict)
    #: source files the game gives its bots of a language, compiled with them (by language:
    #: Last Card's Java kit, the original challenge's classes)
    kits: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    #: the built-in bot a person meets first (a table's default opponent); default: the last
    strongest_builtin: str = ""
    #: ``manage.py arena`` arguments after a starter's file that try it against the built-in
    #: bots (the rules page shows the command); default: the strongest bot, 20 rounds
    arena_example: str = ""
    #: what happens to an illegal answer, when it is not a fault (the rules page says so)
    illegal_answer: str = ""
    #: globals a JavaScript bot finds (the original RPS Poker bots rely on ``fullDeck``)
    js_globals: dict[str, Any] = field(default_factory=dict)
    #: the game's own sandbox limits, as fields of ``bots.sandbox.SandboxLimits`` that differ
    #: from the defaults
    sandbox_limits: dict[str, Any] = field(default_factory=dict)
    #: every card code a table of the game may show, if not the standard 52-card deck's
    cards: tuple[str, ...] = ()
    #: the frames of a match's replay, if the replay viewer can draw the game
    replay: FrameBuilder | None = None
    #: the solver's form of the game, if it has one
    solver: SolverSpec | None = None
    #: the replayer of the original system's hand histories, if the game has one
    hand_history: HandHistory | None = None
    #: a match is a session of rounds (``config["max_rounds"]``; UTH): the arena counts
    #: ``--sessions`` of ``--rounds-per-session`` (this many by default)
    session_rounds: int = 0
    #: the settings of its matches a person may choose, wherever a match is started (the
    #: arena's --option, a tournament's, a live table's form): games.engine.options
    options: tuple[GameOption, ...] = ()

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
    def higher_is_better(self) -> bool:
        """Whether a higher score is the better one (the game's tournament format decides;
        Last Card counts points taken, fewer is better)."""
        return self.tournament is None or self.tournament().higher_is_better

    @property
    def card_codes(self) -> tuple[str, ...]:
        return self.cards or tuple(str(card) for card in standard_deck())

    @property
    def builtin_names(self) -> list[str]:
        return list(self.builtin_bots)

    @property
    def strongest(self) -> str:
        return self.strongest_builtin or self.builtin_names[-1]

    @property
    def arena_args(self) -> str:
        return self.arena_example or f"builtin:{self.strongest} --rounds 20"

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
