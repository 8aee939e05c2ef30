"""The review's total says how many of the decisions listed it leaves out, and why: the
decisions of a folded hand, whose cards are not shown, are listed but not judged."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from games import reviews
from games.registry import get_game
from tests.site.test_match_review import opened_and_solved, stored

pytestmark = pytest.mark.django_db


def summary(page: str) -> str:
    found = re.search(r"<p class=\"review__total\" data-review-summary>(.*?)</p>", page, re.S)
    assert found is not None
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_the_total_says_how_many_decisions_of_folded_hands_it_leaves_out(client):
    user = get_user_model().objects.create_user("ann", password="pw-for-ann")
    match = stored(hands=20, user=user)
    opened_and_solved(client, match)
    record = get_game("kuhn").state_class.public_record(match.record)
    for seat in (0, 1):
        page = client.get(f"/matches/{match.pk}/?review={seat}").content.decode()
        expected = reviews.match_review("kuhn", record, seat)
        rows = expected.review.rows
        judged = len(expected.review.reviewed)
        hidden = page.count("The cards of this hand are not shown to you.")
        assert hidden == len(rows) - judged > 0
        said = summary(page)
        assert said.startswith(f"{expected.review.mistakes} mistake")
        assert f" in the {judged} decision" in said and " reviewed" in said
        fold = "decisions" if hidden > 1 else "decision"
        assert (
            f"Not reviewed: {hidden} {fold} in hand{'s' if hidden > 1 else ''} that ended in"
            " a fold (the cards of a folded hand are shown to its own player alone)."
        ) in said
    # its own player sees every card: every decision is judged, and none is said left out
    client.force_login(user)
    own = summary(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    assert "Not reviewed" not in own and " reviewed" not in own
    assert re.match(r"\d+ mistakes? in \d+ decisions?\b", own)
