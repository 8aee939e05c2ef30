"""The strategy explorer (/solver/): the form and its web limits, solves queued in the
database and run by the tournament worker (served from the store when asked again, capped in
number, taken over when a worker dies), the progress JSON the page polls (read from the
database alone), and the result page: root payoffs, the convergence chart and the heat maps.

Solves run through the worker's own code path: ``Worker.run(batch=True)`` in-process, as
``manage.py worker --batch`` does."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import OperationalError
from django.db.models import F
from django.utils import timezone

from bots.competition import leases
from bots.competition.leases import Caps
from bots.worker import Options, Worker
from games import explorer, solves
from games.explorer import ExplorerForm, JobView, SolveSettings
from games.models import SolveJob
from games.solver import views
from tests.site.test_match_review import busy_worker

ROOT = Path(__file__).resolve().parents[2]

KUHN_VALUE = -1 / 18

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("keep_the_test_connection")]


def work(name: str = "w1") -> Worker:
    """The tournament worker, in-process, until a step finds nothing (``worker --batch``).
    Its lease is long: its heartbeat's own connection does not see the rows of the test's
    transaction, so a beat (after a third of the lease: a 3-hit solve on a loaded machine
    takes over 20 s) would find the solve not ours and stop it."""
    worker = Worker(Options(validate=False, lease_s=600.0), name=name)
    worker.run(batch=True)
    return worker


def job_of(url: str) -> SolveJob:
    return SolveJob.objects.get(digest=url.rstrip("/").rsplit("/", 1)[1])


def solve(client, **fields):
    """POST the form, let the worker run the solve, and give back (job, result page HTML)."""
    response = client.post("/solver/", fields)
    assert response.status_code == 303, response.content.decode()[:2000]
    url = response["Location"]
    assert work().counters.solved == 1
    row = job_of(url)
    assert row.status == SolveJob.DONE, row.error
    return JobView(row), client.get(url).content.decode()


def form_errors(**fields) -> dict[str, list[str]]:
    form = ExplorerForm(fields)
    form.is_valid()
    return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


def poll(client, digest: str) -> dict:
    response = client.get(f"/solver/jobs/{digest}.json")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    return response.json()


# ---------------------------------------------------------------------------- the form
def test_it_shows_the_form_with_the_web_limits_and_blackjack_options(client):
    page = client.get("/solver/").content.decode()
    assert "<h1>Strategy explorer</h1>" in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert '<select name="game"' in page and 'value="blackjack-pp"' in page
    for limit in ("Kuhn poker: up to 20000", "Leduc hold&#x27;em: up to 10000", "up to 2000"):
        assert limit in page
    assert "Blackjack++: max hits 3: at most 300 iterations" in page
    assert "<legend>Up cards</legend>" in page
    assert '<label for="id_up2">Dealer</label>' in page
    assert 'data-limits="{&quot;kuhn&quot;: 20000' in page
    assert "background workers, at most 2 at a time\n  and 8 waiting or running" in page
    assert "Nothing solved yet." in page


def test_it_keeps_iterations_within_each_games_web_limit():
    assert form_errors(game="kuhn", algorithm="cfr+", iterations="20000") == {}
    assert form_errors(game="leduc", algorithm="cfr", iterations="10000") == {}
    assert form_errors(game="leduc", algorithm="cfr+", iterations="10001") == {
        "iterations": [
            "Leduc hold'em: 1 to 10,000 iterations on the web (asked for 10,001; "
            "manage.py solve has no limit)."
        ]
    }
    bj = {"up0": "6", "up1": "6", "up2": "2", "max_hits": "1"}
    assert form_errors(game="blackjack-pp", algorithm="cfr+", iterations="2001", **bj) == {
        "iterations": [
            "Blackjack++: 1 to 2,000 iterations on the web (asked for 2,001; "
            "manage.py solve has no limit)."
        ]
    }
    assert "iterations" in form_errors(game="kuhn", algorithm="cfr+", iterations="0")
    assert form_errors(game="kuhn", algorithm="cfr+", iterations="50000") == {
        "iterations": [
            "Kuhn poker: 1 to 20,000 iterations on the web (asked for 50,000; "
            "manage.py solve has no limit)."
        ]
    }
    assert "iterations" in form_errors(game="kuhn", algorithm="cfr+", iterations="many")
    assert "algorithm" in form_errors(game="kuhn", algorithm="mccfr", iterations="10")
    assert "game" in form_errors(game="chess", algorithm="cfr", iterations="10")


def test_it_refuses_bad_up_cards_and_max_hits_outside_one_to_three():
    base = {"game": "blackjack-pp", "algorithm": "cfr+", "iterations": "100"}
    good = {"up0": "A", "up1": "T", "up2": "2", "max_hits": "2"}
    assert form_errors(**base, **good) == {}
    assert "up0" in form_errors(**base, **{**good, "up0": "11"})
    assert "up1" in form_errors(**base, **{**good, "up1": "Z"})
    assert form_errors(**base, **{**good, "up2": ""}) == {"up2": ["Choose an up card."]}
    assert form_errors(**base, **{**good, "max_hits": "3"}) == {}  # 100 iterations: allowed
    too_many = form_errors(**{**base, "iterations": "1000"}, **{**good, "max_hits": "3"})
    assert too_many == {
        "iterations": [
            "Blackjack++ with max hits 3: 1 to 300 iterations on the web (asked for 1,000; "
            "manage.py solve has no limit)."
        ]
    }
    assert list(form_errors(**base, **{**good, "max_hits": "4"})) == ["max_hits"]
    assert "max_hits" in form_errors(**base, **{**good, "max_hits": "0"})
    # other games ignore the Blackjack++ options
    form = ExplorerForm({"game": "kuhn", "algorithm": "cfr", "iterations": "10", "up0": "Z"})
    assert not form.is_valid()
    form = ExplorerForm({"game": "kuhn", "algorithm": "cfr", "iterations": "10"})
    assert form.is_valid() and form.settings() == SolveSettings("kuhn", "cfr", 10)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"iterations": "20001"}, "iterations", "Kuhn poker: 1 to 20,000 iterations"),
        ({"game": "chess"}, "game", "Select a valid choice. chess is not one"),
        ({"algorithm": "mccfr"}, "algorithm", "Select a valid choice. mccfr is not one"),
        ({"iterations": "-5"}, "iterations", "greater than or equal to 1"),
        (
            {"game": "blackjack-pp", "up0": "6", "up1": "6", "up2": "2", "max_hits": "4"},
            "max_hits",
            "Select a valid choice. 4 is not one",
        ),
        (
            {
                "game": "blackjack-pp",
                "up0": "6",
                "up1": "6",
                "up2": "2",
                "max_hits": "3",
                "iterations": "301",
            },
            "iterations",
            "Blackjack++ with max hits 3: 1 to 300 iterations on the web (asked for 301",
        ),
        (
            {"game": "blackjack-pp", "up0": "6", "up1": "6", "up2": "<b>", "max_hits": "1"},
            "up2",
            "Select a valid choice. <b> is not one",
        ),
    ],
)
def test_a_forged_request_is_refused_with_a_clear_message_and_queues_nothing(
    client, fields, field, message
):
    forged = {"game": "kuhn", "algorithm": "cfr+", "iterations": "100", **fields}
    response = client.post("/solver/", forged)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert message in page
    assert f'id="id_{field}"' in page and 'aria-invalid="true"' in page
    assert SolveJob.objects.count() == 0


def test_the_worker_refuses_a_row_beyond_the_web_limits_whoever_wrote_it(client):
    """A row written by other means than the form (a forged insert) is checked again by the
    worker before it builds anything."""
    forged = SolveSettings("kuhn", "cfr+", 10_000_000)
    row = SolveJob.objects.create(
        key=forged.key, digest=forged.job_id, game="kuhn", algorithm="cfr+", iterations=10**7
    )
    other = SolveJob.objects.create(
        key="kuhn|cfr+|10|3",
        digest="0123456789abcdef",
        game="kuhn",
        algorithm="cfr+",
        iterations=10,
        options=[["max_hits", 3]],
    )
    work()
    row.refresh_from_db()
    other.refresh_from_db()
    assert row.status == other.status == SolveJob.FAILED
    assert row.error == (
        "The solve was refused: Kuhn poker: 1 to 20,000 iterations on the web "
        "(asked for 10,000,000; manage.py solve has no limit)."
    )
    assert other.error == "The solve was refused: Kuhn poker takes the options none."
    page = client.get("/solver/jobs/0123456789abcdef.json").json()
    assert page["state"] == "failed" and page["settings"] == "Kuhn poker, CFR+, 10 iterations"


def test_it_shows_form_errors_on_the_page_and_starts_nothing(client):
    response = client.post(
        "/solver/",
        {
            "game": "blackjack-pp",
            "algorithm": "cfr+",
            "iterations": "500",
            "up0": "6",
            "up1": "6",
            "up2": "2",
            "max_hits": "3",
        },
    )
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "Blackjack++ with max hits 3: 1 to 300 iterations on the web" in page
    assert 'aria-invalid="true"' in page
    assert SolveJob.objects.count() == 0


def test_it_needs_the_csrf_token():
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "10"})
    assert response.status_code == 403
    assert SolveJob.objects.count() == 0


# ------------------------------------------------------------------------- solving
def test_the_worker_solves_kuhn_and_the_page_shows_the_value(client):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="1000")
    value = job.document["value"]
    assert abs(value[0] - KUHN_VALUE) < 1e-2 and value[1] == -value[0]
    assert job.document["exploitability"] < 1e-3
    assert "<h1>Kuhn poker: CFR+, 1,000 iterations</h1>" in page
    assert f'id="value-0">{value[0]:+.4f}</strong>' in page
    assert '<strong class="num" id="value-0">-0.0556</strong>' in page
    assert '<strong class="num" id="value-1">+0.0556</strong>' in page
    assert "58 histories (24 decision, 4 chance, 30 terminal), 12 information sets" in page
    assert f'id="exploitability">{job.document["exploitability"]:.3g}</span>' in page
    assert 'http-equiv="refresh"' not in page  # done: nothing more to wait for
    row = job.job
    assert (row.worker, row.attempts, row.errors) == ("w1", 1, 0)
    pages = [bytes(page.data) for page in row.pages.all()]
    assert row.result_bytes == len(row.result) + sum(map(len, pages)) and row.lease_until is None
    assert len(pages) == 1 and json.loads(row.result)["infosets"] == {}  # the strategy's page
    # kept as the solve command writes it, keys in order (PostgreSQL's jsonb would sort them)
    assert list(job.document)[:5] == ["game", "algorithm", "iterations", "value", "exploitability"]


@pytest.mark.parametrize(
    ("fields", "unit"),
    [
        ({"game": "kuhn"}, "chips per hand"),
        ({"game": "blackjack-pp", "up0": "6", "up1": "6", "up2": "2", "max_hits": "1"},
         "points per deal"),
    ],
)  # fmt: skip
def test_the_result_says_its_payoffs_and_exploitability_in_the_games_unit(client, fields, unit):
    """The page said "Exploitability 8.74e-05" and "Root payoffs player 0 -0.0556" with no
    unit, beside the review's "0.01 chips, or the solve's exploitability if larger"."""
    _, page = solve(client, algorithm="cfr+", iterations="20", **fields)
    assert f"<dt>Root payoffs ({unit})</dt>" in page
    assert f"<dt>Exploitability ({unit}, averaged over the two seats)</dt>" in page
    assert f"Payoffs are what each player wins on average, in {unit}," in page
    assert SolveSettings(fields["game"]).unit == unit


def test_it_reports_progress_from_queued_to_done(client):
    response = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr", "iterations": "300"})
    url = response["Location"]
    digest = job_of(url).digest
    data = poll(client, digest)
    assert data["state"] == "queued" and data["phase"] == "waiting"
    assert (data["iteration"], data["total"], data["percent"]) == (0, 300, 0.0)
    queue = data["queue"]
    assert (queue["position"], queue["running"], queue["stalled"]) == (1, 0, False)
    assert 0 <= queue["waited_seconds"] < 30
    assert data["message"] == "Waiting for a worker: this solve is next."
    assert data["notice"] == "" and data["url"] == url and "download_url" not in data

    page = client.get(url).content.decode()
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert '<h2 id="progress-title">Waiting for a worker&hellip;</h2>' in page
    assert '<progress id="solve-bar" max="100" value="0.0"' in page
    assert (
        '<p id="solve-status" aria-live="polite">Waiting for a worker: this solve is next.' in page
    )
    assert f'data-progress-url="/solver/jobs/{digest}.json"' in page
    assert "js/explorer.js" in page

    work()
    done = poll(client, digest)
    assert done["state"] == "done" and done["phase"] == "done"
    assert (done["iteration"], done["total"], done["percent"]) == (300, 300, 100.0)
    assert done["download_url"] == f"/solver/jobs/{digest}/result.json"
    assert "Root payoffs" in client.get(url).content.decode()


def test_the_worker_writes_progress_now_and_then_and_the_poll_reads_it(client, monkeypatch):
    """Every progress write lands in the row; a poll made right after it (from the database
    alone) shows it. The writes are bounded: one per phase, at most PROGRESS_WRITES while
    training."""
    monkeypatch.setattr(solves, "PROGRESS_EVERY_S", 0.0)
    url = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "1000"})[
        "Location"
    ]
    digest = job_of(url).digest
    writes, seen = [], []
    real = solves.save_progress

    def save_and_poll(held, fields):
        ours = real(held, fields)
        writes.append(fields)
        seen.append(poll(client, digest))
        return ours

    monkeypatch.setattr(solves, "save_progress", save_and_poll)
    work()
    phases = [w["phase"] for w in writes if "iteration" not in w]
    assert phases == ["building", "training", "measuring"]
    training = [w for w in writes if "iteration" in w]
    assert len(training) == solves.PROGRESS_WRITES == 50
    assert [w["iteration"] for w in training] == list(range(20, 1001, 20))
    states = {(d["state"], d["phase"]) for d in seen}
    assert states == {("running", "building"), ("running", "training"), ("running", "measuring")}
    during = [d for d in seen if d["phase"] == "training" and d["iteration"]]
    assert [d["iteration"] for d in during] == list(range(20, 1001, 20))
    assert during[0]["percent"] == 2.0 and during[0]["message"].startswith("Iteration 20 of 1,000.")
    assert during[-1]["exploitability_so_far"][0] == 500  # measured at 1, 2, 5, ..., 500
    assert " Exploitability " in during[-1]["message"]
    assert poll(client, digest)["state"] == "done"


def test_a_poll_is_answered_from_the_database_by_any_process(client):
    """A solve another process queued and a worker on another machine runs: this process
    never saw it, and answers from its row (nothing is kept in a web process's memory)."""
    assert not hasattr(explorer, "REGISTRY")
    settings = SolveSettings("leduc", "cfr+", 400)
    now = timezone.now()
    SolveJob.objects.create(
        key=settings.key,
        digest=settings.job_id,
        game="leduc",
        algorithm="cfr+",
        iterations=400,
        status=SolveJob.RUNNING,
        worker="elsewhere:1",
        attempts=1,
        lease_until=now + timedelta(seconds=60),
        started=now - timedelta(seconds=2),
        phase="training",
        iteration=100,
        train_seconds=0.5,
        measured=[100, 0.0123],
    )
    data = poll(client, settings.job_id)
    assert (data["state"], data["phase"], data["iteration"], data["percent"]) == (
        "running",
        "training",
        100,
        25.0,
    )
    assert data["eta_seconds"] == 1.5
    assert data["message"] == (
        "Iteration 100 of 400. About 2 s left. Exploitability 0.0123 at iteration 100."
    )
    assert data["queue"] is None and data["elapsed_seconds"] >= 2.0
    page = client.get(f"/solver/jobs/{settings.job_id}/").content.decode()
    assert "<h1>Leduc hold&#x27;em: CFR+, 400 iterations</h1>" in page
    assert '<progress id="solve-bar" max="100" value="25.0"' in page
    SolveJob.objects.filter(digest=settings.job_id).update(iteration=350, train_seconds=1.75)
    assert poll(client, settings.job_id)["message"] == (  # (it said "About under a second")
        "Iteration 350 of 400. Under a second left. Exploitability 0.0123 at iteration 100."
    )


def test_a_solve_asked_again_is_served_from_the_store_without_a_new_job(client):
    fields = {"game": "kuhn", "algorithm": "cfr+", "iterations": "200"}
    first, _ = solve(client, **fields)
    SolveJob.objects.update(used=timezone.now() - timedelta(hours=1))
    again = client.post("/solver/", fields)
    assert again.status_code == 303 and again["Location"] == f"/solver/jobs/{first.id}/"
    assert SolveJob.objects.count() == 1
    row = SolveJob.objects.get()
    assert row.used > timezone.now() - timedelta(minutes=1)  # most recently used again
    assert (row.status, row.attempts) == (SolveJob.DONE, 1)
    assert Worker(Options(validate=False), name="w2").step() is False  # nothing to solve
    assert poll(client, first.id)["state"] == "done"


def test_two_people_asking_the_same_solve_at_once_share_one_job(client):
    fields = {"game": "kuhn", "algorithm": "cfr", "iterations": "50"}
    first = client.post("/solver/", fields)["Location"]
    second = client.post("/solver/", fields)["Location"]
    assert first == second and SolveJob.objects.count() == 1
    assert work().counters.solved == 1
    other = solves.submit(SolveSettings("kuhn", "cfr+", 50))
    assert other.digest != job_of(first).digest


def test_it_forgets_the_least_recently_used_results_first(client, settings):
    settings.SOLVE_KEEP = 2
    made = []
    for n in (10, 20):
        made.append(solves.submit(SolveSettings("kuhn", "cfr+", n)))
        work()
    SolveJob.objects.filter(pk=made[1].pk).update(used=timezone.now() - timedelta(hours=1))
    SolveJob.objects.filter(pk=made[0].pk).update(used=timezone.now() - timedelta(hours=2))
    client.get(f"/solver/jobs/{made[0].digest}/")  # now the most recently used
    third = solves.submit(SolveSettings("kuhn", "cfr+", 30))
    work()
    assert set(SolveJob.objects.values_list("digest", flat=True)) == {made[0].digest, third.digest}
    gone = client.get(f"/solver/jobs/{made[1].digest}/")
    assert gone.status_code == 404
    assert "The site keeps the 2 most recently used solves" in gone.content.decode()


def test_it_refuses_politely_when_too_many_solves_wait(client, settings):
    settings.SOLVE_MAX_OPEN = 1
    first = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "100"})
    assert first.status_code == 303
    busy = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "100"})
    assert busy.status_code == 429 and busy["Retry-After"] == "30"
    page = html.unescape(busy.content.decode())
    # what is true: how full, that a place frees when a solve ends, and that none runs (no
    # "try again in a minute": the queue may sit behind a long solve)
    assert (
        '<div class="form-alert" role="alert"><p>The solver is busy: 1 solve is waiting or '
        "running, as many as the site takes at once; a place frees when one of them ends (a "
        "solve someone already ran answers at once). None is running now: no worker is at "
        "work on the site.</p></div>"
    ) in page
    assert "minute" not in page.split('role="alert"')[1].split("</div>")[0]
    assert SolveJob.objects.count() == 1
    # a worker runs it: the refusal says how far it has to go, by its pace so far
    SolveJob.objects.update(
        status=SolveJob.RUNNING,
        lease_until=timezone.now() + timedelta(minutes=5),
        phase="training",
        iteration=25,
        train_seconds=40.0,
    )
    busy = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "100"})
    assert busy.status_code == 429 and busy["Retry-After"] == "120"
    assert (
        "a place frees when one of them ends (a solve someone already ran answers at once). "
        "1 is running now with about 2 minutes left.</p>"
    ) in html.unescape(busy.content.decode())
    SolveJob.objects.update(status=SolveJob.QUEUED, lease_until=None, phase="waiting")
    # the waiting solve's own settings still answer
    same = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "100"})
    assert same.status_code == 303 and same["Location"] == first["Location"]
    work()
    later = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "100"})
    assert later.status_code == 303


def test_no_more_solves_run_at_once_than_allowed(settings):
    settings.SOLVE_MAX_RUNNING = 1
    for n in (10, 20):
        solves.submit(SolveSettings("kuhn", "cfr+", n))
    caps = Caps()
    first = solves.claim("w1", 60, caps)
    assert first is not None and first.job.iterations == 10
    assert solves.claim("w2", 60, caps) is None  # one runs already
    assert solves.store(first, solves.run(first.job, solves.Progress(lambda f: True, 10)))
    second = solves.claim("w2", 60, caps)
    assert second is not None and second.job.iterations == 20


def test_a_solve_whose_worker_died_is_taken_over_when_its_lease_runs_out(client):
    settings = SolveSettings("kuhn", "cfr+", 100)
    solves.submit(settings)
    dead = solves.claim("w1", 60, Caps())
    assert solves.save_progress(dead, {"phase": "training", "iteration": 40})
    assert poll(client, settings.job_id)["iteration"] == 40
    # w1 is killed: its lease is not renewed and runs out
    SolveJob.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    data = poll(client, settings.job_id)
    assert data["state"] == "queued"
    assert data["message"] == (
        "The worker solving this stopped; waiting for another worker to take it over."
    )
    assert work("w2").counters.solved == 1
    row = SolveJob.objects.get()
    assert (row.status, row.worker, row.attempts, row.errors) == (SolveJob.DONE, "w2", 2, 0)
    # w1 comes back: nothing it writes is kept
    assert leases.heartbeat(dead, 60) is False
    assert solves.save_progress(dead, {"iteration": 1}) is False
    assert solves.store(dead, solves.Result({"iterations": 1, "train_seconds": 0}, "{}")) is False
    assert solves.fail(dead, "late") is False
    row.refresh_from_db()
    assert row.status == SolveJob.DONE and json.loads(row.result)["iterations"] == 100


def test_a_solve_whose_worker_stopped_answering_says_so_before_its_lease_runs_out(client):
    """A worker killed while it solves: its row stays as it last wrote it ("Under a second
    left"), but once its worker has missed two heartbeats (every third of its 60 s lease) the
    page drops the estimate and says when another worker can take the solve over; the solve
    taken over says it started again."""
    settings = SolveSettings("leduc", "cfr+", 10_000)
    solves.submit(settings)
    held = solves.claim("w1", 60, Caps())
    assert solves.save_progress(
        held,
        {"phase": "training", "iteration": 8_290, "train_seconds": 8.29,
         "measured": [5_000, 1.43e-05]},
    )  # fmt: skip
    live = "Iteration 8,290 of 10,000. About 2 s left. Exploitability 1.43e-05 at iteration 5,000."
    assert poll(client, settings.job_id)["message"] == live
    # one heartbeat missed (20 s): nothing to say yet
    beat = timezone.now() - timedelta(seconds=35)
    SolveJob.objects.update(heartbeat=beat, lease_until=beat + timedelta(seconds=60))
    assert poll(client, settings.job_id)["message"] == live
    # w1 was killed 45 s ago: two heartbeats missed, 15 s of its lease left
    beat = timezone.now() - timedelta(seconds=45)
    SolveJob.objects.update(heartbeat=beat, lease_until=beat + timedelta(seconds=60))
    data = poll(client, settings.job_id)
    assert (data["state"], data["eta_seconds"]) == ("running", None)
    assert data["message"] == (
        "The worker solving this has not answered for 45 s: it seems to have stopped. Another "
        "worker can take the solve over in 15 s, and starts it again from the beginning."
    )
    assert (
        html.escape(data["message"])
        in client.get(f"/solver/jobs/{settings.job_id}/").content.decode()
    )
    # its lease ran out and w2 took it: it starts again from the beginning, and says so
    SolveJob.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    again = solves.claim("w2", 60, Caps())
    assert again.attempt == 2
    assert solves.save_progress(
        again, {"phase": "training", "iteration": 6_028, "train_seconds": 4.0}
    )
    assert poll(client, settings.job_id)["message"] == (
        "Started again: the first worker stopped. Iteration 6,028 of 10,000. About 3 s left."
    )


def earlier(seconds: float) -> None:
    """The solve's heartbeat and lease as if written ``seconds`` earlier."""
    back = timedelta(seconds=seconds)
    SolveJob.objects.update(heartbeat=F("heartbeat") - back, lease_until=F("lease_until") - back)


def test_a_silent_worker_is_counted_from_its_last_progress_write(client):
    """A worker claimed the solve, wrote its progress for 10 s (its first heartbeat would
    have come at 20 s) and was killed 45 s ago: it has not answered for 45 s, not 55 s (it
    once counted from the claim). A progress write is a sign of life, as a heartbeat is."""
    settings = SolveSettings("leduc", "cfr+", 10_000)
    solves.submit(settings)
    held = solves.claim("w1", 60, Caps())
    earlier(10)
    assert solves.save_progress(held, {"phase": "training", "iteration": 7_000})
    earlier(45)
    assert poll(client, settings.job_id)["message"] == (
        "The worker solving this has not answered for 45 s: it seems to have stopped. Another "
        "worker can take the solve over in 15 s, and starts it again from the beginning."
    )


def test_a_solve_that_stops_every_worker_fails_at_its_cap_of_claims(client, settings):
    settings.SOLVE_MAX_CLAIMS = 2
    solves.submit(SolveSettings("kuhn", "cfr+", 100))
    for name in ("w1", "w2"):
        assert solves.claim(name, 60, solves.Bounds.from_settings().caps(3)) is not None
        SolveJob.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    assert work("w3").counters.solved == 0
    row = SolveJob.objects.get()
    assert row.status == SolveJob.FAILED
    # (it said "Given up: taken 2 times without a result: ... (the last one: w2).")
    assert row.error == (
        "Given up: the site's workers stopped 2 times while solving it (the site's trouble, "
        "not your settings'); ask for it again later."
    )


def test_a_worker_that_loses_its_lease_stops_solving(monkeypatch):
    monkeypatch.setattr(solves, "PROGRESS_EVERY_S", 0.0)
    solves.submit(SolveSettings("kuhn", "cfr+", 1000))
    held = solves.claim("w1", 60, Caps())
    SolveJob.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    taken = solves.claim("w2", 60, Caps())
    assert taken.attempt == 2
    progress = solves.Progress(lambda f: solves.save_progress(held, f), 1000)
    with pytest.raises(solves.LeaseLost):
        solves.run(held.job, progress)
    assert progress.count == 1  # its first write found the solve no longer its own


def test_progress_writes_wait_out_a_database_outage(client, monkeypatch):
    monkeypatch.setattr(solves, "PROGRESS_EVERY_S", 0.0)
    real = solves.save_progress
    calls = {"n": 0}

    def away_at_first(held, fields):
        calls["n"] += 1
        if calls["n"] <= 5:
            raise OperationalError("server closed the connection unexpectedly")
        return real(held, fields)

    monkeypatch.setattr(solves, "save_progress", away_at_first)
    solves.submit(SolveSettings("kuhn", "cfr+", 500))
    worker = work()
    assert worker.counters.solved == 1 and calls["n"] > 5
    assert SolveJob.objects.get().status == SolveJob.DONE


def test_it_shows_a_failed_solve_and_tries_again_when_asked(client, monkeypatch):
    real = solves.solver_for
    calls = []

    def flaky(game, algorithm):
        calls.append(game)
        if len(calls) == 1:
            raise RuntimeError("the tree is too deep")
        return real(game, algorithm)

    monkeypatch.setattr(solves, "solver_for", flaky)
    fields = {"game": "kuhn", "algorithm": "cfr+", "iterations": "20"}
    url = client.post("/solver/", fields)["Location"]
    work()
    failed = job_of(url)
    assert failed.status == SolveJob.FAILED and failed.errors == 0
    page = client.get(url).content.decode()
    assert "The solve failed: the tree is too deep" in page
    data = client.get(url[:-1] + ".json").json()
    assert data["state"] == "failed" and data["error"] == "The solve failed: the tree is too deep"
    assert client.post("/solver/", fields)["Location"] == url
    retry = job_of(url)
    assert retry.pk != failed.pk and retry.status == SolveJob.QUEUED
    work()
    assert job_of(url).status == SolveJob.DONE


def test_a_result_over_the_size_limit_is_not_kept(client, settings):
    settings.SOLVE_MAX_RESULT_BYTES = 1000
    url = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "5"})[
        "Location"
    ]
    work()
    row = job_of(url)
    assert row.status == SolveJob.FAILED and row.result == ""
    assert re.fullmatch(
        r"The result is [0-9.]+ MB stored, over the 0\.0 MB the site keeps: solve it with "
        r"manage\.py solve\.",
        row.error,
    )


def test_a_solve_no_worker_takes_says_so_after_a_while(client, settings):
    settings.SOLVE_STALLED_S = 30
    solves.submit(SolveSettings("kuhn", "cfr+", 100))
    waiting = solves.submit(SolveSettings("kuhn", "cfr+", 200))
    data = poll(client, waiting.digest)
    assert data["message"] == "Waiting for a worker: 1 solve before this one."
    assert data["notice"] == ""
    SolveJob.objects.update(created=timezone.now() - timedelta(seconds=45))
    data = poll(client, waiting.digest)
    assert data["queue"]["stalled"] is True and data["queue"]["position"] == 2
    assert data["notice"] == (
        "No worker has taken this solve in 45 s: no worker is at work on the site now. It "
        "starts when one is; you can leave and come back to this address."
    )
    page = client.get(f"/solver/jobs/{waiting.digest}/").content.decode()
    assert '<div class="form-alert" role="status" id="solve-notice"><p>No worker' in page
    # a worker busy with a long match is at work: the solve waits for it, and no command is
    # named to a visitor (it said "(manage.py worker): none seems to be running")
    busy_worker()
    data = poll(client, waiting.digest)
    assert data["notice"] == (
        "No worker has taken this solve in 45 s: the site's workers are busy with other work. "
        "It starts as soon as one is free; you can leave and come back to this address."
    )


def test_it_says_when_a_solve_is_not_in_the_store(client):
    page = client.get("/solver/jobs/0123456789abcdef/")
    assert page.status_code == 404 and "This solve is not here" in page.content.decode()
    missing = client.get("/solver/jobs/0123456789abcdef.json")
    assert missing.status_code == 404 and "never asked for" in missing.json()["error"]
    assert client.get("/solver/jobs/0123456789abcdef/result.json").status_code == 404


# ------------------------------------------------------------------------- results
def test_it_draws_the_convergence_chart_as_accessible_svg(client):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="1000")
    assert '<svg viewBox="0 0 640 300" role="img" aria-labelledby="chart-title chart-desc"' in page
    assert '<title id="chart-title">Exploitability against iterations (log scales)</title>' in page
    assert "falling to" in page
    points = re.search(r'<polyline class="line" points="([^"]+)"', page).group(1).split()
    convergence = job.document["convergence"]
    assert len(points) == len(convergence) == 10  # 1, 2, 5, ..., 500, 1000
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[-1] > ys[0]  # exploitability falls, so the line goes down the picture
    xs = [float(p.split(",")[0]) for p in points]
    # a log scale (each decade as wide as the next, the coordinates rounded to tenths)
    assert xs == sorted(xs) and xs[3] - xs[0] == pytest.approx(xs[6] - xs[3], abs=0.11)
    assert "<summary>The chart's data</summary>" in page
    last_i, last_e = convergence[-1]
    assert f'<td class="num">{last_i}</td><td class="num">{last_e:.3g}</td>' in page


def test_it_shows_kuhns_strategy_as_a_heat_map_with_numbers(client):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="1000")
    table = job.pages().all()
    assert '<caption id="kuhn-caption">Strategy by information set</caption>' in page
    for key, actions in table.items():
        for action, p in actions.items():
            cell = re.search(
                rf'<td class="num shade-{round(p * 20)}" '
                rf'title="{key}: {action} with probability {p:.4f}">([0-9.]+)</td>',
                page,
            )
            assert cell is not None, (key, action)
            assert cell.group(1) == f"{p:.2f}"
    # with a king, player 1 calls a bet; with a jack facing a bet, player 0 folds
    assert 'title="Kpb: b with probability 1.0000">1.00</td>' in page
    assert 'title="Jb: p with probability 1.0000">1.00</td>' in page
    # the shade follows the probability: certain is darkest, never is lightest
    assert '<td class="num shade-20" title="Kb: b' in page
    assert '<td class="num shade-0" title="Kb: p' in page
    assert "style=" not in page  # the site's CSP would refuse it
    css = client.get("/static/css/heat.css")
    assert css.status_code == 200
    assert (
        "table.heat td.shade-20 { background: #104a6e; color: #ffffff; }"
        in b"".join(css.streaming_content).decode()
    )


def test_the_heat_map_stylesheet_is_the_one_the_code_makes():
    assert (ROOT / "static/css/heat.css").read_text() == explorer.heat_css()
    assert explorer.shade_colours(0) == ("#fafaf6", "#1d2330")
    assert explorer.shade_colours(views.SHADES) == ("#104a6e", "#ffffff")
    assert views.heat(0.49)["shade"] == 10
    assert views.heat(1.7)["shade"] == 20  # clamped


def test_it_shows_leducs_raise_probabilities_by_card_and_betting(client):
    job, page = solve(client, game="leduc", algorithm="cfr+", iterations="300")
    assert abs(job.document["value"][0] + 0.0856) < 1e-2
    assert "1,939 histories" in page and "288 information sets" in page
    assert '<caption id="leduc-1-caption">First round</caption>' in page
    for line in ("cc", "rc", "crc", "rrc", "crrc"):
        assert f"Second round after {line}</caption>" in page
    k = job.pages().all()["K"]
    assert f'title="K: check/call {k["c"]:.3f}, raise {k["r"]:.3f}">{k["r"]:.2f}</td>' in page
    # after two raises only calling is left: the cell shows the call probability
    two = job.pages().all()["Krrc/Qrr"]
    assert set(two) == {"f", "c"}
    shown = f'title="Krrc/Qrr: fold {two["f"]:.3f}, check/call {two["c"]:.3f}">{two["c"]:.2f}</td>'
    assert shown in page and "player 0: call" in page
    cells = re.findall(r'<td class="num shade-[0-9]+"', page)
    assert len(cells) == 288


def test_it_shows_blackjack_hit_probabilities_by_down_card_and_situation(client):
    job, page = solve(
        client,
        game="blackjack-pp",
        algorithm="cfr+",
        iterations="60",
        up0="T",
        up1="T",
        up2="T",
        max_hits="2",
    )
    assert "Up cards 10, 10, 10 (player 0, player 1, dealer), max hits 2." in page
    expected = job.document["expected"]
    assert sum(expected.values()) == pytest.approx(3.0)
    assert f'dealer points <span class="num">{expected["dealer points"]:.4f}</span>' in page
    assert '<caption id="blackjack-caption">Hit probability</caption>' in page
    # player 0 with an ace down under a ten has 21: it stands
    assert "0A: — player 0, down A, total 21 soft: hit 0.000" in page
    # columns: the start, player 0 standing and each card player 0 can draw, with links on
    link = job.id + "/?at=0h5#strategy"
    assert f'<a href="/solver/jobs/{link}">0h5</a>' in page
    drill = client.get(f"/solver/jobs/{job.id}/?at=0h5").content.decode()
    assert '<span aria-current="page">0h5</span>' in drill
    assert "player 0 hit, drew 5" in drill
    # player 1 with a ten down has 20 after player 0 hit a 5: it stands
    p = job.pages().all()["1T:0h5"]["h"]
    assert p < 0.05 and f"1T:0h5 — player 1, down T, total 20: hit {p:.3f}" in drill
    # player 1 drawing leads further (player 0 may hit again); player 1 standing ends it
    assert f'<a href="/solver/jobs/{job.id}/?at=0h5,1h2#strategy">1h2</a>' in drill
    assert '>1s<span class="sub">player 0 acts</span>' in drill
    bad = client.get(f"/solver/jobs/{job.id}/?at=9z%3Cscript%3E").content.decode()
    assert (
        "That situation does not occur in this solve" in bad
        and "<script>" not in bad.split("<main", 1)[1].split("</main>")[0]
    )


def test_it_offers_the_result_json_for_download(client):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="100")
    href = f"/solver/jobs/{job.id}/result.json"
    assert f'href="{href}" download>Download the result (JSON)</a>' in page
    response = client.get(href)
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="kuhn-cfrplus-100.json"'
    document = json.loads(b"".join(response.streaming_content))
    assert document["game"] == "kuhn" and document["iterations"] == 100
    assert document["infosets"] == job.pages().all()
    assert set(document) >= {"value", "exploitability", "convergence", "tree", "settings"}


def test_it_lists_recent_solves_on_the_form_page(client):
    job, _ = solve(client, game="kuhn", algorithm="cfr", iterations="50")
    waiting = solves.submit(SolveSettings("leduc", "cfr", 20))
    page = client.get("/solver/").content.decode()
    assert f'<a href="/solver/jobs/{job.id}/">Kuhn poker, CFR, 50 iterations</a>' in page
    assert f'<a href="/solver/jobs/{waiting.digest}/">Leduc hold&#x27;em, CFR, 20' in page
    assert '<span class="badge ">waiting</span>' in page
    prefilled = client.get("/solver/?game=leduc&iterations=700").content.decode()
    assert '<option value="leduc" selected>' in prefilled and 'value="700"' in prefilled


def test_a_worker_takes_turns_between_solves_and_other_work(monkeypatch):
    """A solve goes first, but never two in a row while a match or validation waits: a
    steady stream of solves cannot starve the tournaments."""
    for n in (10, 20, 30):
        solves.submit(SolveSettings("kuhn", "cfr+", n))
    done: list[str] = []
    matches = ["match 1", "match 2"]

    def other_work(self) -> bool:
        if matches:
            done.append(matches.pop(0))
            return True
        return False

    real = Worker.solve_one

    def solve_one(self) -> bool:
        found = real(self)
        if found:
            done.append("solve")
        return found

    monkeypatch.setattr(Worker, "other_work", other_work)
    monkeypatch.setattr(Worker, "solve_one", solve_one)
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 5
    assert done == ["solve", "match 1", "solve", "match 2", "solve"]
    assert SolveJob.objects.filter(status=SolveJob.DONE).count() == 3
