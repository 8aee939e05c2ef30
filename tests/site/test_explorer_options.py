"""The strategy explorer's game options come from the games' specs (``SolverSpec.options``):
a made-up game's options get their fields, checks, description, query string and file name
without a line of the explorer naming it."""

from __future__ import annotations

import html

import pytest

from bots.worker import Options, Worker
from games.explorer import ExplorerForm, SolveSettings
from games.models import SolveJob
from tests.solver import toy_game


@pytest.fixture
def toy(monkeypatch):
    return toy_game.install(monkeypatch)


def form_errors(**fields) -> dict[str, list[str]]:
    form = ExplorerForm(fields)
    form.is_valid()
    return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


BASE = {"game": "toy-match", "algorithm": "cfr+", "iterations": "10"}


@pytest.mark.django_db
def test_the_form_has_a_fieldset_of_each_games_options(client, toy):
    page = client.get("/solver/").content.decode()
    fieldset = page.split('<fieldset class="game-options" id="options-toy-match"', 1)[1]
    fieldset = fieldset.split("</fieldset>\n    \n", 1)[0]
    assert fieldset.startswith(' data-game-option="toy-match">')
    assert "<legend>Toy match only</legend>" in fieldset
    assert '<select name="stake" data-game-option="toy-match"' in fieldset
    assert '<option value="5" selected>five</option>' in fieldset
    assert "What a match wins." in fieldset
    assert "<legend>Sides</legend>" in fieldset
    assert '<label for="id_sides1">Second</label>' in fieldset
    assert '<option value="t" selected>tails</option>' in fieldset
    assert "up0" not in fieldset
    # the real game's fieldset is there as well, marked with its slug
    assert 'data-game-option="blackjack-pp"' in page
    assert "<li>Toy match: stake one or five</li>" in page
    assert "Toy match: up to 50 iterations" in page
    assert "data-blackjack" not in page and "blackjack-options" not in page
    prefilled = client.get("/solver/?game=toy-match&stake=1&sides0=e").content.decode()
    assert '<option value="1" selected>one</option>' in prefilled
    assert '<option value="e" selected>edge</option>' in prefilled


def test_the_form_checks_the_chosen_games_options_with_their_messages(toy):
    good = {"stake": "5", "sides0": "h", "sides1": "e"}
    assert form_errors(**BASE, **good) == {}
    assert form_errors(**BASE, **{**good, "sides1": ""}) == {"sides1": ["Choose a side."]}
    assert form_errors(**BASE, **{**good, "stake": ""}) == {"stake": ["Choose a stake."]}
    assert form_errors(**BASE, **{**good, "stake": "3"}) == {
        "stake": ["On the web the stake is one or five."]
    }
    assert "sides0" in form_errors(**BASE, **{**good, "sides0": "x"})
    assert "iterations" in form_errors(**{**BASE, "iterations": "51"}, **good)
    # another game's options are not asked for
    form = ExplorerForm({"game": "kuhn", "algorithm": "cfr", "iterations": "10"})
    assert form.is_valid() and form.settings() == SolveSettings("kuhn", "cfr", 10)
    form = ExplorerForm({**BASE, **good})
    assert form.is_valid()
    assert form.settings() == SolveSettings(
        "toy-match", "cfr+", 10, (("stake", 5), ("sides", "h/e"))
    )


def test_settings_describe_key_and_name_a_solve_by_its_options(toy):
    s = SolveSettings("toy-match", "cfr+", 10, (("stake", 5), ("sides", "h/e")))
    assert s.key == "toy-match|cfr+|10|5|h/e"
    assert s.describe() == "Toy match, CFR+, 10 iterations, stake 5, sides h/e"
    assert s.options_text == "Stake 5, sides h/e (first, second)."
    assert s.query() == "game=toy-match&algorithm=cfr%2B&iterations=10&stake=5&sides0=h&sides1=e"
    assert s.file_name() == "toy-match-cfrplus-10-x5-h-e"
    plain = SolveSettings("kuhn", "cfr", 100)
    assert plain.options_text == "" and plain.file_name() == "kuhn-cfr-100"


def test_the_blackjack_solves_keep_their_keys_names_and_query_strings():
    """The options moved to the game's spec; what a solve is called did not change."""
    s = SolveSettings("blackjack-pp", "cfr+", 50, (("up", "6,T,A"), ("max_hits", 2)))
    assert s.key == "blackjack-pp|cfr+|50|6,T,A|2"
    assert s.job_id == "4ae4af6e8a6a1521"
    assert s.describe() == "Blackjack++, CFR+, 50 iterations, up cards 6, 10, A, max hits 2"
    assert s.options_text == "Up cards 6, 10, A (player 0, player 1, dealer), max hits 2."
    assert s.query() == (
        "game=blackjack-pp&algorithm=cfr%2B&iterations=50&up0=6&up1=T&up2=A&max_hits=2"
    )
    assert s.file_name() == "blackjack-pp-cfrplus-50-6-T-A-hits2"


@pytest.mark.django_db
def test_a_new_game_solves_on_the_web_with_its_options(client, toy):
    response = client.post("/solver/", {**BASE, "stake": "5", "sides0": "t", "sides1": "e"})
    assert response.status_code == 303
    url = response["Location"]
    Worker(Options(validate=False), name="w1").run(batch=True)  # as manage.py worker --batch
    job = SolveJob.objects.get(digest=url.rstrip("/").rsplit("/", 1)[1])
    assert job.status == SolveJob.DONE, job.error
    assert job.key == "toy-match|cfr+|10|5|t/e" and job.options == [["stake", 5], ["sides", "t/e"]]
    assert toy_game.CALLS[0] == {"stake": 5, "sides": "t/e"}
    page = html.unescape(client.get(url).content.decode())
    assert "Stake 5, sides t/e (first, second)." in page
    assert "game=toy-match&algorithm=cfr%2B&iterations=10&stake=5&sides0=t&sides1=e" in page
    download = client.get(f"/solver/jobs/{job.digest}/result.json")
    assert 'filename="toy-match-cfrplus-10-x5-t-e.json"' in download["Content-Disposition"]
