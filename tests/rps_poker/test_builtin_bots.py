"""The built-in RPS Poker bots: they always answer validly, and strong is clearly strongest."""

from __future__ import annotations

import itertools
import time

import pytest

from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game

GAME = get_game("rps-poker")
BUILTINS = ("minimal", "simple", "strong")

#: Over seeds 0-299 with alternating seats strong was measured to take 0.638 of the games
#: against simple and 0.754 against minimal (simple itself: 0.5 and 0.652). The thresholds
#: leave room for small changes but not for a regression to simple's level.
MATCHES = 300
BEATS_SIMPLE = 0.60
BEATS_MINIMAL = 0.70


def checked(name: str, problems: list[str]):
    """The built-in bot ``name``, with every answer checked against the contract."""
    base = GAME.builtin_class(name)

    class Checked(base):
        def draft_pick(self, cards):
            answer = super().draft_pick(list(cards))
            if type(answer) is not int or answer not in (0, 1):
                problems.append(f"{name}: draft_pick({cards}) -> {answer!r}")
            return answer

        def main_play(self, hand, base_card):
            answer = super().main_play(list(hand), base_card)
            if type(answer) is not int or not 0 <= answer < len(hand):
                problems.append(f"{name}: main_play({hand}, {base_card}) -> {answer!r}")
            return answer

    return Checked


def play(seed: int, classes: list, names: list[str]) -> dict:
    agents = [InProcessAgent(cls, GAME.bot_call, n) for cls, n in zip(classes, names, strict=True)]
    runner = MatchRunner(time.monotonic, GAME.time_control)
    return runner.run(GAME.state_class.new(seed), agents, seed=seed).result


def share_of_games(bot: str, opponent: str, matches: int) -> float:
    """``bot``'s share of the games over seeds 0..matches-1, swapping seats every match."""
    problems: list[str] = []
    won = 0
    for seed in range(matches):
        seat = seed % 2
        names = [opponent, opponent]
        names[seat] = bot
        result = play(seed, [checked(n, problems) for n in names], names)
        assert not result["faults"], (seed, result["faults"])
        assert sum(result["scores"]) == 10
        won += result["scores"][seat]
    assert not problems, problems[:5]
    return won / (10 * matches)


@pytest.mark.parametrize(("first", "second"), list(itertools.product(BUILTINS, repeat=2)))
def test_it_answers_every_call_validly_in_every_pairing(first, second):
    problems: list[str] = []
    for seed in range(12):
        result = play(seed, [checked(first, problems), checked(second, problems)], [first, second])
        assert not result["faults"], (seed, result["faults"])
        assert result["forfeited_games"] == 0
        assert sum(result["scores"]) == 10
        assert len(result["games"]) == 10
    assert not problems, problems[:5]


def test_it_makes_strong_deterministic():
    names = ["strong", "strong"]
    cls = GAME.builtin_class("strong")
    first = play(7, [cls, cls], names)
    second = play(7, [cls, cls], names)
    assert first["games"] == second["games"]


def test_it_keeps_strong_answering_when_told_nonsense():
    bot = GAME.builtin_class("strong")()
    assert bot.draft_pick(["R1", "S9"]) in (0, 1)
    assert bot.draft_pick(["X1", "nonsense"]) in (0, 1)
    bot.draft_receive("P7")
    bot.draft_receive(None)
    for hand in (["R1", "S9", "P7"], ["Q5", "R1"], ["R1", "R1", "R1"], ["S9"]):
        index = bot.main_play(list(hand), "P3")
        assert type(index) is int and 0 <= index < len(hand)
        bot.main_postprocess("Z9")
    assert bot.main_play(["R2", "P2"], None) in (0, 1)


def test_it_lets_strong_beat_simple_clearly():
    share = share_of_games("strong", "simple", MATCHES)
    assert share > BEATS_SIMPLE, share


def test_it_lets_strong_beat_minimal_clearly():
    share = share_of_games("strong", "minimal", MATCHES)
    assert share > BEATS_MINIMAL, share


def _plain_search(hand, nb, mine_left, play, rand, pi):
    """strong's look-ahead written out plainly (no memo, no masks, no grouping of base
    numbers): each later game's base number is drawn from ``pi`` and seen before the card is
    chosen, the opponent's card is drawn from ``rand``, and a card is drawn from the deck after
    each game. Returns the expected points of each card of the hand."""
    from games.rps_poker.bots.strong import wins

    def win_chance(card, base_number):
        return sum(p for o, p in rand.items() if wins(card, o, base_number))

    def value(held, deck):
        if not held:
            return 0.0
        rests = {c: after(held - {c}, deck) for c in held}
        return sum(p * max(win_chance(c, n) + rests[c] for c in held) for n, p in enumerate(pi))

    def after(held, deck):
        if not deck:
            return value(held, deck)
        return sum(value(held | {d}, deck - {d}) for d in deck) / len(deck)

    deck = frozenset(mine_left) - set(hand)
    return [
        sum(p for o, p in play.items() if wins(card, o, nb)) + after(frozenset(hand) - {card}, deck)
        for card in hand
    ]


@pytest.mark.parametrize("seed", range(12))
def test_strongs_look_ahead_values_each_card_as_a_plain_search_does(seed):
    """The look-ahead is memoized over masks and groups base numbers no card cares about:
    on random positions of up to six cards it must value each card of the hand as the plain
    search does, and play one the plain search values most."""
    import random

    from games.rps_poker.bots.strong import FULL_DECK, Bot

    rng = random.Random(seed)
    deck = FULL_DECK[:]
    rng.shuffle(deck)
    size = rng.choice((4, 5, 6))
    mine, opponent = deck[:size], deck[size : size + 5]
    weights = [rng.random() for _ in opponent]
    rand = {card: w / sum(weights) for card, w in zip(opponent, weights, strict=True)}
    play = {card: (p + rng.random() / 10) for card, p in rand.items()}
    pi = [rng.random() * (n % 3 != 0) for n in range(10)]
    pi = [p / sum(pi) for p in pi]
    hand, nb = mine[: min(3, size)], int(deck[-1][1])

    values = _plain_search(hand, nb, mine, play, rand, pi)
    assert len(set(values)) > 1  # the position is a choice
    bot = Bot()
    assert bot._expected_points(hand, nb, mine, play, rand, pi) == pytest.approx(values, abs=1e-9)
    chosen = bot._search(hand, nb, mine, play, rand, pi)
    assert values[chosen] == pytest.approx(max(values), abs=1e-9)  # (ties: any of them)
