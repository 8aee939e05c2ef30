"""The command line's progress bar (``manage.py arena``, ``manage.py solve``): one look for
every long command, drawn on the error console and only on a terminal."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
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
