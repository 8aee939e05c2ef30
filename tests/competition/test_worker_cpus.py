"""Where a worker and its bots run: ``--cpus`` and the CPUs ``--concurrency`` shares out."""

from __future__ import annotations

import argparse
import io
import os
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bots import competition
from bots.management.commands import worker as command
from bots.models import MatchSeat
from bots.running import cpus
from tests.competition.conftest import builtin_code, misbehaving


def test_a_list_of_cpus_is_read_as_taskset_reads_it():
    assert command.cpu_option("2") == [2]
    assert command.cpu_option("0-3,6") == [0, 1, 2, 3, 6]
    assert command.cpu_option("3, 1,1") == [1, 3]
    for bad in ("", "a", "3-1", "-1", "1-", "0,,1", "0-99999999"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not a list of CPUs"):
            command.cpu_option(bad)


@pytest.mark.parametrize(
    ("allowed", "count", "placed"),
    [
        ({0, 1}, 2, ["0", "1"]),
        ({0, 1}, 3, ["0", "1", "0"]),
        ({0, 1, 2, 3, 4, 5, 6, 7}, 2, ["0,1,2,3", "4,5,6,7"]),
        ({0, 1, 2, 3, 4, 5, 6, 7}, 3, ["0,1,2", "3,4,5", "6,7"]),
        ({2, 5}, 2, ["2", "5"]),
    ],
)
def test_concurrency_shares_the_allowed_cpus_out_in_equal_parts(
    monkeypatch, allowed, count, placed
):
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(allowed))
    assert command.spread_cpus(count) == [["--cpus", cpus] for cpus in placed]


def test_one_cpu_or_no_pin_places_nothing(monkeypatch):
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {3})
    assert command.spread_cpus(2) == [[], []]
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1})
    assert command.spread_cpus(2, pin=False) == [[], []]


def test_the_fan_out_gives_each_worker_process_its_cpus(monkeypatch):
    started: list[list[str]] = []

    class Child:
        returncode = 0

        def __init__(self, argv):
            started.append(argv)

        def poll(self):
            return 0

    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(command.subprocess, "Popen", Child)
    monkeypatch.setattr(command, "self_test", lambda: None)
    call_command("worker", "--batch", "--concurrency", "2")
    assert [argv[argv.index("--cpus") + 1] for argv in started] == ["0", "1"]
    started.clear()
    call_command("worker", "--batch", "--concurrency", "2", "--no-pin")
    assert len(started) == 2 and not any("--cpus" in argv for argv in started)


def test_it_refuses_cpus_it_may_not_use_and_cpus_with_concurrency():
    beyond = os.cpu_count()  # CPUs are numbered from 0: one past the last
    with pytest.raises(CommandError, match=f"may not run on CPU {beyond}$"):
        call_command("worker", "--batch", "--cpus", str(beyond))
    with pytest.raises(CommandError, match="--concurrency N shares the CPUs out"):
        call_command("worker", "--batch", "--cpus", "0", "--concurrency", "2")


def test_a_worker_on_one_cpu_runs_its_bots_there(alice, bob, active_bot, caplog):
    """The sandboxed bots a worker starts run on the CPUs it was given: each match's bot says
    which CPUs it may use (os.sched_getaffinity, from inside the sandbox)."""
    says = misbehaving(
        "import os, sys; print('cpus', sorted(os.sched_getaffinity(0)), file=sys.stderr)"
    )
    teller = active_bot(alice, "teller", says)
    active_bot(bob, "simple", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 1, seed=61)
    cpu = max(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    out = io.StringIO()
    call_command(
        "worker", "--batch", "--cpus", str(cpu), "--no-validate", "--ladder-interval", "0",
        "--display", "log", stdout=out, stderr=out,
    )  # fmt: skip
    # the command's process is let go where it was (here: the test's own)
    assert os.sched_getaffinity(0) == before
    assert "event=worker.placed worker=" in caplog.text and f"cpus={cpu}" in caplog.text
    said = [set(re.findall(r"cpus \[([\d, ]*)\]", seat.stderr)) for seat in teller.seats.all()]
    assert said == [{str(cpu)}, {str(cpu)}]
    assert not MatchSeat.objects.exclude(fault_kind="").exists()
