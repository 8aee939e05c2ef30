"""The Agent protocol: whoever sits in a seat (a bot process, an in-process bot, a human).

The runner talks to every kind of seat the same way, in two halves so that simultaneous
decisions are asked of all seats at once: ``send`` a prompt, then ``receive`` the answer
within a timeout. A notice (a prompt that expects no answer) goes the same way, so a bot
that raises while being told something is caught too; an agent may take a notice without
waiting for it (a bot process: the failure comes with its next answer) and then says it is
``unconfirmed`` until the runner calls ``confirm`` at the end of the match.
"""

from __future__ import annotations

import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from games.engine.game import Prompt


class AgentFault(Exception):
    """A seat failed: timeout, crash, exception, invalid or oversized output, protocol error."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class SeatInfo:
    game: str
    seat: int
    num_seats: int
    config: dict[str, Any]
    #: the match's deal (its seed): never shown to a bot. A bot process is never dealt a deal
    #: it has played (bots.running.process); None: not known, as if every match dealt one seen
    #: before
    deal: int | None = None


class Agent(ABC):
    """One seat's player for one match at a time."""

    name: str = "agent"
    #: When the last answer arrived (on the runner's clock), if the agent knows it better than
    #: the runner does: with simultaneous prompts the runner collects answers one by one, and a
    #: seat must not be charged for the time spent waiting on another.
    answered_at: float | None = None
    #: True for an agent that works out its answer inside ``send`` (in-process bots): the
    #: runner then times it around ``send``, not until its answer is collected.
    answers_on_send: bool = False
    #: True for an agent whose notices are answered only with its next reply (a bot
    #: process: a notice's failure and its time come with the next call's): a match played
    #: directly does not wait for a notice's answer there, it counts the call.
    hears_later: bool = False
    #: False for an agent whose calls return at once (people, scripts, quick built-ins):
    #: a live table's event loop calls it directly. A blocking one (a bot process waiting on
    #: its pipe, a built-in that thinks for long) is called from another thread there.
    blocking: bool = True
    #: whether a match being resumed plays its calls so far to this agent again, to bring it
    #: to the same point (a bot: its answers then are not used, the kept ones are); False for
    #: a seat that is only begun and asked what is still open (a person, whom the table shows
    #: where the match is). See games/engine/journal.py.
    catch_up: bool = True

    def begin(self, info: SeatInfo, timeout: float) -> None:  # noqa: B027 (optional hook)
        """A match starts (a bot gets a fresh instance). Raises AgentFault. An agent may
        only ask for its start here and wait for it in ``started`` (every seat is begun
        before any is waited for)."""

    def started(self, timeout: float) -> None:  # noqa: B027 (optional hook)
        """Wait, within ``timeout``, for the start that ``begin`` asked for, and set
        ``answered_at`` if it knows when it came. Raises AgentFault."""

    @abstractmethod
    def send(self, prompt: Prompt) -> None:
        """Deliver a prompt without waiting for the answer."""

    @abstractmethod
    def receive(self, timeout: float) -> Any:
        """The answer to the last prompt (None for a notice). Raises AgentFault."""

    #: True while notices were taken without waiting for them to be done (see ``confirm``)
    unconfirmed: bool = False
    #: True while the agent's next ``receive`` or ``confirm`` waits for a reply that a driver
    #: of several matches at once collects (a bot process's lane: bots.running.lanes): the
    #: match loop then hands the call to that driver instead of making it
    parks: bool = False

    def ask_confirm(self) -> None:  # noqa: B027 (optional hook)
        """The match is over: ask for what ``confirm`` waits for, without waiting (every
        unconfirmed seat is asked before any is waited for). Raises AgentFault."""

    def confirm(self, timeout: float) -> None:  # noqa: B027 (optional hook)
        """The last notices were taken without waiting: wait until they are done, within
        ``timeout``. Raises AgentFault for a failure in one (the seat's fault in this match)."""

    def end(self, result: dict[str, Any]) -> None:  # noqa: B027 (optional hook)
        """The match is over; ``result`` is what the seat may see of it."""

    def call_name(self, prompt: Prompt) -> str:
        """What ``prompt`` asks of this seat, named as its author knows it (a bot: the method
        of its contract, in its own language), for the reason of a fault: an illegal answer
        or a slow call is reported as the answer of *that* call."""
        return prompt.kind


class BotCall(Protocol):
    """How a game's prompts map onto its bot contract's method calls."""

    def __call__(self, prompt: Prompt) -> tuple[str, list[Any]]: ...


class InProcessAgent(Agent):
    """A trusted Python bot (built-ins, tests) called directly in this process.

    ``factory`` builds a fresh bot object for every match. Exceptions become faults with the
    traceback kept in ``errors``; no deadline can be enforced in-process, so none is. A bot
    class that says ``quick = True`` (it decides within a few milliseconds) is not
    ``blocking``: a live table calls it on its event loop instead of in a thread.
    """

    answers_on_send = True

    def __init__(self, factory: Callable[[], Any], bot_call: BotCall, name: str) -> None:
        self.blocking = not getattr(factory, "quick", False)
        self.factory = factory
        self.bot_call = bot_call
        self.name = name
        self.bot: Any = None
        self.errors: list[str] = []
        self._answer: Any = None
        self._fault: AgentFault | None = None

    def begin(self, info: SeatInfo, timeout: float) -> None:
        try:
            self.bot = self.factory()
        except Exception as exc:  # noqa: BLE001 - a bot failing is an outcome
            self.errors.append(traceback.format_exc())
            raise AgentFault(
                "startup", f"the bot's constructor raised {type(exc).__name__}: {exc}"
            ) from None

    def call_name(self, prompt: Prompt) -> str:
        return self.bot_call(prompt)[0]

    def send(self, prompt: Prompt) -> None:
        method, args = self.bot_call(prompt)
        self._answer, self._fault = None, None
        try:
            self._answer = getattr(self.bot, method)(*args)
        except Exception as exc:  # noqa: BLE001 - a bot failing is an outcome
            self.errors.append(traceback.format_exc())
            self._fault = AgentFault("exception", f"{method} raised {type(exc).__name__}: {exc}")

    def receive(self, timeout: float) -> Any:
        if self._fault is not None:
            raise self._fault
        return self._answer


class ScriptedAgent(Agent):
    """Answers from a list, for tests; records what it was told."""

    blocking = False

    def __init__(self, answers: list[Any], name: str = "scripted") -> None:
        self.answers = list(answers)
        self.name = name
        self.seen: list[Prompt] = []
        self._last: Prompt | None = None

    def send(self, prompt: Prompt) -> None:
        self.seen.append(prompt)
        self._last = prompt

    def receive(self, timeout: float) -> Any:
        assert self._last is not None
        if not self._last.expects_answer:
            return None
        if not self.answers:
            raise AgentFault("timeout", "the script ran out of answers")
        answer = self.answers.pop(0)
        if isinstance(answer, AgentFault):
            raise answer
        return answer
