"""Sign-up and log-in follow a ``next`` only when it is a path of the site (a bare word made
the sign-up answer 500 after making the account), and no one may sign up with a guest's name."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

PASSWORD = "correct-Horse-battery-9"
GUEST_NAMES = "Usernames starting with “guest-” are kept for guests at tables."


pytestmark = pytest.mark.usefixtures("fresh_counters")


def signup(client: Client, username: str, next_url: str | None = None):
    data = {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    if next_url is not None:
        data["next"] = next_url
    return client.post("/accounts/signup/", data)


@pytest.mark.django_db
@pytest.mark.parametrize("wanted", ["welcome", "0", "-1", "ü", "//evil.example/", "http:x"])
def test_a_sign_up_with_a_next_that_is_no_path_goes_to_ones_bots_signed_in(client, wanted):
    response = signup(client, "bob", wanted)
    assert response.status_code == 302
    assert response["Location"] == "/my/bots/"
    assert User.objects.get(pk=client.session["_auth_user_id"]).username == "bob"
    # and, signed in, the sign-up page sends them on the same way
    again = client.get("/accounts/signup/", {"next": wanted})
    assert again.status_code == 302
    assert again["Location"] == "/my/bots/"


@pytest.mark.django_db
def test_a_sign_up_follows_a_path_of_the_site(client):
    response = signup(client, "bob", "/games/kuhn/")
    assert response["Location"] == "/games/kuhn/"


@pytest.mark.django_db
@pytest.mark.parametrize("wanted", ["welcome", "0", "//evil.example/"])
def test_a_log_in_with_a_next_that_is_no_path_goes_to_ones_bots(wanted):
    User.objects.create_user("alice", password=PASSWORD)
    client = Client()
    page = client.get("/accounts/login/", {"next": wanted}).content.decode()
    assert 'name="next"' not in page
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": wanted}
    )
    assert response.status_code == 302
    assert response["Location"] == "/my/bots/"


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["guest-3f2a1", "Guest-abcde", "GUEST-x"])
def test_no_one_signs_up_with_a_guests_name(client, username):
    response = signup(client, username)
    assert response.status_code == 200
    assert GUEST_NAMES in response.content.decode()
    assert not User.objects.filter(username=username).exists()


@pytest.mark.django_db
def test_a_name_with_guest_further_in_is_fine_and_old_guest_named_accounts_still_log_in(client):
    assert signup(client, "my-guest-3f2a1").status_code == 302
    User.objects.create_user("guest-00000", password=PASSWORD)  # made before the rule
    other = Client()
    answer = other.post("/accounts/login/", {"username": "guest-00000", "password": PASSWORD})
    assert answer.status_code == 302
