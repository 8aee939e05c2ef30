"""The pages there are so far: home and the health check."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_it_shows_the_games_on_the_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "RPS Poker" in page
    # the built-in bots by the names every other page gives them (builtin:NAME is how the
    # arena command asks for one: the rules pages say so)
    assert "<code>house/strong</code>" in page and "builtin:" not in page
    # a visitor tries a bot in the playground; the arena command is on the rules pages
    assert '<a href="/games/rps-poker/playground/">Playground</a>' in page


def test_a_trimmed_games_address_lands_on_the_games_list(client, db):
    response = client.get("/games/")
    assert response.status_code == 302 and response["Location"] == "/#games"
    assert 'id="games"' in client.get("/").content.decode()


@pytest.mark.django_db
def test_it_answers_the_health_check_from_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
def test_it_serves_the_stylesheet(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert b"--felt" in b"".join(response.streaming_content)


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
def test_it_refuses_an_unknown_host(client):
    assert client.get("/", HTTP_HOST="evil.example").status_code == 400


@pytest.mark.django_db
def test_it_invites_people_to_play_build_and_follow_from_the_home_page(client):
    page = client.get("/").content.decode()
    assert '<a class="button primary" href="/games/rps-poker/tables/">Play now</a>' in page
    assert "coming soon" not in page  # live tables are here
    for step in ("Learn a game", "Build a bot", "Follow the leaderboards"):
        assert step in page
    for slug in ("rps-poker", "last-card", "uth"):
        assert f'href="/games/{slug}/">Rules and starter bot</a>' in page
        assert f'href="/games/{slug}/leaderboard/">Full leaderboard</a>' in page
    assert 'href="/tournaments/"' in page
    assert '<link rel="stylesheet" href="/static/css/pages.css">' in page


@pytest.mark.django_db
def test_the_home_page_names_every_language_a_bot_may_be_written_in(client):
    from bots.pages.forms import language_choices

    page = client.get("/").content.decode()
    sentence = " ".join(page.split("write a bot in", 1)[1].split(", try it", 1)[0].split())
    # exactly what the upload form offers ("C++ (.cpp)"...), in its order: "A, B or C" (no
    # language named here: a language is one package)
    offered = [label.split(" (")[0] for _, label in language_choices()]
    assert len(offered) >= 2
    assert sentence == ", ".join(offered[:-1]) + " or " + offered[-1]


@pytest.mark.django_db
def test_it_links_each_leader_to_its_bot_page(client):
    from django.contrib.auth import get_user_model

    from bots.models import Bot, LeaderboardRow

    owner = get_user_model().objects.create_user("dora", password="x" * 12)
    bot = Bot.objects.create(owner=owner, game="last-card", name="shedder", language="python")
    LeaderboardRow.objects.create(bot=bot, game="last-card", rank=1, mu=30, sigma=2,
                                  conservative=24, matches=12, score={"score": 3.1})  # fmt: skip
    page = client.get("/").content.decode()
    assert f'<a class="bot-name" href="/bots/{bot.pk}/">shedder</a>' in page


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
def test_it_serves_the_page_scripts_and_styles(client):
    for path, needle in (
        ("/static/css/pages.css", b"aria-sort"),
        ("/static/js/sortable.js", b"aria-sort"),
        ("/static/js/tournament.js", b"progress"),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert needle in b"".join(response.streaming_content), path


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
def test_it_sends_browsers_asking_for_favicon_ico_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.svg"
