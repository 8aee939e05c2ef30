"""What counts as the machine's starvation of a bot (bots.running.starved.credit), from the
kernel's counts of its threads."""

from bots.running.starved import Probe, credit

MS = 1_000_000  # ns


def test_the_run_queue_wait_of_a_single_thread_is_credited():
    base = Probe(0.0, {7: (0, 0, 3, True)})
    now = Probe(1.0, {7: (500 * MS, 500 * MS, 4, True)})
    assert abs(credit(base, now) - 0.5) < 1e-9


def test_threads_that_share_the_bots_one_core_wait_on_each_other_not_the_machine():
    """Four threads spinning on a one-core quota: each ran a quarter, waited three: the bot
    had its core all along, so nothing is credited."""
    base = Probe(0.0, {t: (0, 0, 1, True) for t in range(4)})
    now = Probe(1.0, {t: (250 * MS, 750 * MS, 2, True) for t in range(4)})
    assert credit(base, now, cores=1.0) == 0.0


def test_a_thread_waiting_now_is_credited_the_wait_the_kernel_has_not_added_yet():
    """Runnable at both reads and never gave up the CPU of its own accord between them: it
    waited all the window but the 20 ms it ran."""
    base = Probe(0.0, {7: (0, 0, 1, True)})
    now = Probe(1.0, {7: (20 * MS, 0, 1, True)})
    assert abs(credit(base, now) - 0.98) < 1e-9


def test_a_thread_that_slept_meanwhile_is_credited_only_the_counted_wait():
    base = Probe(0.0, {7: (0, 0, 1, True)})
    now = Probe(1.0, {7: (20 * MS, 5 * MS, 2, True)})
    assert abs(credit(base, now) - 0.005) < 1e-9


def test_a_thread_number_used_again_is_a_new_thread():
    base = Probe(0.0, {7: (900 * MS, 900 * MS, 9, False)})
    now = Probe(1.0, {7: (100 * MS, 200 * MS, 1, False)})
    assert abs(credit(base, now) - 0.2) < 1e-9
