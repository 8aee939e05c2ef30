"""The pause of an address's log-ins (too many failures, whatever the usernames) holds on
every log-in path, the admin's too, and every failed log-in counts towards it, wherever it
was made: the admin's log-in page used to take guesses without end from a paused address."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

PASSWORD = "correct-Horse-battery-9"
PAUSED = "Too many failed log-in attempts from your address."


pytestmark = pytest.mark.usefixtures("fresh_counters")


@pytest.fixture
def boss(db) -> User:
    return User.objects.create_user("boss", password=PASSWORD, is_staff=True, is_superuser=True)


def site_login(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def admin_login(client: Client, username: str, password: str):
    return client.post(
        "/admin/login/", {"username": username, "password": password, "next": "/admin/"}
    )


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.django_db
def test_the_admin_log_in_refuses_an_address_paused_at_the_site_log_in(boss):
    sprayer = Client(REMOTE_ADDR="192.0.2.70")
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        assert site_login(sprayer, f"user{n}", "wrong").status_code == 200
    assert site_login(sprayer, "boss", PASSWORD).status_code == 429
    # the admin's page: refused too, the right password of a staff account included
    answer = admin_login(sprayer, "boss", PASSWORD)
    assert answer.status_code == 429
    assert PAUSED in answer.content.decode()
    assert answer["Retry-After"] == "900"
    assert not logged_in(sprayer)
    # the staff, from their own address, logs in
    own = Client(REMOTE_ADDR="198.51.100.30")
    assert admin_login(own, "boss", PASSWORD).status_code == 302
    assert logged_in(own)


@pytest.mark.django_db
def test_failures_at_the_admin_log_in_count_towards_the_pause(boss):
    sprayer = Client(REMOTE_ADDR="192.0.2.71")
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        assert admin_login(sprayer, f"user{n}", "wrong").status_code == 200
    assert admin_login(sprayer, "boss", PASSWORD).status_code == 429
    paused = site_login(sprayer, "boss", PASSWORD)
    assert paused.status_code == 429
    assert PAUSED in paused.content.decode()
    assert not logged_in(sprayer)


@pytest.mark.django_db
def test_a_failure_at_the_site_log_in_counts_once(boss):
    # each failure is counted on the signal only: the limit's last failure is still answered
    someone = Client(REMOTE_ADDR="192.0.2.72")
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        assert site_login(someone, f"user{n}", "wrong").status_code == 200
    assert site_login(someone, "user99", "wrong").status_code == 429


@pytest.mark.django_db
def test_any_authenticate_from_a_paused_address_is_refused_and_not_counted_again(boss):
    sprayer = Client(REMOTE_ADDR="192.0.2.73")
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        site_login(sprayer, f"user{n}", "wrong")
    request = RequestFactory().post("/elsewhere/", REMOTE_ADDR="192.0.2.73")
    assert authenticate(request, username="boss", password=PASSWORD) is None
    elsewhere = RequestFactory().post("/elsewhere/", REMOTE_ADDR="198.51.100.31")
    assert authenticate(elsewhere, username="boss", password=PASSWORD) == boss
    # the refusals were not failures of their own: the pause still ends when it said
    answer = site_login(sprayer, "boss", PASSWORD)
    assert answer.status_code == 429
    assert answer["Retry-After"] == "900"
