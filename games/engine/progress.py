"""The command line's progress bar (``manage.py arena``, ``manage.py solve``): one look for
every long command, drawn on the error console and only on a terminal."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)


def progress_bar(console: Console, hidden: bool = False) -> Progress:
    """A bar of done / total with the time left, on ``console``; off when ``hidden`` (the
    command's ``--no-progress``) or when the console is not a terminal (a log, a pipe), and
    gone once done."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=hidden or not console.is_terminal,
    )


def counter(progress: Progress, task: TaskID, total: int) -> Callable[[int], None]:
    """What sets ``task`` to N of ``total`` done: nothing when the bar is off, and otherwise
    at most 20 times a second besides the last (an arena finishes hundreds of matches a
    second, and each update of the bar costs its bookkeeping)."""
    if progress.disable:
        return lambda done: None
    shown = [-1.0]

    def count(done: int) -> None:
        now = time.monotonic()
        if done >= total or now - shown[0] >= 0.05:
            shown[0] = now
            progress.update(task, completed=done)

    return count
