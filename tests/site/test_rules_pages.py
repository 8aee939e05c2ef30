"""Each game's page: its rules, the bot contract, starter bots to download, and how to run one
locally. The starter bots really play: each goes through ``manage.py arena`` in the sandbox
against a built-in bot and must finish without a fault."""

from __future__ import annotations

import html
import io
import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from games.blackjack_pp.solving import HITS
from games.blackjack_pp.tree import points
from games.registry import game_slugs
from tests.conftest import starter_source
from tests.sandbox import conftest as sandbox_fixtures

sandbox_config = sandbox_fixtures.sandbox_config
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("slug", "title", "rules", "methods"),
    [
        ("rps-poker", "RPS Poker", "Who wins a game", ["draft_pick", "main_play"]),
        ("last-card", "Last Card", "Special cards", ["play"]),
        ("uth", "Ultimate Texas Hold&#x27;em", "Pay tables", ["act"]),
    ],
)
def test_it_explains_the_rules_and_the_bot_contract(client, slug, title, rules, methods):
    response = client.get(f"/games/{slug}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert f"<h1>{title}</h1>" in page
    assert rules in page  # from the game's document, rendered
    assert "<table>" in page  # its tables are tables
    for method in methods:
        assert f"<code>{method}</code>" in page
    # (UTH's match is a session of many rounds against the dealer)
    per = "session" if slug == "uth" else "match"
    assert f"1 s per call, plus a 10 s bank per {per}" in page
    assert f"/games/{slug}/leaderboard/" in page
    # the developer sections of the document stay in the repository
    assert ">Measured<" not in page and ">How it is built and checked<" not in page


@pytest.mark.django_db
@pytest.mark.parametrize("slug", game_slugs())
def test_a_rules_page_stands_on_its_own_without_citing_a_file_the_visitor_cannot_open(client, slug):
    page = client.get(f"/games/{slug}/").content.decode()
    assert "shared/specs" not in page
    assert not re.search(r"\bthe spec('s)?\b", page), "a page says the rule, not where it is"


@pytest.mark.django_db
def test_the_blackjack_page_says_how_two_bust_hands_rank_as_the_engine_ranks_them(client):
    page = client.get("/games/blackjack-pp/").content.decode()
    assert "among themselves by total" not in page
    assert "a 26 bust beats a 23 bust" in page
    # the page's example is the engine's ranking: the dealer's 17 first, then the 26 bust
    assert points((26, 23, 17)) == (1.0, 0.0, 2.0)
    assert "<code>manage.py solve</code> takes 2 unless told otherwise" in page
    assert HITS.default == 2


@pytest.mark.django_db
def test_it_offers_a_python_and_a_javascript_starter_for_every_game(client):
    for slug in game_slugs():
        page = client.get(f"/games/{slug}/").content.decode()
        name = slug.replace("-", "_")
        for language, suffix in (("python", "py"), ("javascript", "js")):
            link = f'href="/games/{slug}/starter/{language}/" download="{name}_starter.{suffix}"'
            assert link in page, (slug, language)
        assert f"manage.py arena --game {slug} {name}_starter.js " in page
    rps = client.get("/games/rps-poker/").content.decode()
    assert (
        ".venv/bin/python manage.py arena --game rps-poker rps_poker_starter.js"
        " builtin:simple --rounds 20" in rps
    )
    last_card = client.get("/games/last-card/").content.decode()
    assert "last_card_starter.py" in last_card and "last_card_starter.js" in last_card
    assert "--fill builtin:naive" in last_card
    assert "<code>movecheck.py</code> sits beside your bot" in last_card
    # the JavaScript row says how its methods are named, from the game's own methods
    assert (
        "with the game's methods in camelCase (<code>draft_pick</code> is <code>draftPick</code>)"
        in rps
    )
    assert "with the method <code>play</code>; a new bot is made for every match" in last_card
    assert "draftPick" not in last_card
    # (a JavaScript bot cannot import it)
    assert "<dt>Toolkit (Python bots)</dt>" in last_card
    uth = client.get("/games/uth/").content.decode()
    assert ".venv/bin/python manage.py arena --game uth uth_starter.py builtin:basic" in uth
    # a UTH match is a session of many rounds, as its starters and language rows say
    assert "plus a 10 s bank per session for calls" in uth
    assert "1 MiB of printed output per session" in uth
    assert "bank per match for calls" not in uth and "printed output per match" not in uth
    assert "with the method <code>act</code>; a new bot is made for every session" in uth
    assert "draft_pick" not in uth and "draftPick" not in uth


@pytest.mark.django_db
@pytest.mark.parametrize("slug", game_slugs())
def test_the_javascript_row_names_the_game_s_own_methods(client, slug):
    from bots.languages import camel_case
    from games.registry import get_game

    methods = get_game(slug).methods
    page = client.get(f"/games/{slug}/").content.decode()
    renamed = [m for m in methods if camel_case(m) != m]
    if renamed:
        shown = f"(<code>{renamed[0]}</code> is <code>{camel_case(renamed[0])}</code>)"
        assert f"with the game's methods in camelCase {shown}; a new bot is made" in page
    else:
        named = ", ".join(f"<code>{m}</code>" for m in methods)
        said = "the method" if len(methods) == 1 else "the methods"
        assert f"with {said} {named}; a new bot is made" in page


@pytest.mark.django_db
def test_the_uth_page_says_a_first_illegal_answer_is_refused_and_asked_again(client):
    # UthState.reject: one refusal is allowed, with the reason in obs["error"]; a second one
    # before two accepted actions in a row ends the session
    from games.engine.game import Fault
    from games.uth.rules import UthState

    state = UthState.new(1)
    assert state.reject(0, "[raise]", "not legal") is None
    assert state.observation()["error"] == "not legal"
    assert isinstance(state.reject(0, "[raise]", "not legal"), Fault)
    faults = re.search(r"<dt>Faults</dt><dd>(.*?)</dd>", client.get("/games/uth/").content.decode())
    assert faults is not None
    assert html.unescape(faults.group(1)) == (
        "raising, crashing, answering nonsense or running out of time is a fault: it is recorded"
        " with its reason; but an answer that is not a legal action is only refused the first"
        ' time, with the reason in obs["error"], and asked for again: a second refusal before'
        " two actions in a row are accepted is a fault"
    )


@pytest.mark.django_db
def test_the_uth_page_says_what_each_pay_table_pays_on_the_blind_bet(client):
    from games.registry import get_game
    from games.uth.rules import PAY_TABLES

    (variant,) = [o for o in get_game("uth").options if o.name == "variant"]
    assert "trips" not in variant.help and variant.help.startswith("the pay table of the blind bet")
    assert PAY_TABLES["default"]["flush"] == 3 and PAY_TABLES["standard"]["flush"] == 1.5
    assert "flush 3 to 1 in default, 3 to 2 in standard" in variant.help
    assert PAY_TABLES["default"]["royal_flush"] == PAY_TABLES["standard"]["royal_flush"] == 500
    assert "in both, royal flush 500 to 1," in variant.help
    page = html.unescape(client.get("/games/uth/").content.decode())
    assert "trips" not in page and variant.help in page


@pytest.mark.django_db
def test_a_starters_command_box_can_be_reached_from_the_keyboard_and_is_named(client):
    """A command longer than its box scrolls in it: a keyboard user can reach the box (and
    scroll it) and a screen reader says which command it is."""
    page = client.get("/games/kuhn/").content.decode()
    starters = page.split('<section id="start"')[1].split("</section>")[0]
    boxes = re.findall(r"<pre([^>]*)><code>\.venv/bin/python manage\.py arena", starters)
    assert boxes == [
        f' tabindex="0" role="region" aria-label="Command to run {name}"'
        for name in ("kuhn_starter.py", "kuhn_starter.js", "kuhn_starter.cpp", "KuhnStarter.java")
    ]


@pytest.mark.parametrize("slug", game_slugs())
def test_every_starter_s_header_gives_the_command_the_rules_page_shows(slug):
    # (in every language: a header that names another opponent than the page confuses)
    from games.registry import get_game
    from games.views import arena_command, starters

    spec = get_game(slug)
    for starter in starters(spec):
        text = starter.path.read_text(encoding="utf-8").replace("\\\n", " ")
        text = " ".join(re.sub(r"^\s*(//|#)?", "", line) for line in text.splitlines())
        assert " ".join(arena_command(spec, starter.filename).split()) in " ".join(text.split()), (
            starter.path.name
        )


@pytest.mark.django_db
def test_the_command_the_page_shows_runs_as_written_in_a_set_up_clone(client, tmp_path):
    # (after the page's steps: git clone, then scripts/setup, which makes .venv)
    page = client.get("/games/rps-poker/").content.decode()
    shown = html.unescape(re.findall(r"<pre [^>]*><code>(.*?)</code></pre>", page)[0])
    assert shown.startswith(".venv/bin/python manage.py arena --game rps-poker ")
    starter = tmp_path / "rps_poker_starter.py"
    starter.write_text(starter_source("rps_poker.py").read_text())
    argv = shlex.split(shown.replace("rps_poker_starter.py", str(starter)))
    done = subprocess.run(
        [*argv, "--no-sandbox", "--no-progress", "--seed", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "CARD_ARENA_VAR": str(tmp_path / "var")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "RPS Poker: 2 bots, 20 rounds, 20 matches, seed 4" in done.stderr
    assert "RPS Poker: 20 matches in" in done.stdout  # and its leaderboard


@pytest.mark.django_db
def test_it_downloads_a_starter_with_its_file_name(client):
    response = client.get("/games/rps-poker/starter/javascript/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="rps_poker_starter.js"'
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert body == starter_source("rps_poker.js").read_text()
    python = client.get("/games/uth/starter/python/")
    assert python["Content-Disposition"] == 'attachment; filename="uth_starter.py"'


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/games/chess/",
        "/games/chess/starter/python/",
        "/games/uth/starter/cobol/",
    ],
)
def test_it_answers_404_for_an_unknown_game_or_starter(client, path):
    assert client.get(path).status_code == 404


# ---- the starters really play -----------------------------------------------------------------
@pytest.fixture
def in_the_sandbox(settings, sandbox_config):
    """The arena command reads the sandbox's machine settings: point it at the test uids."""
    settings.SANDBOX_UID_BASE = sandbox_config.uid_base
    settings.SANDBOX_SLOTS = sandbox_config.slots
    settings.SANDBOX_LOCK_DIR = sandbox_config.lock_dir


def run_arena(
    tmp_path: Path, game: str, starter: str, *args: str, edit: tuple[str, str] = ("", "")
) -> dict:
    """Copy the starter under its download name (with ``edit``'s text replaced) and play it
    with ``manage.py arena``."""
    source = starter_source(starter)
    path = tmp_path / f"{Path(starter).stem}_starter{source.suffix}"
    text = source.read_text()
    assert edit[0] in text
    path.write_text(text.replace(*edit) if edit[0] else text)
    results = tmp_path / "results.json"
    call_command(
        "arena", "--game", game, str(path), *args, "--seed", "4", "--no-progress",
        "--json", str(results), stdout=io.StringIO(),
    )  # fmt: skip
    return json.loads(results.read_text())


@pytest.mark.parametrize(
    ("game", "starter", "args", "matches"),
    [
        ("rps-poker", "rps_poker.py", ["builtin:strong", "--rounds", "4"], 4),
        ("rps-poker", "rps_poker.js", ["builtin:simple", "--rounds", "4"], 4),
        ("last-card", "last_card.py", ["--fill", "builtin:naive", "--games", "8"], 8),
        ("uth", "uth.py", ["builtin:basic", "--sessions", "2", "--rounds-per-session", "60"], 4),
    ],
)
def test_each_starter_plays_a_built_in_bot_in_the_sandbox_without_a_fault(
    tmp_path, in_the_sandbox, game, starter, args, matches
):
    data = run_arena(tmp_path, game, starter, *args)
    assert data["matches"] == matches
    mine = next(b for b in data["bots"] if b["source"].endswith(f"_starter{Path(starter).suffix}"))
    assert mine["faults"] == 0 and mine["fault_kinds"] == {}
    assert mine["games"] > 0
    if game == "last-card":
        assert mine["illegal_moves"] == 0  # it checks its moves with movecheck


def test_the_last_card_starter_keeps_to_the_rules_without_the_move_checker(tmp_path):
    """When it cannot import the move checker, it falls back on its own rules."""
    data = run_arena(
        tmp_path, "last-card", "last_card.py", "--fill", "builtin:naive", "--games", "8",
        "--no-sandbox", edit=("from movecheck import", "from no_move_checker import"),
    )  # fmt: skip
    mine = next(b for b in data["bots"] if b["source"].endswith("last_card_starter.py"))
    assert mine["faults"] == 0 and mine["illegal_moves"] == 0
    assert mine["cards_played"] > 0


def test_no_game_page_points_web_readers_at_a_markdown_file():
    from games.registry import games
    from games.views import rules_html

    for spec in games():
        page = rules_html(spec.slug)
        # (they said "More in ../bot-protocol.md." and "(docs/solver.md)")
        assert ".md" not in page and "docs/" not in page, spec.slug
    assert "More in “What a bot can use”." in " ".join(rules_html("kuhn").split())
