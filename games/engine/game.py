"""What every game engine offers the runner.

An engine holds the rules only. It says who must decide now (several seats at once for a
simultaneous move), what each of them is asked (:class:`Prompt`), checks an answer
(``verify``) before applying it (``apply``), tells seats what they may see (notices), and
writes every chance outcome, action and fault into ``log``: a match is config + seed + log.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from games.engine import untrusted
from games.engine.chance import Chance, ReplayChance, ReplayMismatch, SeededChance


class IllegalAction(Exception):
    """An answer the rules do not allow; the message says why."""


class Prompt(NamedTuple):
    """Something one seat is asked (``expects_answer``) or told (a notice).

    ``kind`` names the question or the news (``draft_pick``, ``main_postprocess``...) and
    ``data`` holds exactly what that seat may see, as JSON-ready values. (A named tuple,
    not a frozen dataclass: as unchangeable, and a match makes dozens, each made in a
    fraction of the time.)
    """

    kind: str
    data: dict[str, Any]
    expects_answer: bool = True


@dataclass(frozen=True)
class Fault:
    """Why a seat stopped playing properly: recorded as an outcome, never a crash."""

    kind: str  # timeout | crash | exception | invalid | output | protocol | startup
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


def _fault_shown(fault: Any) -> Any:
    if isinstance(fault, dict) and isinstance(fault.get("reason"), str):
        return fault | {"reason": untrusted.one_line(fault["reason"])}
    return fault


def _faults_shown(faults: Any) -> Any:
    if not isinstance(faults, dict):
        return faults
    return {seat: _fault_shown(fault) for seat, fault in faults.items()}


def faults_shown(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the reason of every fault (in its events and its result) as it may be
    shown to anyone (:func:`games.engine.untrusted.one_line`: a bot writes the reason of its
    own exception, and could write lines that look like the page's). Replays the same: a
    fault's reason decides nothing. Every page, replay and API answer shows this; the stored
    record keeps the bot's words as they were."""
    events = record.get("events")
    if isinstance(events, list):
        events = [
            event | {"faults": _faults_shown(event.get("faults"))}
            if isinstance(event, dict) and event.get("type") == "fault"
            else event
            for event in events
        ]
        record = record | {"events": events}
    result = record.get("result")
    if isinstance(result, dict) and "faults" in result:
        record = record | {"result": result | {"faults": _faults_shown(result["faults"])}}
    return record


def one_fault(result: dict[str, Any]) -> int | None:
    """The seat of a two-seat match's ``result`` that faulted, if one alone did (both at
    once: None, as for none)."""
    faults = result.get("faults")
    if not isinstance(faults, dict) or len(faults) != 1:
        return None
    (seat,) = faults
    return int(seat) if str(seat) in ("0", "1") else None


@dataclass
class GameState(ABC):
    """Base class of every engine's state; subclasses implement the rules."""

    game: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    #: True for rules whose seats choose a simultaneous move independently: until the last
    #: of them has chosen, one seat's accepted action changes neither whether another is to
    #: act nor what it may do (RPS Poker, Goofspiel). The runner then accepts every legal
    #: answer of the turn without checking each again against the state the others left.
    independent_moves: ClassVar[bool] = False

    config: dict[str, Any]
    num_seats: int
    log: list[dict[str, Any]] = field(default_factory=list, init=False)
    faults: dict[int, Fault] = field(default_factory=dict, init=False)
    _notices: list[tuple[int, Prompt]] = field(default_factory=list, init=False, repr=False)

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def new(
        cls, seed: int, num_seats: int | None = None, config: dict[str, Any] | None = None
    ) -> GameState:
        """A fresh match whose chance outcomes come from ``random.Random(seed)``."""
        state = cls(
            config=cls.default_config() | (config or {}), num_seats=num_seats or cls.min_seats
        )
        state._check_seats()
        state.start(SeededChance(random.Random(seed), state.log.append))
        return state

    @classmethod
    def replay(
        cls, events: Sequence[dict[str, Any]], num_seats: int, config: dict[str, Any]
    ) -> GameState:
        """Rebuild a match from its log alone: recorded chance, recorded actions and faults.

        Raises :class:`ReplayMismatch` if the log does not reproduce itself exactly.
        """
        state = None
        for _, state in cls.replay_steps(events, num_seats, config):  # noqa: B007
            pass
        assert state is not None
        return state

    @classmethod
    def replay_steps(
        cls, events: Sequence[dict[str, Any]], num_seats: int, config: dict[str, Any]
    ) -> Iterator[tuple[dict[str, Any] | None, GameState]]:
        """:meth:`replay` one step at a time: the state after the deal (event None), then
        after each recorded action, refusal or fault. The state is live: read it before
        asking for the next step. The last step checks that the log reproduced itself."""
        state = cls(config=dict(config), num_seats=num_seats)
        state._check_seats()
        state.start(ReplayChance(events, state.log.append))
        yield None, state
        for event in events:
            kind = event.get("type")
            if kind == "chance":
                continue
            if kind == "action":
                try:
                    state.apply(event["seat"], event["action"])
                except IllegalAction as exc:
                    raise ReplayMismatch(f"recorded action is illegal: {exc}") from None
            elif kind == "rejected":
                state.reject(event["seat"], event["action"], event["reason"])
            elif kind == "fault":
                state.forfeit({int(s): Fault(**f) for s, f in event["faults"].items()})
            else:
                raise ReplayMismatch(f"unknown event type {kind!r}")
            state.take_notices()
            yield event, state
        if state.log != list(events):
            raise ReplayMismatch("replaying the record did not reproduce it")

    def _check_seats(self) -> None:
        if not self.min_seats <= self.num_seats <= self.max_seats:
            raise ValueError(
                f"{self.game} is played by {self.min_seats}-{self.max_seats} seats, "
                f"not {self.num_seats}"
            )

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {}

    # ---- what may be shown of a finished match ------------------------------------------
    #: False for a game whose seed must stay secret: with it, anyone could deal the match
    #: again and see cards that no one was shown at the table
    seed_is_public: ClassVar[bool] = True

    @classmethod
    def public_record(cls, record: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (None: anyone) may see of a stored match record: the record pages,
        the API and the end of a live table show this, never the stored record itself.

        By default the whole record, as nothing is secret once the match is over; a game
        that keeps some cards secret for good (poker: a folded hand) overrides this, and
        leaves out what would deal them again (:meth:`without_deals`). The site also
        leaves that out of a game's record whose seed is public while the seed may still
        deal another match (``bots.models.Match.public_record``)."""
        if cls.seed_is_public:
            return record
        return cls.without_deals(record)

    @classmethod
    def without_deals(cls, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` without what deals its cards: its seed and the outcomes of its
        shuffles (each chance event keeps its label); a game whose result also holds cards
        no one was shown (Goofspiel: the prizes a fault left face down) leaves those out
        too. Such a record cannot be replayed, nor its match dealt again."""
        events = [
            {k: v for k, v in event.items() if k != "outcome"}
            if isinstance(event, dict) and event.get("type") == "chance"
            else event
            for event in record.get("events", [])
        ]
        return record | {"seed": None, "events": events}

    # ---- what subclasses implement ------------------------------------------------------
    @abstractmethod
    def start(self, chance: Chance) -> None:
        """Deal: draw every chance outcome the match needs from ``chance``."""

    @abstractmethod
    def pending(self) -> list[int]:
        """Seats that must decide now (several for a simultaneous move); [] when over."""

    @abstractmethod
    def prompt(self, seat: int) -> Prompt:
        """The question a pending seat is asked, holding only what it may see."""

    @abstractmethod
    def verify(self, seat: int, action: Any) -> None:
        """Raise :class:`IllegalAction` with the reason if ``action`` is not allowed."""

    @abstractmethod
    def _apply(self, seat: int, action: Any) -> None:
        """Apply a verified action (a simultaneous move resolves once all seats acted)."""

    @abstractmethod
    def _forfeit(self, faults: dict[int, Fault]) -> None:
        """What the rules do with seats that faulted at the same moment."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """JSON-ready outcome; always holds ``scores`` (one number per seat)."""

    @classmethod
    def fault_words(cls, result: dict[str, Any], names: Sequence[str]) -> str:
        """What a seat's fault gave the other seat, in words, from a finished match's
        ``result`` (``names``: the seats'), for the sentence that says who won: "the 2
        unplayed games went to alice/firstcard". A fault stops a seat playing but need not
        lose it the match: what it had won before still counts. "" when the rules gave
        nothing (both seats faulted at once, the match was over, a game whose faulty seat
        plays on)."""
        return ""

    # ---- shared mechanics ---------------------------------------------------------------
    def can(self, seat: int, action: Any) -> bool:
        try:
            self.verify(seat, action)
        except IllegalAction:
            return False
        return True

    def apply(self, seat: int, action: Any) -> None:
        if seat not in self.pending():
            raise IllegalAction(f"seat {seat} is not to act now")
        self.verify(seat, action)
        self.accept(seat, action)

    def accept(self, seat: int, action: Any) -> None:
        """Apply an action already verified for a pending seat (the runner verifies each
        answer before it applies any: :meth:`apply` less its checks)."""
        self.log.append({"type": "action", "seat": seat, "action": action})
        self._apply(seat, action)

    def reject(self, seat: int, action: Any, reason: str) -> Fault | None:
        """An illegal answer arrived. By default it is the seat's fault (which the runner
        passes to :meth:`forfeit`: the seat plays no further). Games whose rules treat it
        otherwise (Last Card: a pass) override this, log a ``rejected`` event, apply the rule
        and return None."""
        return Fault("invalid", reason)

    def forfeit(self, faults: dict[int, Fault]) -> None:
        """Seats that faulted together: logged, then handled by the rules."""
        fresh = {seat: f for seat, f in sorted(faults.items()) if seat not in self.faults}
        if not fresh:
            return
        self.faults.update(fresh)
        self.log.append(
            {"type": "fault", "faults": {str(s): f.as_dict() for s, f in fresh.items()}}
        )
        self._forfeit(fresh)

    def notify(self, seat: int, kind: str, data: dict[str, Any]) -> None:
        self._notices.append((seat, Prompt(kind, data, expects_answer=False)))

    def take_notices(self) -> list[tuple[int, Prompt]]:
        notices, self._notices = self._notices, []
        return notices
