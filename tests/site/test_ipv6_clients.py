"""An IPv6 client is its /64, for every per-address limit of the site: a home or a phone is
given a whole /64 and may use any address of it, so counting each address apart would give
it as many places as it likes. An IPv4-mapped IPv6 address is its IPv4 address
(``cardsite.accounts.client_ip``, docs/accounts.md)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, RequestFactory

from bots.models import PlaygroundRun
from cardsite.accounts import client_ip, network_of
from games.live.tables import address_key
from games.models import SolveJob
from tests.playground.test_pages import post as run_in_playground
from tests.site.test_accounts import PASSWORD, fail_login, good_login, signup_data
from tests.site.test_explorer_shares import ask as ask_a_solve

#: five addresses of one /64, and one of the /64 next to it
ONE_64 = [f"2001:db8:1:2::{n}" for n in range(1, 6)]
SAME_64_FAR = "2001:db8:1:2:ffff:ffff:ffff:fffe"
OTHER_64 = "2001:db8:1:3::1"


@pytest.fixture
def fresh_counters(db):
    """The sign-up and log-in counters live in the cache, which outlives a test's database."""
    cache.clear()
    yield
    cache.clear()


with_counters = pytest.mark.usefixtures("fresh_counters")


@pytest.mark.parametrize(
    ("address", "counted"),
    [
        ("2001:db8:1:2::1", "2001:db8:1:2::"),
        (SAME_64_FAR, "2001:db8:1:2::"),
        ("2001:DB8:1:2:0:0:0:7", "2001:db8:1:2::"),
        (OTHER_64, "2001:db8:1:3::"),
        ("fe80::1%eth0", "fe80::"),
        ("::ffff:192.0.2.1", "192.0.2.1"),  # IPv4 reached over an IPv6 socket
        ("192.0.2.1", "192.0.2.1"),
        ("", ""),  # not known
    ],
)
def test_an_ipv6_address_is_counted_as_its_64(address, counted):
    assert network_of(address) == counted
    request = RequestFactory().get("/", REMOTE_ADDR=address)
    assert client_ip(request) == counted


def test_a_forwarded_ipv6_address_is_its_64_too(settings):
    settings.TRUSTED_PROXIES = 1
    forwarded = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="2001:db8:1:2::5"
    )
    assert client_ip(forwarded) == "2001:db8:1:2::"
    mapped = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="::ffff:203.0.113.9"
    )
    assert client_ip(mapped) == "203.0.113.9"
    # the keyed hash guests are counted by is the same for every address of the /64
    assert address_key(client_ip(forwarded)) == address_key(network_of(SAME_64_FAR))


@with_counters
def test_sign_ups_from_one_64_share_its_limit(settings):
    settings.SIGNUP_LIMIT = 2
    for n, address in enumerate(ONE_64[:2]):
        made = Client(REMOTE_ADDR=address).post("/accounts/signup/", signup_data(f"u{n}"))
        assert made.status_code == 302
    refused = Client(REMOTE_ADDR=ONE_64[2]).post("/accounts/signup/", signup_data("u2"))
    assert refused.status_code == 429
    assert "Too many sign-up attempts from your network." in refused.content.decode()
    assert not User.objects.filter(username="u2").exists()
    # another /64 is another network
    other = Client(REMOTE_ADDR=OTHER_64).post("/accounts/signup/", signup_data("u2"))
    assert other.status_code == 302


@with_counters
def test_guesses_from_one_64_lock_the_username_there(client):
    User.objects.create_user("alice", password=PASSWORD)
    statuses = [
        fail_login(Client(REMOTE_ADDR=f"2001:db8:1:2::{n + 1:x}")).status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert statuses[-1] == 429
    # the right password from yet another address of that /64 is refused too
    assert good_login(Client(REMOTE_ADDR=SAME_64_FAR)).status_code == 429
    # what django-axes keeps (and the admin lists) is the /64, as its first address
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"2001:db8:1:2::"}
    # the owner, on another network, logs in
    assert good_login(Client(REMOTE_ADDR=OTHER_64)).status_code == 302


@with_counters
def test_one_guess_at_many_accounts_from_one_64_pauses_it(settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    for n in range(4):
        sprayer = Client(REMOTE_ADDR=f"2001:db8:1:2::{n + 10:x}")
        assert fail_login(sprayer, f"user{n}").status_code == 200
    paused = fail_login(Client(REMOTE_ADDR=SAME_64_FAR), "user99")
    assert paused.status_code == 429
    assert "Too many failed log-in attempts from your address." in paused.content.decode()
    assert fail_login(Client(REMOTE_ADDR=OTHER_64), "user99").status_code == 200


@with_counters
def test_guest_playground_runs_from_one_64_share_its_limit(settings):
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 2
    for address in ONE_64[:2]:
        assert run_in_playground(Client(REMOTE_ADDR=address)).status_code == 302
    for address in ONE_64[2:]:
        refused = run_in_playground(Client(REMOTE_ADDR=address))
        assert refused.status_code == 429
        assert "Guests from your address have 2 runs queued or running" in (
            refused.content.decode()
        )
    assert run_in_playground(Client(REMOTE_ADDR=OTHER_64)).status_code == 302
    kept = set(PlaygroundRun.objects.values_list("guest_address", flat=True))
    assert kept == {address_key("2001:db8:1:2::"), address_key("2001:db8:1:3::")}


@with_counters
def test_guest_solves_from_one_64_share_its_share(settings):
    settings.SOLVE_MAX_OPEN = 8
    for n, address in zip((10, 20), ONE_64, strict=False):
        assert ask_a_solve(Client(REMOTE_ADDR=address), n, "kuhn").status_code == 303
    assert ask_a_solve(Client(REMOTE_ADDR=ONE_64[2]), 30, "kuhn").status_code == 429
    assert ask_a_solve(Client(REMOTE_ADDR=OTHER_64), 40, "kuhn").status_code == 303
    assert SolveJob.objects.count() == 3
