"""A compiler's refusal as the pages show it: a one-line summary ("C++ compile error
(2 errors)"), and the compiler's own lines in a monospace block of their own (``<pre
class="log">``, each line whole, so that a caret stays under the column it points at).

The compiler's lines quote the code (``2 | #error "..."``), so they are shown only to the
code's owner: anyone else gets the summary and why there is no more (a playground run's page
is seen by whoever has its address; its code only by its owner).

A refusal is what :func:`bots.sandbox.compiling._refusal` makes: a first line naming the
language ("C++ compile error", "Java compile error: compiling took over 60 s of CPU"), after
what says where it happened ("Your bot could not start: ", a version's "startup: "), then the
compiler's first lines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: the first line of a compiler's refusal, and the compiler's lines after it
_REFUSAL = re.compile(
    r"(?P<head>[^\n]*\b[\w+#]+ compile error(?::[^\n]*)?)\n(?P<lines>.*\S.*)", re.DOTALL
)
#: a compiler's line that reports an error: g++'s "bot.cpp:2:2: error: ..." (or "fatal
#: error:"), javac's "Bot.java:3: error: ..."
_ERROR = re.compile(r":\d+(?::\d+)?: (?:fatal )?error: ")
#: the last line when the compiler wrote more than is kept: "... (12 more lines)"
_MORE = re.compile(r"^\.\.\. \(\d+ more lines?\)$")
#: the continuation of an "In file included from the-bot.cpp:2," line that names the site's
#: own file including the bot's (its path in the compiler's sandbox): not the author's
_PLATFORM_INCLUDE = re.compile(r"^\s+from /src/main\.cpp:\d+[:,]$")


@dataclass(frozen=True)
class Refusal:
    """A compiler's refusal, split: ``head`` (its first line), ``lines`` (the compiler's)."""

    head: str
    lines: str

    @property
    def errors(self) -> str:
        """How many errors the compiler reported, in words ("2 errors", "at least 10
        errors" when its messages were cut), "" if it named none (a limit it went over)."""
        lines = self.lines.splitlines()
        count = sum(1 for line in lines if _ERROR.search(line))
        if not count:
            return ""
        cut = bool(lines) and _MORE.match(lines[-1].strip()) is not None
        return f"{'at least ' if cut else ''}{count} error{'s' if count != 1 else ''}"

    @property
    def summary(self) -> str:
        """The one line said before the compiler's lines (to their owner)."""
        return f"{self.head} ({self.errors})" if self.errors else self.head

    def hidden(self, owner: str | None = "the run's owner") -> str:
        """What anyone but the code's owner reads: the summary, and why no more (``owner``:
        who does see them; None for a bot whose owner is not the page's)."""
        errors = f"{self.errors}; " if self.errors else ""
        who = f"only {owner} sees them" if owner else "they are not shown here"
        return f"{self.head} ({errors}the compiler's messages quote the code, so {who})."


def refusal(text: str) -> Refusal | None:
    """``text`` split as a compiler's refusal, or None if it is not one with the compiler's
    lines (a message of another kind, or a limit with no line of the compiler's)."""
    found = _REFUSAL.fullmatch(text.strip())
    if found is None:
        return None
    return Refusal(found["head"].rstrip(), "\n".join(_authors_lines(found["lines"])))


def _authors_lines(lines: str) -> list[str]:
    """The compiler's lines less those naming the site's own file that includes the bot's
    (``from /src/main.cpp:3:``), the include line before one ending as a last one does."""
    kept: list[str] = []
    for line in lines.rstrip().splitlines():
        if _PLATFORM_INCLUDE.match(line):
            if kept and kept[-1].startswith("In file included from ") and kept[-1].endswith(","):
                kept[-1] = kept[-1][:-1] + ":"
            continue
        kept.append(line)
    return kept


def fault_shown(reason: str, *, owned: bool, owner: str | None = "the run's owner") -> str:
    """A fault's reason as a page shows it on one line: a compiler's refusal as its summary
    (its lines are shown apart, to their owner only), any other reason as it is."""
    found = refusal(reason)
    if found is None:
        return reason
    return found.summary if owned else found.hidden(owner)


def record_shown(record: dict[str, Any], seat: int, *, owned: bool) -> dict[str, Any]:
    """A playground match's record with the compiler's lines left out of its faults'
    reasons (the replay shows each), but those of the run's own bot (``seat``) when the
    viewer owns the run: the run's bot's as :meth:`Refusal.hidden` says them, an opponent's
    (whose owner is not the run's) never shown."""

    def faults(found: Any) -> Any:
        if not isinstance(found, dict):
            return found
        shown = {}
        for at, fault in found.items():
            if isinstance(fault, dict) and isinstance(fault.get("reason"), str):
                mine = str(at) == str(seat)
                if not (mine and owned):
                    said = fault_shown(fault["reason"], owned=False,
                                       owner="the run's owner" if mine else None)  # fmt: skip
                    fault = fault | {"reason": said}
            shown[at] = fault
        return shown

    events = record.get("events")
    if isinstance(events, list):
        record = record | {
            "events": [
                event | {"faults": faults(event.get("faults"))}
                if isinstance(event, dict) and event.get("type") == "fault"
                else event
                for event in events
            ]
        }
    result = record.get("result")
    if isinstance(result, dict) and "faults" in result:
        record = record | {"result": result | {"faults": faults(result["faults"])}}
    return record
