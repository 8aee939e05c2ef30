"""A tournament's matches are played with the game's options it was started with
(``start_tournament --option num_cards=6``), checked and named in errors as the arena's."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from bots.competition.uploads import activate
from bots.models import Bot, BotVersion, Match, MatchJob, Tournament
from bots.worker import Options, Worker
from games.registry import get_game


def goofspiel_bot(owner, name: str) -> BotVersion:
    code = get_game("goofspiel").builtin_path(name).read_text()
    bot = Bot.objects.create(owner=owner, game="goofspiel", name=name, language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return version


def test_a_tournament_plays_with_the_options_it_was_started_with(alice, bob):
    goofspiel_bot(alice, "matching")
    goofspiel_bot(bob, "random")
    MatchJob.objects.all().delete()  # the placements: the tournament is the test
    out = io.StringIO()
    call_command("start_tournament", "--game", "goofspiel", "--rounds", "1", "--seed", "3",
                 "--option", "num_cards=5", "--option", "deals=2", stdout=out)  # fmt: skip
    assert out.getvalue().strip().endswith("(seed 3, num_cards=5, deals=2)")
    tournament = Tournament.objects.get(format=Tournament.ROUND_ROBIN)
    assert tournament.settings["options"] == {"num_cards": 5, "deals": 2}
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 2
    for match in Match.objects.all():
        record = match.record
        assert record["config"] == {"num_cards": 5, "deals": 2, "returns_type": "win_loss"}
        assert record["result"]["deals"] == 2


def test_a_tournaments_option_refused_is_named(db):
    with pytest.raises(CommandError) as refused:
        call_command("start_tournament", "--game", "goofspiel", "--option", "deals=0")
    assert str(refused.value) == (
        "--option: goofspiel: deals takes a whole number from 1 to 1000, not 0"
    )
    with pytest.raises(CommandError, match="^--option: kuhn: hands takes an even number"):
        call_command("start_tournament", "--game", "kuhn", "--option", "hands=7")
    assert not Tournament.objects.exists()
