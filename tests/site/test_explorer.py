"""The strategy explorer (/solver/): the form and its web limits, solves run in background
threads through the job registry (cached by settings, capped in number), the progress JSON the
page polls, and the result page: root payoffs, the convergence chart and the heat maps."""

from __future__ import annotations

import html
import json
import re
import threading
from pathlib import Path

import pytest

from games import explorer
from games.explorer import ExplorerForm, Registry, SolveSettings, run_solve
from games.solver import views

ROOT = Path(__file__).resolve().parents[2]

KUHN_VALUE = -1 / 18


@pytest.fixture
def registry(monkeypatch):
    """A fresh registry for the site; every solve it started is finished before the next test."""
    fresh = Registry()
    monkeypatch.setattr(explorer, "REGISTRY", fresh)
    yield fresh
    for job in fresh.recent():
        assert job.wait(120), f"solve {job.settings.key} did not finish"


@pytest.fixture
def gate():
    """Holds solves back until the test lets them go (released at the end in any case)."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def gated_registry(monkeypatch, gate):
    """A registry of one solve at a time whose solves wait for ``gate`` before they start."""

    def held(job):
        assert gate.wait(30)
        run_solve(job)

    fresh = Registry(max_running=1, runner=held)
    monkeypatch.setattr(explorer, "REGISTRY", fresh)
    yield fresh
    gate.set()
    for job in fresh.recent():
        assert job.wait(120)


def solve(client, **fields):
    """POST the form, follow the job to its end, and give back (job, result page HTML)."""
    response = client.post("/solver/", fields)
    assert response.status_code == 303, response.content.decode()[:2000]
    url = response["Location"]
    job = explorer.REGISTRY.get(url.rstrip("/").rsplit("/", 1)[1])
    assert job is not None and job.wait(120)
    assert job.state == "done", job.error
    return job, client.get(url).content.decode()


def form_errors(**fields) -> dict[str, list[str]]:
    form = ExplorerForm(fields)
    form.is_valid()
    return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


# ---------------------------------------------------------------------------- the form
def test_it_shows_the_form_with_the_web_limits_and_blackjack_options(client, registry):
    page = client.get("/solver/").content.decode()
    assert "<h1>Strategy explorer</h1>" in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert '<select name="game"' in page and 'value="blackjack-pp"' in page
    for limit in ("Kuhn poker: up to 20000", "Leduc hold&#x27;em: up to 5000", "up to 2000"):
        assert limit in page
    assert "max hits 1 or 2" in page
    assert "<legend>Up cards</legend>" in page
    assert '<label for="id_up2">Dealer</label>' in page
    assert 'data-limits="{&quot;kuhn&quot;: 20000' in page


def test_it_keeps_iterations_within_each_games_web_limit():
    assert form_errors(game="kuhn", algorithm="cfr+", iterations="20000") == {}
    assert form_errors(game="leduc", algorithm="cfr", iterations="5000") == {}
    assert form_errors(game="leduc", algorithm="cfr+", iterations="5001") == {
        "iterations": [
            "Leduc hold'em: at most 5,000 iterations on the web (you asked for 5,001; "
            "manage.py solve has no limit)."
        ]
    }
    bj = {"up0": "6", "up1": "6", "up2": "2", "max_hits": "1"}
    assert form_errors(game="blackjack-pp", algorithm="cfr+", iterations="2001", **bj) == {
        "iterations": [
            "Blackjack++: at most 2,000 iterations on the web (you asked for 2,001; "
            "manage.py solve has no limit)."
        ]
    }
    assert "iterations" in form_errors(game="kuhn", algorithm="cfr+", iterations="0")
    assert form_errors(game="kuhn", algorithm="cfr+", iterations="50000") == {
        "iterations": [
            "Kuhn poker: at most 20,000 iterations on the web (you asked for 50,000; "
            "manage.py solve has no limit)."
        ]
    }
    assert "iterations" in form_errors(game="kuhn", algorithm="cfr+", iterations="many")
    assert "algorithm" in form_errors(game="kuhn", algorithm="mccfr", iterations="10")
    assert "game" in form_errors(game="chess", algorithm="cfr", iterations="10")


def test_it_refuses_bad_up_cards_and_max_hits_outside_one_or_two():
    base = {"game": "blackjack-pp", "algorithm": "cfr+", "iterations": "100"}
    good = {"up0": "A", "up1": "T", "up2": "2", "max_hits": "2"}
    assert form_errors(**base, **good) == {}
    assert "up0" in form_errors(**base, **{**good, "up0": "11"})
    assert "up1" in form_errors(**base, **{**good, "up1": "Z"})
    assert form_errors(**base, **{**good, "up2": ""}) == {"up2": ["Choose an up card."]}
    too_many = form_errors(**base, **{**good, "max_hits": "3"})
    assert list(too_many) == ["max_hits"]
    assert "On the web, max hits is 1 or 2" in too_many["max_hits"][0]
    assert "max_hits" in form_errors(**base, **{**good, "max_hits": "0"})
    # other games ignore the Blackjack++ options
    form = ExplorerForm({"game": "kuhn", "algorithm": "cfr", "iterations": "10", "up0": "Z"})
    assert not form.is_valid()
    form = ExplorerForm({"game": "kuhn", "algorithm": "cfr", "iterations": "10"})
    assert form.is_valid() and form.settings() == SolveSettings("kuhn", "cfr", 10)


def test_it_shows_form_errors_on_the_page_and_starts_nothing(client, registry):
    response = client.post(
        "/solver/",
        {
            "game": "blackjack-pp",
            "algorithm": "cfr+",
            "iterations": "50",
            "up0": "6",
            "up1": "6",
            "up2": "2",
            "max_hits": "3",
        },
    )
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "On the web, max hits is 1 or 2" in page
    assert 'aria-invalid="true"' in page
    assert registry.recent() == []


def test_it_needs_the_csrf_token(registry):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "10"})
    assert response.status_code == 403
    assert registry.recent() == []


# ------------------------------------------------------------------------- solving
def test_it_solves_kuhn_in_the_background_and_shows_the_value(client, registry):
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


def test_it_reports_progress_from_running_to_done(client, gated_registry, gate):
    response = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr", "iterations": "300"})
    url = response["Location"]
    job_id = url.rstrip("/").rsplit("/", 1)[1]
    running = client.get(f"/solver/jobs/{job_id}.json")
    assert running.status_code == 200 and running["Cache-Control"] == "no-store"
    data = running.json()
    assert data["state"] == "running" and data["phase"] == "waiting"
    assert (data["iteration"], data["total"], data["percent"]) == (0, 300, 0.0)
    assert data["url"] == url and "download_url" not in data

    page = client.get(url).content.decode()
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert '<progress id="solve-bar" max="100" value="0.0"' in page
    assert f'data-progress-url="/solver/jobs/{job_id}.json"' in page
    assert "js/explorer.js" in page

    gate.set()
    job = gated_registry.get(job_id)
    assert job.wait(60)
    done = client.get(f"/solver/jobs/{job_id}.json").json()
    assert done["state"] == "done" and done["phase"] == "done"
    assert (done["iteration"], done["total"], done["percent"]) == (300, 300, 100.0)
    assert done["download_url"] == f"/solver/jobs/{job_id}/result.json"
    assert "Root payoffs" in client.get(url).content.decode()


def test_it_counts_iterations_as_the_solver_trains(registry):
    seen: list[int] = []
    job = explorer.Job(SolveSettings("kuhn", "cfr+", 40))
    record = job.set_iteration

    def spy(n: int) -> None:
        seen.append(n)
        record(n)

    job.set_iteration = spy
    run_solve(job)
    assert seen == list(range(1, 41))
    assert job.done and job.iteration == job.total == 40


def test_it_answers_the_same_settings_with_the_same_job(client, registry):
    settings = SolveSettings("kuhn", "cfr+", 200)
    first = registry.submit(settings)
    assert registry.submit(SolveSettings("kuhn", "cfr+", 200)) is first
    assert first.wait(60)
    again = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "200"})
    assert again["Location"] == f"/solver/jobs/{first.id}/"
    other = registry.submit(SolveSettings("kuhn", "cfr", 200))
    assert other is not first and other.id != first.id
    assert [j.id for j in registry.recent()] == [other.id, first.id]


def test_it_forgets_the_least_recently_used_results_first(registry):
    registry.max_kept = 2
    jobs = [registry.submit(SolveSettings("kuhn", "cfr+", n)) for n in (10, 20)]
    for job in jobs:
        assert job.wait(60)
    assert registry.get(jobs[0].id) is jobs[0]  # now the most recently used
    third = registry.submit(SolveSettings("kuhn", "cfr+", 30))
    assert third.wait(60)
    registry.submit(SolveSettings("kuhn", "cfr+", 30))
    assert registry.get(jobs[1].id) is None
    assert registry.get(jobs[0].id) is jobs[0] and registry.get(third.id) is third


def test_it_refuses_politely_when_the_solver_is_busy(client, gated_registry, gate):
    first = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "100"})
    assert first.status_code == 303
    busy = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "100"})
    assert busy.status_code == 429 and busy["Retry-After"] == "30"
    page = busy.content.decode()
    assert "The solver is busy: it runs at most 1 solve at a time" in page
    assert '<div class="form-alert" role="alert"><p>The solver is busy' in page
    assert len(gated_registry.recent()) == 1
    # the running solve's own settings still answer
    same = client.post("/solver/", {"game": "kuhn", "algorithm": "cfr+", "iterations": "100"})
    assert same.status_code == 303 and same["Location"] == first["Location"]
    gate.set()
    assert gated_registry.recent()[0].wait(60)
    later = client.post("/solver/", {"game": "leduc", "algorithm": "cfr+", "iterations": "100"})
    assert later.status_code == 303


def test_it_shows_a_failed_solve_and_tries_again_when_asked(client, monkeypatch):
    calls = []

    def flaky(job):
        calls.append(job.id)
        if len(calls) == 1:
            raise RuntimeError("the tree is too deep")
        run_solve(job)

    fresh = Registry(runner=flaky)
    monkeypatch.setattr(explorer, "REGISTRY", fresh)
    fields = {"game": "kuhn", "algorithm": "cfr+", "iterations": "20"}
    url = client.post("/solver/", fields)["Location"]
    job = fresh.get(url.rstrip("/").rsplit("/", 1)[1])
    assert job.wait(60) and job.state == "failed"
    page = client.get(url).content.decode()
    assert "The solve failed: the tree is too deep" in page
    assert client.get(url[:-1] + ".json").json()["state"] == "failed"
    assert client.post("/solver/", fields)["Location"] == url
    retry = fresh.get(job.id)
    assert retry is not job and retry.wait(60) and retry.state == "done"


def test_it_says_when_a_solve_is_not_in_memory(client, registry):
    page = client.get("/solver/jobs/0123456789abcdef/")
    assert page.status_code == 404 and "This solve is not here" in page.content.decode()
    assert client.get("/solver/jobs/0123456789abcdef.json").status_code == 404
    assert client.get("/solver/jobs/0123456789abcdef/result.json").status_code == 404


# ------------------------------------------------------------------------- results
def test_it_draws_the_convergence_chart_as_accessible_svg(client, registry):
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
    assert xs == sorted(xs) and xs[3] - xs[0] == pytest.approx(xs[6] - xs[3])  # log scale
    assert "<summary>The chart's data</summary>" in page
    last_i, last_e = convergence[-1]
    assert f'<td class="num">{last_i}</td><td class="num">{last_e:.3g}</td>' in page


def test_it_shows_kuhns_strategy_as_a_heat_map_with_numbers(client, registry):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="1000")
    table = job.document["infosets"]
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
    assert "table.heat td.shade-20 { background: #104a6e; color: #ffffff; }" in b"".join(
        css.streaming_content
    ).decode()


def test_the_heat_map_stylesheet_is_the_one_the_code_makes():
    assert (ROOT / "static/css/heat.css").read_text() == explorer.heat_css()
    assert explorer.shade_colours(0) == ("#fafaf6", "#1d2330")
    assert explorer.shade_colours(views.SHADES) == ("#104a6e", "#ffffff")
    assert views.heat(0.49)["shade"] == 10
    assert views.heat(1.7)["shade"] == 20  # clamped


def test_it_shows_leducs_raise_probabilities_by_card_and_betting(client, registry):
    job, page = solve(client, game="leduc", algorithm="cfr+", iterations="300")
    assert abs(job.document["value"][0] + 0.0856) < 1e-2
    assert "1,939 histories" in page and "288 information sets" in page
    assert '<caption id="leduc-1-caption">First round</caption>' in page
    for line in ("cc", "rc", "crc", "rrc", "crrc"):
        assert f"Second round after {line}</caption>" in page
    k = job.document["infosets"]["K"]
    assert f'title="K: check/call {k["c"]:.3f}, raise {k["r"]:.3f}">{k["r"]:.2f}</td>' in page
    # after two raises only calling is left: the cell shows the call probability
    two = job.document["infosets"]["Krrc/Qrr"]
    assert set(two) == {"f", "c"}
    shown = f'title="Krrc/Qrr: fold {two["f"]:.3f}, check/call {two["c"]:.3f}">{two["c"]:.2f}</td>'
    assert shown in page and "player 0: call" in page
    cells = re.findall(r'<td class="num shade-[0-9]+"', page)
    assert len(cells) == 288


def test_it_shows_blackjack_hit_probabilities_by_down_card_and_situation(client, registry):
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
    p = job.document["infosets"]["1T:0h5"]["h"]
    assert p < 0.05 and f"1T:0h5 — player 1, down T, total 20: hit {p:.3f}" in drill
    # player 1 drawing leads further (player 0 may hit again); player 1 standing ends it
    assert f'<a href="/solver/jobs/{job.id}/?at=0h5,1h2#strategy">1h2</a>' in drill
    assert '>1s<span class="sub">player 0 acts</span>' in drill
    bad = client.get(f"/solver/jobs/{job.id}/?at=9z%3Cscript%3E").content.decode()
    assert (
        "That situation does not occur in this solve" in bad
        and "<script>" not in bad.split("<main", 1)[1].split("</main>")[0]
    )


def test_it_offers_the_result_json_for_download(client, registry):
    job, page = solve(client, game="kuhn", algorithm="cfr+", iterations="100")
    href = f"/solver/jobs/{job.id}/result.json"
    assert f'href="{href}" download>Download the result (JSON)</a>' in page
    response = client.get(href)
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="kuhn-cfrplus-100.json"'
    document = json.loads(response.content)
    assert document["game"] == "kuhn" and document["iterations"] == 100
    assert document["infosets"] == job.document["infosets"]
    assert set(document) >= {"value", "exploitability", "convergence", "tree", "settings"}


def test_it_lists_recent_solves_on_the_form_page(client, registry):
    job, _ = solve(client, game="kuhn", algorithm="cfr", iterations="50")
    page = client.get("/solver/").content.decode()
    assert f'<a href="/solver/jobs/{job.id}/">Kuhn poker, CFR, 50 iterations</a>' in page
    prefilled = client.get("/solver/?game=leduc&iterations=700").content.decode()
    assert '<option value="leduc" selected>' in prefilled and 'value="700"' in prefilled
