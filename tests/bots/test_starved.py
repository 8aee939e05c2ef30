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


def test_a_thread_asleep_at_the_first_read_and_woken_by_the_second_is_credited_nothing():
    """A bot asleep in its call (``time.sleep(1.6)``) had made its last switch of its own
    accord before the first read, and was runnable, just woken, at the second: it was
    credited the whole window as a wait for a CPU, and 4 of its 5 slow calls were within
    the per-call time (a test of the slow-call limit failed so under load)."""
    base = Probe(0.0, {7: (1 * MS, 0, 5, False)})
    now = Probe(1.6, {7: (2 * MS, 0, 5, True)})
    assert credit(base, now) == 0.0


def test_a_thread_that_slept_meanwhile_is_credited_only_the_counted_wait():
    base = Probe(0.0, {7: (0, 0, 1, True)})
    now = Probe(1.0, {7: (20 * MS, 5 * MS, 2, True)})
    assert abs(credit(base, now) - 0.005) < 1e-9


def test_a_thread_number_used_again_is_a_new_thread():
    base = Probe(0.0, {7: (900 * MS, 900 * MS, 9, False)})
    now = Probe(1.0, {7: (100 * MS, 200 * MS, 1, False)})
    assert abs(credit(base, now) - 0.2) < 1e-9
