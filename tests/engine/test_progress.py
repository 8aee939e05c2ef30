"""The command line's progress bar: counted sparingly, and not at all when it is off."""

from __future__ import annotations

import io

from rich.console import Console

from games.engine.progress import counter, progress_bar


def test_a_bar_is_updated_at_most_twenty_times_a_second_and_at_the_end():
    progress = progress_bar(Console(file=io.StringIO(), force_terminal=True))
    assert not progress.disable
    task = progress.add_task("matches", total=1000)
    updates = []
    update = progress.update
    progress.update = lambda *a, **k: (updates.append(k["completed"]), update(*a, **k))
    count = counter(progress, task, 1000)
    for done in range(1, 1001):
        count(done)
    assert updates[0] == 1 and updates[-1] == 1000  # the first, and the last
    assert len(updates) < 100
    assert progress.tasks[0].completed == 1000


def test_a_bar_that_is_off_is_not_counted():
    progress = progress_bar(Console(file=io.StringIO()), hidden=True)
    task = progress.add_task("matches", total=10)
    count = counter(progress, task, 10)
    for done in range(1, 11):
        count(done)
    assert progress.tasks[0].completed == 0
