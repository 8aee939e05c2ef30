"""How wide a command's lines are, and how they are wrapped to it: the terminal's width, else
``COLUMNS``, else 80 columns (where the output is not a terminal and ``COLUMNS`` does not
say: a pipe, a log; bash sets ``COLUMNS`` without exporting it). Lines are wrapped between
words, never inside one (a terminal wraps a long line wherever its edge falls: "keeps o" /
"ne"). Used by every command that prints lines of its own (``manage.py arena``,
``upload_bot``, ``standings``, ``replay``, ``solve``, ``start_tournament``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import textwrap
from typing import Any

#: the width of the command's messages where they do not go to a terminal (a pipe, a log)
#: and ``COLUMNS`` does not say
PLAIN_WIDTH = 80


def plain_width() -> int:
    """How wide the messages are where they do not go to a terminal: ``COLUMNS`` if set,
    else :data:`PLAIN_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PLAIN_WIDTH


def stream_width(stream: Any) -> int:
    """How wide the command's messages to ``stream`` are: its terminal's width, else
    :func:`plain_width`."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    return plain_width()


def console_width(stream: Any = None) -> int:
    """How wide a command's output to ``stream`` (stdout; a Django command's writer or its
    stream) may be: as :func:`stream_width` says."""
    stream = sys.stdout if stream is None else stream
    return stream_width(getattr(stream, "_out", stream))


#: a number and the unit after it ("2.00 s", "64 MiB"), which a line never splits
_NUMBER_UNIT = re.compile(r"(?<=\d) (?=(?:s|ms|KiB|MiB|GiB|bytes?|%)(?!\w))")
#: what holds them together while a line is wrapped: a character that no printable text
#: holds (a NUL is shown as its escape), which textwrap never breaks at
_GLUE = "\x00"


def wrapped(text: str, width: int, *, keep_indented: bool = False) -> str:
    """``text`` wrapped between words to ``width`` columns, each of its lines on its own: a
    line's rest is indented by two spaces, or, in a block whose lines under the first are
    indented by two (the items of a bot's fault), by four, so that it reads apart from
    them. A word longer than a line (a path) is kept whole, and so is a number with its
    unit ("2.00 s"). ``keep_indented``: a line that begins with a space is left as it is (a
    compiler's quote of the code and the caret under it, a traceback's lines). ``text`` is
    printable already (what a bot wrote: ``bots.arena.shown``)."""
    given = text.splitlines() or [""]
    block = any(line[:1] == " " for line in given)
    lines = []
    for line in given:
        if keep_indented and line[:1].isspace():
            lines.append(line)
            continue
        own = len(line) - len(line.lstrip(" "))
        indent = " " * max(own + 2, 4 if block else 2)
        glued = line if _GLUE in line else _NUMBER_UNIT.sub(_GLUE, line)
        lines += [
            part.replace(_GLUE, " ")
            for part in textwrap.wrap(
                glued,
                max(width, 20),
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        ] or [""]
    return "\n".join(lines)


class HelpOnDemand(argparse.Action):
    """An option stored as given whose help is worked out only when it is shown (a
    subclass's :meth:`help_text`): what it reads (every game's spec) would cost each run
    of the command a quarter of a second or more."""

    def help_text(self) -> str:
        raise NotImplementedError

    @property
    def help(self) -> str:
        return self.help_text()

    @help.setter
    def help(self, value: str | None) -> None:
        pass  # argparse sets it on construction; the property says it

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
