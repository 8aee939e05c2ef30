"""The error pages (cardsite/errors.py, templates/error.html and 500.html): in the site's frame,
saying what was wrong, with links back; JSON under /api/ and for .json addresses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.urls import path
from django.views import defaults

from cardsite import errors

ROOT = Path(__file__).resolve().parents[2]
FRAME = ('<header class="top">', '<nav class="nav" aria-label="Main">', '<footer class="foot">')


def assert_site_page(response, status: int, sentence: str, *links: str) -> str:
    assert response.status_code == status
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page = response.content.decode()
    for part in FRAME:
        assert part in page
    assert "/static/css/site.css" in page
    assert f"Error {status}" in page
    assert sentence in page, page
    assert '<a href="/">Home: every game</a>' in page
    for link in links:
        assert f'<a href="{link}">' in page, link
    return page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "sentence", "links"),
    [
        ("/bots/999999/", "There is no bot number 999999 on Card Arena.", ["/leaderboards/"]),
        ("/bots/999999/versions/", "There is no bot number 999999", ["/my/bots/"]),
        (
            "/matches/999999/",
            "There is no match number 999999 on Card Arena.",
            ["/tournaments/", "/leaderboards/", "/tables/"],
        ),
        ("/people/nobody/", "Nobody is called “nobody” on Card Arena.", ["/leaderboards/"]),
        ("/tournaments/999999/", "There is no tournament number 999999", ["/tournaments/"]),
        ("/no/such/page/", "There is no page at /no/such/page/ on Card Arena.", ["/tables/"]),
        ("/games/chess/", "No game &#x27;chess&#x27;.", ["/leaderboards/"]),
        ("/tables/nosuchtable/", "There is no live table at this address.", ["/tables/"]),
    ],
)
def test_a_missing_page_says_what_is_missing_in_the_sites_frame(path, sentence, links, settings):
    assert not settings.DEBUG  # Django uses the handlers only then
    page = assert_site_page(Client().get(path), 404, sentence, *links)
    assert "<title>Not found · Card Arena</title>" in page


@pytest.mark.django_db
def test_a_missing_page_shows_who_is_signed_in():
    client = Client()
    client.force_login(get_user_model().objects.create_user("ada", password="x" * 12))
    page = assert_site_page(client.get("/bots/999999/"), 404, "no bot number 999999")
    assert ">ada</a>" in page and "Log out" in page


@pytest.mark.django_db
def test_the_uth_peoples_leaderboard_is_an_html_400_saying_why():
    page = assert_site_page(
        Client().get("/games/uth/leaderboard/?show=people"),
        400,
        "people are not rated in it, so its leaderboard shows bots only.",
        "/leaderboards/",
        "/games/uth/leaderboard/",  # the page without the query
    )
    assert "<title>Bad request · Card Arena</title>" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/?after=x",
        "/games/rps-poker/leaderboard/?show=everyone",
        "/people/nobody/?game=chess",
    ],
)
def test_a_bad_address_of_an_html_page_gets_the_sites_400(path):
    if path.startswith("/people/"):
        get_user_model().objects.create_user("nobody", password="x" * 12)
    assert_site_page(Client().get(path), 400, "")


@pytest.mark.django_db
def test_only_the_owner_may_hide_a_profile_says_an_html_403():
    get_user_model().objects.create_user("ada", password="x" * 12)
    response = Client().post("/people/ada/visibility/", {"hidden": "1"})
    assert_site_page(response, 403, "Only the person whose profile it is may hide it")


@pytest.mark.django_db
def test_a_get_of_a_post_only_address_gets_the_sites_405_page():
    ada = get_user_model().objects.create_user("ada", password="x" * 12)
    client = Client()
    client.force_login(ada)
    response = client.get("/people/ada/visibility/")
    assert_site_page(response, 405, "it is not a page to open from a link, a bookmark", "/")
    assert response["Allow"] == "POST"
    assert "Not a page to open" in response.content.decode()
    # another method than the one taken is named
    response = client.put("/people/ada/visibility/")
    assert_site_page(response, 405, "This address does not take a PUT request.")


def test_a_refusal_offers_a_way_to_log_in():
    request = RequestFactory().get("/my/bots/7/retire/")
    response = errors.permission_denied(request, PermissionDenied())
    page = assert_site_page(response, 403, "This page is not yours to see or change.", "/my/bots/")
    assert '<a href="/accounts/login/?next=%2Fmy%2Fbots%2F7%2Fretire%2F">Log in</a>' in page


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
def test_a_request_for_an_unknown_host_gets_the_sites_400(client):
    response = client.get("/", HTTP_HOST="evil.example")
    page = assert_site_page(response, 400, "The site could not understand this request.")
    assert "evil.example" not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/api/bots/999999/", "/api/no/such/endpoint/", "/matches/999999/record.json"]
)
def test_json_addresses_keep_json_errors(path):
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]


def test_the_500_page_needs_no_database_and_no_request():
    # no django_db mark: a query would raise
    response = defaults.server_error(RequestFactory().get("/"))
    page = assert_site_page(response, 500, "Something went wrong on the site", "/leaderboards/")
    assert "{%" not in page and "{{" not in page


def broken(request):
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken)]


@pytest.mark.backends  # the middleware reads the cache (Redis in the second half)
@pytest.mark.urls(__name__)  # a URL map with none of the site's names: the page reverses none
def test_a_view_that_fails_gets_the_500_page():
    response = Client(raise_request_exception=False).get("/broken/")
    assert_site_page(response, 500, "Something went wrong on the site")


def test_every_error_template_is_on_the_sites_side_of_the_policy():
    templates = ROOT / "templates"
    names = [*sorted(p.name for p in templates.glob("[0-9][0-9][0-9].html")), "error.html"]
    assert {"400.html", "403.html", "404.html", "405.html", "500.html"} <= set(names)
    for name in names:
        text = (templates / name).read_text()
        assert not re.search(r"<script|<style|\sstyle\s*=|\son\w+\s*=", text, re.I), name
