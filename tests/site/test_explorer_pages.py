"""The strategy explorer's solves stored a page at a time: Blackjack++ with 3 hits solved on a
worker (on its public tree), kept as the game's pages, shown a situation at a time from the
pages that situation needs, and downloaded whole."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import solves
from games.blackjack_pp.strategy import page_of
from games.models import SolveJob, SolvePage
from games.solver.public import PublicSolver
from games.solver.views import DocumentPages
from games.solves import StoredPages
from tests.site.test_explorer import solve, work

pytestmark = pytest.mark.django_db

THREE_HITS = {
    "game": "blackjack-pp",
    "algorithm": "cfr+",
    "iterations": "4",
    "up0": "T",
    "up1": "T",
    "up2": "T",
    "max_hits": "3",
}


def test_blackjack_pages_hold_a_situation_and_every_one_a_token_further():
    assert page_of("07:") == page_of("1T:0h5") == page_of("0A:0s") == ""
    assert page_of("1T:0h5,1h2") == "0h5"
    assert page_of("0T:0h5,1h2,0h3") == "0h5,1h2"
    infosets = {"07:": {"h": 1.0}, "1T:0h5": {"h": 0.0}, "0T:0h5,1h2": {"h": 0.5}}
    pages = DocumentPages(infosets, page_of)
    assert pages.page("") == {"07:": {"h": 1.0}, "1T:0h5": {"h": 0.0}}
    assert pages.page("0h5") == {"0T:0h5,1h2": {"h": 0.5}}
    assert pages.page("nowhere") == {}
    assert pages.present(["0h5", "0h6", ""]) == {"0h5", ""}


def test_a_three_hit_solve_is_stored_in_pages_and_shown_a_situation_at_a_time(client, monkeypatch):
    # the worker's solver, and the strategy it computed before it was split into pages
    computed: list[tuple] = []
    real_result_document = solves.result_document

    def result_document(game, solver, *args, **kwargs):
        document = real_result_document(game, solver, *args, **kwargs)
        computed.append((solver, dict(document["infosets"])))
        return document

    monkeypatch.setattr(solves, "result_document", result_document)
    job, _ = solve(client, **THREE_HITS)
    row = job.job
    url = f"/solver/jobs/{row.digest}/"

    # the row keeps the document less its strategy; the strategy is in pages, compressed
    document = json.loads(row.result)
    assert document["infosets"] == {} and document["iterations"] == 4
    assert document["tree"]["infosets"] == 128_600  # for up cards 10, 10, 10
    pages = list(SolvePage.objects.filter(job=row))
    assert len(pages) > 1_000
    stored = sum(len(bytes(page.data)) for page in pages)
    assert row.result_bytes == len(row.result) + stored < 8 * 1024 * 1024

    # nothing lost: the pages hold the strategy the solver computed, every information set
    ((solver, expected),) = computed
    assert isinstance(solver, PublicSolver)  # the public tree: 3 hits in seconds
    assert solver.iterations == 4 and len(expected) == 128_600
    assert StoredPages(row).all() == expected
    for page in pages:  # each information set in the page its game names
        assert {page_of(key) for key in StoredPages(row).page(page.key)} == {page.key}

    # a deep situation is drawn from two pages and a look at which columns lead on; the
    # page never reads the whole strategy
    monkeypatch.setattr(StoredPages, "all", lambda self: pytest.fail("read every page"))
    at = "0h5,1h2,0h3"
    with CaptureQueriesContext(connection) as queries:
        deep = client.get(f"{url}?at={at}").content.decode()
    reads = [q["sql"] for q in queries.captured_queries if "solvepage" in q["sql"].lower()]
    assert len(reads) == 3, reads
    assert '<span aria-current="page">0h3</span>' in deep
    here = {**expected}
    shown = [key for key in here if key[3:] == at or key[3:].startswith(at + ",")]
    one_further = [key for key in shown if key[3:].count(",") <= at.count(",") + 1]
    assert one_further
    for key in one_further:
        p = here[key]["h"]
        assert re.search(rf"{re.escape(key)} — player {key[0]}, down {key[1]}, total \d+", deep)
        assert f"hit {p:.3f}" in deep
    # a situation the solve does not have falls back to the start, and says so
    assert (
        "That situation does not occur in this solve"
        in client.get(f"{url}?at=0h5,0h5,0h5,0h5").content.decode()
    )

    # asked again: served from the store, nothing queued
    again = client.post("/solver/", THREE_HITS)
    assert again["Location"] == url and SolveJob.objects.count() == 1
    assert work().counters.solved == 0

    # the download is the whole document, its strategy gathered from the pages
    monkeypatch.undo()
    download = client.get(f"{url}result.json")
    whole = json.loads(b"".join(download.streaming_content))
    assert whole["infosets"] == expected
    assert list(whole)[:5] == ["game", "algorithm", "iterations", "value", "exploitability"]
    assert whole["value"] == document["value"]


def test_a_solve_stored_before_pages_keeps_its_strategy_in_its_document(client):
    job, _ = solve(client, game="kuhn", algorithm="cfr+", iterations="50")
    row = job.job
    strategy = StoredPages(row).all()
    # a row as the site stored it before: the strategy inside the document, no pages
    SolvePage.objects.filter(job=row).delete()
    document = json.loads(row.result)
    document["infosets"] = strategy
    SolveJob.objects.filter(pk=row.pk).update(result=json.dumps(document))
    row.refresh_from_db()
    assert StoredPages(row).all() == strategy
    assert solves.document_of(row)["infosets"] == strategy
    page = client.get(f"/solver/jobs/{row.digest}/").content.decode()
    p = strategy["Kb"]["b"]
    assert f'title="Kb: b with probability {p:.4f}">{p:.2f}</td>' in page
    whole = json.loads(
        b"".join(client.get(f"/solver/jobs/{row.digest}/result.json").streaming_content)
    )
    assert whole["infosets"] == strategy
