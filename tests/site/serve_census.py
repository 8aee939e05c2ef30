"""The site's server (``python -m cardsite.serve``), run for tests/site/test_serve.py with
the garbage collector off, so that whatever reference counting does not free stays alive
and can be counted.

    python tests/site/serve_census.py TABLES [daphne's options] cardsite.asgi:application

It migrates the database the environment names, makes TABLES tables (a guest against
``builtin:strong`` at RPS Poker) and prints them on a line ``tables`` and JSON (the token and
session cookie of each), then serves. Each line read on standard input is answered on
standard output with a line ``census`` and JSON (Daphne's access log shares the stream): how
many objects of each connection and table type are alive, counted on the server's loop.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

COUNTED = ("WebSocketProtocol", "WebRequest", "HTTPChannel", "TableConsumer", "TableHost",
           "Table", "TableSeat")  # fmt: skip


def make_tables(count: int) -> list[dict[str, str]]:
    from django.core.management import call_command

    from games.live import tables

    call_command("migrate", verbosity=0)
    made = []
    for _ in range(count):
        table, key = tables.guest_table("rps-poker", ["me", "builtin:strong"])
        made.append({"token": table.token, "cookie": f"sessionid={key}"})
    return made


def census() -> dict[str, int]:
    alive = Counter(type(o).__name__ for o in gc.get_objects())
    return {name: alive[name] for name in COUNTED}


def answer_census() -> None:
    from twisted.internet import reactor

    for _line in sys.stdin:
        done = threading.Event()
        result: dict[str, int] = {}

        def count(result=result, done=done) -> None:
            result.update(census())
            done.set()

        reactor.callFromThread(count)
        done.wait()
        print("census", json.dumps(result), flush=True)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    import django

    django.setup()
    print("tables", json.dumps(make_tables(int(sys.argv[1]))), flush=True)
    gc.disable()  # the server tunes the collector (cardsite/collector.py) but never enables it
    threading.Thread(target=answer_census, daemon=True).start()
    from cardsite.serve import main as serve

    serve(sys.argv[2:])


if __name__ == "__main__":
    main()
