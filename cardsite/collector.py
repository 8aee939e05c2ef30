"""The cyclic garbage collector, tuned for a web process that serves live tables.

CPython's collector stops the whole process while it traces its objects, and a full
collection traces all of them: in a process holding a few hundred live tables (their
sockets, matches and views: some 300,000 objects) one took 200-400 ms on the 2-core machine
the site is measured on, every five to ten seconds, and every table waited. Two changes
make those pauses rare and short:

- ``gc.freeze()`` once the application is loaded: the objects of start-up (Django, Twisted,
  the games' modules: over 100,000) are moved where no collection traces them again;
- a higher first threshold (CPython's is 700 allocations): young objects are examined less
  often, so views and messages that live for a second or two die before they are promoted,
  and full collections come about once a minute instead of every few seconds.

The thresholds come from ``GC_THRESHOLDS`` (``700,10,10`` restores CPython's); reference
counting still frees everything that is not part of a cycle at once, and the code of the
live tables avoids making cycles (see :meth:`games.live.host.TableHost.release`).
"""

from __future__ import annotations

import gc


def tune(thresholds: tuple[int, ...], *, freeze: bool = True) -> None:
    """Apply ``thresholds`` and, with ``freeze``, set aside every object alive now."""
    if freeze:
        gc.collect()  # what is set aside should be alive, not garbage waiting for this
        gc.freeze()
    gc.set_threshold(*thresholds)
