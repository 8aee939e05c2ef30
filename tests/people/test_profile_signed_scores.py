"""A person's profile lists their rated matches with each opponent's score after its name:
in a chip game (Kuhn poker, Leduc hold'em, Blackjack++) a gain or a loss, written as the
table's end writes it ("+1", a loss with the minus sign), not "1" for a gain of one chip."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bots.models import HOUSE, Bot
from games.engine.written import MINUS
from tests.people.helpers import make_user, rated_match

pytestmark = pytest.mark.django_db


def opponents_scores(text: str) -> list[str]:
    table = text[text.index('id="recent"') :]
    return re.findall(r'<span class="muted">\(([^)]*)\)</span>', table)


def test_a_chip_games_opponent_score_is_signed_as_a_gain_or_a_loss():
    house, _ = User.objects.get_or_create(username=HOUSE)
    cfr = Bot.objects.create(owner=house, game="kuhn", name="cfr", language="python")
    ann = make_user("ann")
    rated_match(ann, cfr, score=-1, their=1, game="kuhn")
    rated_match(ann, cfr, score=2, their=-2, game="kuhn")
    text = Client().get("/people/ann/?game=kuhn").content.decode()
    assert "Against (their chips won)" in text
    assert opponents_scores(text) == [f"{MINUS}2", "+1"]  # newest first


def test_a_game_of_points_keeps_its_plain_numbers():
    house, _ = User.objects.get_or_create(username=HOUSE)
    strong = Bot.objects.create(owner=house, game="rps-poker", name="strong", language="python")
    ann = make_user("ann")
    rated_match(ann, strong, score=3, their=7)
    text = Client().get("/people/ann/").content.decode()
    assert opponents_scores(text) == ["7"]
