"""Real matches for the replay and match page tests: bots entered as active versions, a
tournament scheduled by ``bots.competition`` and played by the worker in the sandbox, so
the stored records are exactly what the site stores."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.db import transaction

from bots import competition
from bots.competition.uploads import activate
from bots.models import Bot, BotVersion, Match, MatchSeat, Tournament
from bots.running.playing import Entry
from bots.running.playing import play as play_entries
from bots.worker import Options, Worker
from games.registry import get_game


def builtin(game: str, name: str) -> str:
    return get_game(game).builtin_path(name).read_text()


def enter(owner_name: str, game: str, name: str, code: str) -> BotVersion:
    """An active version of a bot (no validation); its placement matches are dropped so a
    test plays only the tournament it starts."""
    owner, _ = get_user_model().objects.get_or_create(username=owner_name)
    bot, _ = Bot.objects.get_or_create(
        owner=owner, game=game, name=name, defaults={"language": "python"}
    )
    version = BotVersion.objects.create(
        bot=bot, number=bot.versions.count() + 1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    Tournament.objects.filter(format=Tournament.PLACEMENT).delete()
    return version


def builtins_of_alice_and_bob(game: str, alices: str, bobs: str) -> list[BotVersion]:
    """alice's and bob's active versions of two of the game's built-in bots, each bot named
    after its built-in."""
    return [
        enter("alice", game, alices, builtin(game, alices)),
        enter("bob", game, bobs, builtin(game, bobs)),
    ]


def play(game: str, versions: list[BotVersion], seed: int, **kwargs) -> list[Match]:
    """A round robin of ``versions`` (1 round), played to the end by a worker."""
    tournament = competition.start_round_robin(game, 1, seed=seed, versions=versions, **kwargs)
    Worker(Options(validate=False), name="replay-tests").run(batch=True)
    return list(Match.objects.filter(tournament=tournament).order_by("id"))


def live_table_match(seed: int = 9) -> Match:
    """An RPS Poker match as a live table stores it: no tournament, seat 0 the person "ann"
    (played by the built-in simple), seat 1 a guest (the built-in strong)."""
    entries = [Entry(name="ann", builtin="simple"), Entry(name="guest", builtin="strong")]
    played = play_entries(get_game("rps-poker"), entries, seed=seed)
    record = json.loads(json.dumps(played.outcome.record))
    match = Match.objects.create(game="rps-poker", seed=seed, record=record)
    ann = get_user_model().objects.create_user("ann")
    scores = record["result"]["scores"]
    MatchSeat.objects.create(match=match, seat=0, user=ann, name="ann", score=scores[0])
    MatchSeat.objects.create(match=match, seat=1, name="a guest player", score=scores[1])
    return match


#: an RPS Poker bot that writes to stderr on every move (for its owner's eyes only)
CHATTY = """
import sys


class Bot:
    def draft_pick(self, cards):
        print("SECRET-STDERR-NOTE drafting", cards, file=sys.stderr)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        print("SECRET-STDERR-NOTE playing", hand, file=sys.stderr)
        return 0

    def main_postprocess(self, card):
        pass
"""

#: an RPS Poker bot that raises in the third game of the main phase
RAISES = """
class Bot:
    def __init__(self):
        self.games = 0

    def draft_pick(self, cards):
        return 1

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        self.games += 1
        if self.games == 3:
            raise RuntimeError("out of ideas in game three")
        return len(hand) - 1

    def main_postprocess(self, card):
        pass
"""
