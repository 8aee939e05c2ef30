"""The command line's progress bar (``manage.py arena``, ``manage.py solve``): one look for
every long command, drawn on the error console and only on a terminal."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)


class _Progress(Progress):
    """A bar that draws, at its next refresh (ten a second), the latest count a
    :func:`counter` held back: a count is never left unshown while nothing else comes (an
    arena's matches end in bursts, then none may end for minutes)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        #: task -> the latest count held back (set from any thread)
        self.held: dict[TaskID, float] = {}
        super().__init__(*args, **kwargs)

    def get_renderables(self) -> Iterable[RenderableType]:
        for task, done in list(self.held.items()):
            shown = self._tasks.get(task)
            if shown is not None and shown.completed < done:
                self.update(task, completed=done)
        yield from super().get_renderables()


def progress_bar(console: Console, hidden: bool = False) -> Progress:
    """A bar of done / total with the time left, on ``console``; off when ``hidden`` (the
    command's ``--no-progress``) or when the console is not a terminal (a log, a pipe), and
    gone once done."""
    return _Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=hidden or not console.is_terminal,
    )


def counter(progress: Progress, task: TaskID, total: int) -> Callable[[int], None]:
    """What sets ``task`` to N of ``total`` done (from any thread): nothing when the bar is
    off, and otherwise at most 20 times a second besides the last (an arena finishes
    hundreds of matches a second, and each update of the bar costs its bookkeeping); a
    count held back is drawn at the bar's next refresh."""
    if progress.disable:
        return lambda done: None
    shown = [-1.0]

    def count(done: int) -> None:
        now = time.monotonic()
        if done >= total or now - shown[0] >= 0.05:
            shown[0] = now
            progress.update(task, completed=done)
        elif isinstance(progress, _Progress):
            progress.held[task] = done

    return count
