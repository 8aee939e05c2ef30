"""Tables of people stored the way a table's host stores them, and ratings made directly."""

from __future__ import annotations

from django.contrib.auth.models import User

from bots.ladder.people import TableSeatResult, rate_table
from bots.ladder.ratings import conservative
from bots.models import HOUSE, Bot, BotVersion, LeaderboardRow, Match, MatchSeat, Rating
from bots.running.playing import Entry, play
from games.live import tables
from games.live.host import Finish
from games.models import Table
from games.registry import get_game

GAME = "rps-poker"


def make_user(name: str) -> User:
    return User.objects.create_user(name, password=f"pw-{name}-long-enough")


def ranked_bot(owner: User, name: str, mu: float, sigma: float, rank: int = 1) -> Bot:
    """A bot of GAME on the ladder with this rating (an active version, a rating, a row)."""
    code = get_game(GAME).builtin_path(get_game(GAME).builtin_names[0]).read_text()
    bot = Bot.objects.create(owner=owner, game=GAME, name=name, language="python")
    BotVersion.objects.create(bot=bot, number=1, code=code, status=BotVersion.ACTIVE,
                              checksum=BotVersion.checksum_of(code))  # fmt: skip
    Rating.objects.create(bot=bot, game=GAME, mu=mu, sigma=sigma)
    LeaderboardRow.objects.create(bot=bot, game=GAME, rank=rank, mu=mu, sigma=sigma,
                                  conservative=conservative(mu, sigma))  # fmt: skip
    return bot


def house_builtin(name: str, mu: float, sigma: float, rank: int = 1) -> Bot:
    """The built-in bot ``name`` as ``seed_builtins`` enters it, ranked with this rating."""
    house, _ = User.objects.get_or_create(username=HOUSE)
    return ranked_bot(house, name, mu, sigma, rank)


def play_table(table: Table, seed: int = 1) -> dict:
    """Claim ``table`` (every seat taken), play it with built-in bots in every seat, and
    store its end as the host does; returns the link the players get."""
    loaded = tables.load(pk=table.pk)
    _, facts = tables.claim_and_plan(loaded, "host-channel")
    builtins = get_game(table.game).builtin_names
    entries = [Entry(name=f"seat {n}", builtin=builtins[(seed + n) % len(builtins)])
               for n in range(len(facts.seats))]  # fmt: skip
    return tables.store_finish(facts, Finish(play(get_game(table.game), entries, seed=seed)))


def scores_of(link: dict) -> list[float]:
    return [s.score for s in Match.objects.get(pk=link["match"]).participants.order_by("seat")]


def rated_match(user: User, opponent: Bot, score: float, their: float, game: str = GAME) -> Match:
    """A stored table match of ``user`` against ``opponent``, rated directly (fast: no play)."""
    match = Match.objects.create(game=game, seed=1, record={}, worker="table", rated=True)
    MatchSeat.objects.bulk_create([
        MatchSeat(match=match, seat=0, user=user, name=user.username, score=score),
        MatchSeat(match=match, seat=1, bot=opponent, name=opponent.label, score=their),
    ])  # fmt: skip
    rate_table(game, match.pk, [TableSeatResult(user.pk, None, "", score),
                                TableSeatResult(None, opponent.pk, "", their)])  # fmt: skip
    return match
