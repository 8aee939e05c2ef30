"""The strategy explorer's queue is shared out: besides the site-wide cap (``SOLVE_MAX_OPEN``),
one signed-in person, and all the guests of one client address together, may have only so
many solves waiting or running (``SOLVE_MAX_OPEN_PER_PERSON``,
``SOLVE_MAX_OPEN_PER_GUEST_ADDRESS``: the solves a match review they open asks for
included), and ask for only so many new ones an hour (``SOLVE_MAX_NEW_PER_HOUR``), each
refusal saying which; and the store of finished solves is shared out too: one asker's
beyond their ``SOLVE_KEEP_PER_ASKER`` most recent go first, and the form's recent solves
list at most two of one asker's."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from games import solves
from games.live.tables import address_key
from games.models import SolveJob
from games.solves import SolveSettings
from tests.site.test_explorer import work
from tests.site.test_match_review import blackjack_match, stored

pytestmark = pytest.mark.django_db

GUESTS = (
    "Guests from your address have 2 solves waiting or running, the most at once (2); you can "
    "ask for another when one of them ends, or log in (logged-in people have a share of "
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


# ------------------------------------------------- a match review's solves are the viewer's
def test_a_guest_opening_a_review_and_asking_for_solves_no_longer_fills_the_queue(settings):
    """The audit's case: one guest opened a Blackjack++ match page, whose review queued 6
    solves that were nobody's, then asked for 2 of their own: all 8 places. The review's
    solves are now charged to the viewer, within their share."""
    settings.SOLVE_MAX_OPEN = 8
    match = blackjack_match(max_hits=1)  # 4 deals of different up cards
    guest = Client(REMOTE_ADDR="203.0.113.5")
    page = html.unescape(guest.get(f"/matches/{match.pk}/?review=0").content.decode())
    queued = SolveJob.objects.filter(status=SolveJob.QUEUED)
    assert queued.count() == 2
    assert set(queued.values_list("asked_from", "for_review")) == {
        (address_key("203.0.113.5"), True)
    }
    # the deals left say why they wait, and the page keeps updating
    assert page.count("max hits 1): waits its turn.</li>") == 2
    assert (
        "<p data-review-held>A solve that waits its turn is asked for when one of yours ends: "
        "guests from your address have 2 solves waiting or running, the most at once (2).</p>"
    ) in page
    assert "data-review-pending" in page
    # the guest's own asking meets the same share, which says what holds it
    refused = ask(Client(REMOTE_ADDR="203.0.113.5"), 10, "kuhn")
    assert refused.status_code == 429
    assert (
        "Guests from your address have 2 solves waiting or running (for match reviews opened "
        "from your address), the most at once (2); you can ask for another when one of them "
        "ends, or log in (logged-in people have a share of their own)."
    ) in html.unescape(refused.content.decode())
    # the rest of the queue is everyone else's
    assert ask(Client(REMOTE_ADDR="198.51.100.1"), 10, "kuhn").status_code == 303
    # a signed-in viewer of the same review is charged for the solves their view queues
    alice = User.objects.create_user("alice", password="pw-alice-1")
    viewer = Client(REMOTE_ADDR="203.0.113.5")
    viewer.force_login(alice)
    viewer.get(f"/matches/{match.pk}/?review=0")
    assert SolveJob.objects.filter(asked_by=alice, for_review=True).count() == 2
    assert SolveJob.objects.filter(status=SolveJob.QUEUED).count() == 5
    # one ends: the guest's next view asks for nothing more (every deal is asked for), and
    # their share is free again for the form
    first = queued.filter(asked_from=address_key("203.0.113.5")).first()
    SolveJob.objects.filter(pk=first.pk).update(status=SolveJob.FAILED)
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 10, "kuhn").status_code == 303


def test_a_review_held_by_the_viewers_share_says_so_for_its_one_solve(settings, client):
    settings.SOLVE_MAX_OPEN = 8
    for n in (10, 20):  # the guest's share, taken in the explorer
        assert ask(client, n, "kuhn").status_code == 303
    match = stored()
    page = html.unescape(client.get(f"/matches/{match.pk}/").content.decode())
    assert (
        '<p data-solve-state="held">Not solved yet: guests from your address have 2 solves '
        "waiting or running, the most at once (2); this review's solve is asked for when one "
        "of them ends.</p>"
    ) in page
    assert SolveJob.objects.count() == 2
    review = SolveJob.objects.filter(for_review=True)
    SolveJob.objects.filter(iterations=10).update(status=SolveJob.DONE)
    client.get(f"/matches/{match.pk}/")  # the page's next update asks for it
    assert review.count() == 1


# ------------------------------------------------------------ new solves an hour, per asker
HOURLY_GUESTS = (
    "Guests from your address have asked for 3 new solves in the last hour, the most an hour "
    "(3); you can ask for another in {}, or log in (logged-in people have a count of their "
    "own)."
)


def test_one_address_may_ask_for_so_many_new_solves_an_hour(settings):
    """The audit's flood: one guest sent 106 Kuhn solves in 89 s, each taking its place as the
    one before ended. Now an address asks for so many an hour (``SOLVE_MAX_NEW_PER_HOUR``),
    counted from the rows, so every web process counts the same."""
    settings.SOLVE_MAX_NEW_PER_HOUR = 3
    for n in (1, 2, 3):  # each ends before the next: the open share never stops them
        assert ask(Client(REMOTE_ADDR="203.0.113.5"), n, "kuhn").status_code == 303
        SolveJob.objects.update(status=SolveJob.DONE)
    refused = ask(Client(REMOTE_ADDR="203.0.113.5"), 4, "kuhn")
    assert refused.status_code == 429
    assert 3540 <= int(refused["Retry-After"]) <= 3600
    said = html.unescape(refused.content.decode())
    assert f'<div class="form-alert" role="alert"><p>{HOURLY_GUESTS.format("60 minutes")}' in said
    assert SolveJob.objects.count() == 3
    # a solve already there is no new one; another address has a count of its own
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 2, "kuhn").status_code == 303
    assert ask(Client(REMOTE_ADDR="198.51.100.1"), 4, "kuhn").status_code == 303
    # the solves a match review asks for are not counted (they are the deals' of stored
    # matches, each solved once for every review)
    match = stored()
    Client(REMOTE_ADDR="203.0.113.5").get(f"/matches/{match.pk}/")
    assert SolveJob.objects.filter(for_review=True, asked_from=address_key("203.0.113.5"))
    # when the first leaves the hour, the next may be asked for
    first = SolveJob.objects.get(iterations=1)
    SolveJob.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(minutes=50))
    said = html.unescape(ask(Client(REMOTE_ADDR="203.0.113.5"), 5, "kuhn").content.decode())
    assert HOURLY_GUESTS.format("10 minutes") in said
    SolveJob.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(minutes=61))
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 5, "kuhn").status_code == 303


def test_a_signed_in_person_has_an_hourly_count_of_their_own(settings):
    settings.SOLVE_MAX_NEW_PER_HOUR = 1
    alice = User.objects.create_user("alice", password="pw-alice-1")
    client = Client(REMOTE_ADDR="203.0.113.5")
    client.force_login(alice)
    assert ask(client, 1, "kuhn").status_code == 303
    refused = ask(client, 2, "kuhn")
    assert refused.status_code == 429
    assert (
        "You have asked for 1 new solve in the last hour, the most one person may (1 an "
        "hour); you can ask for another in 60 minutes (a solve someone already ran answers at "
        "once)."
    ) in html.unescape(refused.content.decode())
    # the guests of her address are not held back by her count
    assert ask(Client(REMOTE_ADDR="203.0.113.5"), 2, "kuhn").status_code == 303


# -------------------------------------------------------------- the store and recent solves
def finished(count: int, *, user=None, address: str = "", start: int = 1) -> list[SolveJob]:
    """``count`` done Kuhn solves asked for by ``user`` or from ``address``, each used after
    the one before."""
    made = []
    for n in range(start, start + count):
        job = solves.submit(
            SolveSettings("kuhn", "cfr", n),
            solves.Bounds(max_open=999, per_person=999, per_guest_address=999, new_per_hour=999),
            user=user,
            guest_address=address,
        )
        SolveJob.objects.filter(pk=job.pk).update(
            status=SolveJob.DONE, used=timezone.now() + timedelta(seconds=n)
        )
        made.append(job)
    return made


def test_one_askers_flood_forgets_their_own_solves_not_everyone_elses(settings):
    """The audit's case: 106 solves of one guest pushed another person's finished Leduc solve
    out of the store (the last 100 used are kept). Beyond an asker's ``SOLVE_KEEP_PER_ASKER``
    most recent, their solves go first."""
    alice = User.objects.create_user("alice", password="pw-alice-1")
    (hers,) = finished(1, user=alice, start=500)
    SolveJob.objects.filter(pk=hers.pk).update(used=timezone.now() - timedelta(hours=3))
    flood = finished(106, address=address_key("203.0.113.6"))
    assert solves.forget_old(100, per_asker=20) == 7
    assert SolveJob.objects.filter(pk=hers.pk).exists()
    # the flood's oldest went; its newest are kept
    assert not SolveJob.objects.filter(pk__in=[job.pk for job in flood[:7]]).exists()
    assert SolveJob.objects.filter(pk__in=[job.pk for job in flood[7:]]).count() == 99
    # within the asker shares, the least recently used go first, as before
    settings.SOLVE_KEEP_PER_ASKER = 200
    assert solves.forget_old(50) == 50
    assert not SolveJob.objects.filter(pk=hers.pk).exists()


def test_the_worker_forgets_by_the_asker_shares_and_the_victims_page_stays(client, settings):
    """Through the site: a person's finished solve, then a guest's many; the worker's
    forgetting (``SOLVE_KEEP``, ``SOLVE_KEEP_PER_ASKER``) keeps the person's page."""
    settings.SOLVE_KEEP, settings.SOLVE_KEEP_PER_ASKER = 4, 2
    alice = User.objects.create_user("alice", password="pw-alice-1")
    person = Client(REMOTE_ADDR="198.51.100.1")
    person.force_login(alice)
    hers = ask(person, 20, "kuhn")["Location"]
    work()
    for n in range(1, 7):
        assert ask(Client(REMOTE_ADDR="203.0.113.6"), n, "kuhn").status_code == 303
        work()
    assert person.get(hers).status_code == 200
    assert SolveJob.objects.count() == 4
    # the form page lists at most two of one asker's solves
    page = client.get("/solver/").content.decode()
    listed = re.findall(r'<li><a href="/solver/jobs/([0-9a-f]+)/">', page)
    assert len(listed) == 3 and hers.rstrip("/").rsplit("/", 1)[1] in listed
    assert "at most 2 of one person's (or one address's)" in page


def test_recent_solves_show_at_most_two_of_one_asker():
    alice = User.objects.create_user("alice", password="pw-alice-1")
    finished(5, address="h1")
    finished(3, user=alice, start=100)
    finished(1, start=200)  # nobody's (a command, an older review)
    shown = solves.recent()
    by = [(job.asked_by_id, job.asked_from) for job in shown]
    assert sorted(by, key=str) == sorted(
        [(None, ""), (alice.pk, ""), (alice.pk, ""), (None, "h1"), (None, "h1")], key=str
    )
    # the most recently used of each
    assert [job.iterations for job in shown if job.asked_from == "h1"] == [5, 4]
    assert len(solves.recent(count=2)) == 2
