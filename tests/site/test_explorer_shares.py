"""The strategy explorer's queue is shared out: besides the site-wide cap (``SOLVE_MAX_OPEN``),
one signed-in person, and all the guests of one client address together, may have only so
many solves waiting or running (``SOLVE_MAX_OPEN_PER_PERSON``,
``SOLVE_MAX_OPEN_PER_GUEST_ADDRESS``), each refusal saying which."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games import solves
from games.live.tables import address_key
from games.models import SolveJob
from games.solves import SolveSettings

pytestmark = pytest.mark.django_db

GUESTS = (
    "Guests from your address have 2 solves waiting or running, the most at once (2); you can "
    "ask for another when one of them ends, or sign in (signed-in people have a share of "
    "their own)."
)
PERSON = (
    "You have 2 solves waiting or running, the most one person may have at once (2); you can "
    "ask for another when one of them ends (a solve someone already ran answers at once)."
)


def ask(client: Client, iterations: int, game: str = "blackjack-pp"):
    fields = {"game": game, "algorithm": "cfr+", "iterations": str(iterations)}
    if game == "blackjack-pp":
        fields |= {"up0": "6", "up1": "6", "up2": "2", "max_hits": "1"}
    return client.post("/solver/", fields)


def test_fresh_guest_sessions_of_one_address_share_two_open_solves(settings):
    settings.SOLVE_MAX_OPEN = 8
    for n in (10, 20):  # a new client (no cookies) each time, from one address
        assert ask(Client(REMOTE_ADDR="203.0.113.5"), n, "kuhn").status_code == 303
    refused = ask(Client(REMOTE_ADDR="203.0.113.5"), 30, "kuhn")
    assert refused.status_code == 429 and refused["Retry-After"] == "30"
    page = refused.content.decode().replace("&#x27;", "'")
    assert f'<div class="form-alert" role="alert"><p>{GUESTS}</p></div>' in page
    assert SolveJob.objects.count() == 2
    # the address kept is a keyed hash, as live tables keep it
    assert set(SolveJob.objects.values_list("asked_from", flat=True)) == {
        address_key("203.0.113.5")
    }
    # a solve already queued (by anyone) is no new one: it answers
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 10, "kuhn").status_code == 303
    # another address has its own share; the site's cap still holds for all
    assert ask(Client(REMOTE_ADDR="198.51.100.1"), 40, "kuhn").status_code == 303
    # one ends: the address may ask again
    SolveJob.objects.filter(iterations=10).update(status=SolveJob.DONE)
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 50, "kuhn").status_code == 303


def test_a_signed_in_person_has_a_share_of_their_own(settings):
    settings.SOLVE_MAX_OPEN = 8
    alice = User.objects.create_user("alice", password="pw-alice-1")
    client = Client(REMOTE_ADDR="203.0.113.5")
    client.force_login(alice)
    for n in (10, 20):
        assert ask(client, n, "kuhn").status_code == 303
    refused = ask(client, 30, "kuhn")
    assert refused.status_code == 429
    assert PERSON in refused.content.decode().replace("&#x27;", "'")
    # the guests of the same address are not held back by her solves
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 40, "kuhn").status_code == 303
    assert SolveJob.objects.filter(asked_by=alice).count() == 2


def test_eight_solves_from_one_client_no_longer_take_every_place(settings):
    """The audit's case: one client asking for 8 Blackjack++ solves took all 8 places."""
    settings.SOLVE_MAX_OPEN = 8
    answers = [ask(Client(REMOTE_ADDR="203.0.113.5"), 10 + n).status_code for n in range(8)]
    assert answers == [303, 303] + [429] * 6
    assert ask(Client(REMOTE_ADDR="198.51.100.1"), 100).status_code == 303


def test_the_site_wide_cap_still_holds(settings):
    settings.SOLVE_MAX_OPEN = 2
    for n, address in enumerate(["192.0.2.1", "192.0.2.2"]):
        assert ask(Client(REMOTE_ADDR=address), 10 + n, "kuhn").status_code == 303
    busy = ask(Client(REMOTE_ADDR="192.0.2.3"), 30, "kuhn")
    assert busy.status_code == 429
    assert "The solver is busy: 2 solves are waiting or running" in busy.content.decode()


def test_submit_counts_the_share_before_the_sites_cap(settings):
    bounds = solves.Bounds(max_open=8, per_person=1, per_guest_address=1)
    solves.submit(SolveSettings("kuhn", "cfr+", 10), bounds, guest_address="h")
    with pytest.raises(solves.OverShare) as refused:
        solves.submit(SolveSettings("kuhn", "cfr+", 20), bounds, guest_address="h")
    assert str(refused.value).startswith("Guests from your address have 1 solve waiting")
    # a solve queued by no one in particular (a match review's) counts for no one's share
    solves.submit(SolveSettings("kuhn", "cfr+", 30), bounds)
    assert SolveJob.objects.count() == 2
