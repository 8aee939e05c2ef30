"""The cyclic garbage collector, tuned for a web process that serves live tables.

CPython's collector stops the whole process while it traces its objects, and a full
collection traces all of them: in a process holding a few hundred live tables (their
sockets, matches and views: some 200,000-300,000 objects) one took 200-400 ms on the 2-core
machine the site is measured on, every five to ten seconds, and every table waited. Two
changes make those pauses rare:

- ``gc.freeze()`` once the application is loaded, when the server starts
  (:mod:`cardsite.serve`): the objects of start-up (Django, Twisted, the games' modules:
  about 100,000) are set aside where no collection traces them again;
- a full collection waits for 100 collections of the middle generation instead of 10 (the
  third threshold), so it comes every few minutes under load, not every few seconds. The
  young generations keep CPython's thresholds: their collections stay small (a few ms, at
  most some tens of ms). A larger first threshold was tried and made the middle collections
  large (up to 150 ms).

The thresholds come from ``GC_THRESHOLDS`` (``700,10,10`` restores CPython's). Reference
counting still frees at once everything that is not part of a cycle, and nothing a table
leaves behind waits for a full pass: the live tables and built-in bots make no cycles of
their own (tests/live/test_memory.py), and the server unties the cycles Daphne leaves behind
each closed connection (cardsite/serve.py, tests/site/test_serve.py). With no garbage piling
up in the oldest generation, a full pass is rare (none in a minute at 500 tables).
"""

from __future__ import annotations

import gc


def tune(thresholds: tuple[int, ...], *, freeze: bool = True) -> None:
    """Apply ``thresholds`` and, with ``freeze``, set aside every object alive now."""
    if freeze:
        gc.collect()  # what is set aside should be alive, not garbage waiting for this
        gc.freeze()
    gc.set_threshold(*thresholds)
