"""Wrong current passwords at the password change are limited, per account and per
address: someone at a browser left signed in could guess the password without end."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

PASSWORD = "correct-Horse-battery-9"
NEW_PASSWORD = "another-Staple-42-long"
SAID = re.compile(r"Too many wrong current passwords: try again after \d\d:\d\d UTC\.")


pytestmark = pytest.mark.usefixtures("fresh_counters")


def signed_in(username: str, address: str) -> tuple[User, Client]:
    user = User.objects.filter(username=username).first() or User.objects.create_user(
        username, password=PASSWORD
    )
    client = Client(REMOTE_ADDR=address)
    client.force_login(user)
    return user, client


def change(client: Client, old: str):
    data = {"old_password": old, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    return client.post("/accounts/password/", data)


@pytest.mark.django_db
def test_wrong_current_passwords_are_limited_per_account():
    limit = settings.AXES_FAILURE_LIMIT
    assert limit == 5
    alice, here = signed_in("alice", "192.0.2.80")
    for n in range(limit):
        assert change(here, f"guess-{n}").status_code == 200
    refused = change(here, PASSWORD)  # the right one too, once past the limit
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    page = " ".join(refused.content.decode().split())
    assert SAID.search(page), page
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    # the same account from another address (another of her signed-in browsers): refused
    _, there = signed_in("alice", "198.51.100.80")
    assert change(there, PASSWORD).status_code == 429
    # another account at another address is not concerned
    _, bob = signed_in("bob", "198.51.100.81")
    assert change(bob, PASSWORD).status_code == 302


@pytest.mark.django_db
def test_wrong_current_passwords_are_limited_per_address():
    for n in range(settings.AXES_FAILURE_LIMIT):
        _, client = signed_in(f"user{n}", "192.0.2.81")
        assert change(client, "wrong").status_code == 200
    _, next_one = signed_in("carol", "192.0.2.81")
    assert change(next_one, PASSWORD).status_code == 429


@pytest.mark.django_db
def test_a_new_password_refused_for_itself_is_no_wrong_guess():
    _, client = signed_in("alice", "192.0.2.82")
    weak = {"old_password": PASSWORD, "new_password1": "123", "new_password2": "123"}
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        assert client.post("/accounts/password/", weak).status_code == 200
    assert change(client, PASSWORD).status_code == 302
