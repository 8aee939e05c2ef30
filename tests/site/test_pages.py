"""The pages there are so far: home and the health check."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_it_shows_the_games_on_the_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "RPS Poker" in page
    assert "builtin:strong" in page
    assert "manage.py arena --game rps-poker" in page


@pytest.mark.django_db
def test_it_answers_the_health_check_from_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}


def test_it_serves_the_stylesheet(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert b"--felt" in b"".join(response.streaming_content)


def test_it_refuses_an_unknown_host(client):
    assert client.get("/", HTTP_HOST="evil.example").status_code == 400
