"""What the strategy explorer costs with Blackjack++'s 3 hits: the solve on a worker, what it
stores, and its page, read a situation at a time, against the same page made from the whole
strategy (how the explorer read a result before its pages).

    .venv/bin/python bench/bench_explorer_pages.py [--runs 7] [--up 6,6,2] [--iterations 100]

It makes a site of its own in a temporary folder (SQLite), queues the solve as the form
does and runs it as a worker does (``games.solves.run`` then ``store``), timing each and
reporting the bytes stored and the pages. Then, over ``--runs`` runs each, side by side in
one process, for situations of depth 0, 1 and 3:

- **paged**: the solve's page as the site serves it (``GET /solver/jobs/<id>/?at=...``): the
  heat map reads the two pages of its situation and which next situations have pages;
- **whole strategy**: the same view made from the whole strategy, parsed from the full JSON
  document as the row used to keep it (the reference).

It prints min / median / max in milliseconds and the median of whole over paged.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchsite import setup_django  # noqa: E402

SITUATIONS = ("", "0h5", "0h5,1h2,0h3")


def timed(action, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(1000 * (time.perf_counter() - started))
    return times


def row(name: str, times: list[float]) -> str:
    return f"{name:<46} {min(times):9.1f} {statistics.median(times):9.1f} {max(times):9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--up", default="6,6,2", help="up cards of player 0, player 1, dealer")
    parser.add_argument("--iterations", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-explorer-pages-") as var:
        setup_django(Path(var))
        measure(args)


def measure(args: argparse.Namespace) -> None:
    import json

    from django.test import Client

    from bots.competition.leases import Caps
    from games import solves
    from games.explorer import JobView
    from games.solver.views import DocumentPages
    from games.solver_games import solvers

    settings = solves.SolveSettings(
        "blackjack-pp", "cfr+", args.iterations, (("up", args.up), ("max_hits", 3))
    )
    job = solves.submit(settings)
    held = solves.claim("bench", 3600, Caps())
    assert held is not None and held.job.pk == job.pk
    started = time.perf_counter()
    result = solves.run(held.job, solves.Progress(lambda fields: True, args.iterations))
    solve_s = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    assert solves.store(held, result)
    store_s = time.perf_counter() - started
    row_ = solves.find(job.digest, document=True)
    document = result.document
    print(f"Blackjack++ up {args.up}, max hits 3, CFR+ {args.iterations} iterations")
    print(
        f"  solve on the worker: {solve_s:.1f} s (peak {peak_mb:.0f} MB), "
        f"exploitability {document['exploitability']:.2g}"
    )
    print(
        f"  stored in {store_s:.2f} s: {row_.result_bytes / 1e6:.2f} MB in "
        f"{len(result.pages):,} pages, {document['tree']['infosets']:,} information sets"
    )

    # the reference: the full JSON document, as the row kept it, parsed for each view
    whole_text = "".join(solves.StoredPages(row_).document_chunks())
    print(f"  the whole document: {len(whole_text) / 1e6:.1f} MB of JSON")
    strategy = solvers()["blackjack-pp"].strategy
    page_of = solvers()["blackjack-pp"].page_of
    view = JobView(row_)
    base = f"/solver/jobs/{job.digest}/"
    client = Client()

    print(f"\n{'ms, ' + str(args.runs) + ' runs':<46} {'min':>9} {'median':>9} {'max':>9}")
    for at in SITUATIONS:
        url = base + (f"?at={at}" if at else "")

        def paged(url: str = url) -> None:
            response = client.get(url)
            assert response.status_code == 200 and b"blackjack-caption" in response.content

        def whole(at: str = at) -> None:
            infosets = json.loads(whole_text)["infosets"]
            tables = strategy(DocumentPages(infosets, page_of), view.document["settings"], at, base)
            assert tables["tables"]

        paged()  # the first view of the page is not counted (imports, templates)
        paged_ms, whole_ms = [], []
        for _ in range(args.runs):  # side by side, run after run
            paged_ms += timed(paged, 1)
            whole_ms += timed(whole, 1)
        name = f"at {at or 'the start'}"
        print(row(f"{name}: paged (the whole page)", paged_ms))
        print(row(f"{name}: whole strategy (view alone)", whole_ms))
        ratio = statistics.median(whole_ms) / statistics.median(paged_ms)
        print(f"{'':<46} whole / paged, medians: {ratio:.0f}x")


if __name__ == "__main__":
    main()
