"""Getting around: the top bar reaches tables, leaderboards and tournaments from every page;
the API's documentation is a page of the site; the rules pages say where the code is."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from games.registry import game_slugs, get_game

pytestmark = pytest.mark.django_db


def nav(page: str) -> list[str]:
    bar = page[page.index('<nav class="nav"') : page.index("</nav>")]
    return re.findall(r'<a [^>]*href="([^"]+)"', bar)


@pytest.mark.parametrize("url", ["/", "/games/rps-poker/", "/tournaments/", "/solver/"])
def test_the_top_bar_reaches_play_leaderboards_and_tournaments(client, url):
    links = nav(client.get(url).content.decode())
    for target in ("/tables/", "/leaderboards/", "/tournaments/"):
        assert target in links, (url, links)
        assert client.get(target).status_code == 200


def test_the_tables_page_lists_every_game_with_tables(client):
    page = client.get("/tables/").content.decode()
    for slug in game_slugs():
        spec = get_game(slug)
        if spec.table is not None:
            assert f'href="/games/{slug}/tables/"' in page and escape(spec.title) in page


def test_the_leaderboards_page_has_a_section_per_game(client):
    page = client.get("/leaderboards/").content.decode()
    for slug in game_slugs():
        assert f'href="/games/{slug}/leaderboard/"' in page
    assert page.count("No bots rated yet.") == len(game_slugs())


def test_the_api_documentation_is_a_page(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "<h1>The JSON API</h1>" in page
    assert "<h2><code>GET /api/games/&lt;slug&gt;/leaderboard/</code></h2>" in page
    assert ".md" not in re.sub(r"<code>.*?</code>", "", page)  # no links into the repository
    assert client.get("/api/").json()["docs"] == "/api/docs/"
    footer = page[page.index('<footer class="foot"') :]
    assert 'href="/api/docs/"' in footer


def test_the_api_documentation_s_examples_use_the_address_the_page_was_asked_on(client):
    page = client.get("/api/docs/").content.decode()
    assert "curl -s http://testserver/api/games/\n" in page
    assert "curl -s -i http://testserver/api/matches/3/" in page
    assert "&quot;next&quot;: &quot;http://testserver/api/games/rps-poker/leaderboard/" in page
    assert "127.0.0.1:8000" not in page
    elsewhere = client.get("/api/docs/", HTTP_HOST="127.0.0.1:8766").content.decode()
    assert "curl -s http://127.0.0.1:8766/api/games/\n" in elsewhere
    assert "curl -s 'http://127.0.0.1:8766/api/tournaments/?game=rps-poker'" in elsewhere
    assert ":8000" not in elsewhere


def test_the_rules_page_says_where_to_clone_the_code_from(client, settings):
    settings.CARD_ARENA_REPOSITORY = ""
    page = client.get("/games/rps-poker/").content.decode()
    assert "ask the people who run it" in page and "git clone" not in page
    settings.CARD_ARENA_REPOSITORY = "https://example.org/card-arena.git"
    page = client.get("/games/rps-poker/").content.decode()
    assert "<code>git clone https://example.org/card-arena.git</code>" in page
