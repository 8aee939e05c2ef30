"""The review's numbers on the match page against values worked out here by brute force, from
the rules written again in this file (not the solver's game trees): every deal enumerated,
every action's expected value under the solve the review used (its stored strategy, read from
the solve's JSON download), and Kuhn poker's closed-form equilibrium (Kuhn 1950: the game is
worth -1/18 to the first player; folding the king to a bet gives up 3 chips, calling a bet
with the jack loses 1 more than folding it)."""

from __future__ import annotations

import html
import itertools
import json
import random
import re
import time
from collections import defaultdict
from typing import Any

import pytest

from bots.models import Match, MatchSeat
from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.leduc.tree import Leduc
from games.models import SolveJob
from games.registry import get_game
from games.solver import build
from games.solver.export import strategy_array, strategy_table
from games.solver.review import settled
from tests.site.test_match_review import numbers, opened_and_solved

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("keep_the_test_connection")]


class RandomLegal(ScriptedAgent):
    """Answers a legal action at random (the prompt lists them)."""

    def __init__(self, seed: int, name: str) -> None:
        super().__init__([], name)
        self.rng = random.Random(f"{seed}-{name}")

    def receive(self, timeout: float) -> Any:
        assert self._last is not None
        return self.rng.choice(self._last.data["legal"]) if self._last.expects_answer else None


def scripted_match(game_name: str, script: list[str] | None, hands: int, seed: int) -> Match:
    """A match of ``script``'s answers (None: legal actions at random), stored."""
    game = get_game(game_name)
    agents = [
        ScriptedAgent(list(script), n) if script is not None else RandomLegal(seed, n) for n in "ab"
    ]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(seed, config={"hands": hands}), agents, seed=seed
    )
    record = json.loads(json.dumps(outcome.record))
    match = Match.objects.create(game=game_name, seed=seed, record=record)
    for seat, name in enumerate("ab"):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(match=match, seat=seat, name=name, score=score)
    return match


def stored_strategy(client) -> tuple[dict[str, dict[str, float]], float]:
    """The review's solve as anyone can download it: its strategy and exploitability."""
    job = SolveJob.objects.get()
    response = client.get(f"/solver/jobs/{job.digest}/result.json")
    document = json.loads(b"".join(response.streaming_content))
    return document["infosets"], float(document["exploitability"])


def judged_by_its_loss(verdict: str, cost: float, gap: float) -> None:
    """A row's verdict and the loss it counts, against the loss ``gap`` worked out here: by
    the loss alone, however often the solve plays the action (docs/replays.md): a mistake
    over 0.01, fine where it shows as 0.0000 (nothing counted), close between (its loss)."""
    if gap > 0.01:
        assert verdict == "mistake" and cost == pytest.approx(gap, abs=1e-4)
    elif gap < 0.00005 - 1e-7:  # 0.0000 to 4 places
        assert verdict == "fine" and cost == 0.0
    elif gap >= 0.00005 + 1e-7:
        assert verdict == "close" and cost == pytest.approx(gap, abs=1e-4)
    else:  # on the rounding's edge: either, with its own cost
        assert verdict in ("fine", "close")


def rows_of(page: str) -> list[tuple[str, str]]:
    """Each reviewed row's information set key and its sentence's first words."""
    return re.findall(
        r'<tr data-key="([^"]+)">\s*<td[^>]*>.*?</td>\s*<td[^>]*data-said>([^<]*)', page
    )


# ---------------------------------------------------------------------------- Kuhn poker
KUHN_CARDS = "JQK"
#: a finished history -> (how many chips change hands, or None for a showdown at that size)
KUHN_END = {"pp": ("show", 1), "bp": ("fold", 1), "bb": ("show", 2), "pbp": ("fold", 0),
            "pbb": ("show", 2)}  # fmt: skip


def kuhn_payoff(cards: tuple[str, str], history: str) -> float:
    """Player 0's winnings at the end of ``history``."""
    kind, stake = KUHN_END[history]
    if kind == "fold":  # the last to act folded: "bp" player 1, "pbp" player 0
        return 1.0 if history == "bp" else -1.0
    high = KUHN_CARDS.index(cards[0]) > KUHN_CARDS.index(cards[1])
    return stake if high else -stake


def kuhn_values(sigma: dict[str, dict[str, float]]):
    """Every action's expected value for the player who takes it, averaged over the deals
    that lead to its information set, weighed by chance and the other player's strategy;
    and player 0's value of the game."""
    total: dict[tuple[str, str], float] = defaultdict(float)
    weight: dict[str, float] = defaultdict(float)

    def worth(cards, history) -> float:
        if history in KUHN_END:
            return kuhn_payoff(cards, history)
        key = cards[len(history) % 2] + history
        return sum(p * worth(cards, history + a) for a, p in sigma[key].items())

    game = 0.0
    for cards in itertools.permutations(KUHN_CARDS, 2):
        game += worth(cards, "") / 6
        stack = [("", [1.0, 1.0])]
        while stack:
            history, reach = stack.pop()
            if history in KUHN_END:
                continue
            player = len(history) % 2
            key = cards[player] + history
            sign = 1.0 if player == 0 else -1.0
            w = reach[1 - player] / 6
            weight[key] += w
            for action in "pb":
                total[key, action] += w * sign * worth(cards, history + action)
                after = list(reach)
                after[player] *= sigma[key][action]
                stack.append((history + action, after))
    values = {(k, a): v / weight[k] for (k, a), v in total.items() if weight[k] > 0}
    return values, game


def test_a_kuhn_review_agrees_with_brute_force_and_kuhns_closed_form(client):
    # random play: every kind of decision, folds and calls
    match = scripted_match("kuhn", None, hands=40, seed=11)
    opened_and_solved(client, match)
    sigma, exploitability = stored_strategy(client)
    values, game = kuhn_values(sigma)
    # the solve is near Kuhn's equilibrium: the game's value to player 0 is -1/18
    assert game == pytest.approx(-1 / 18, abs=max(exploitability, 1e-3))
    # whatever player 0 does, folding the king to a bet gives up 3, calling with the jack 1
    assert values["Kb", "b"] - values["Kb", "p"] == pytest.approx(3.0, abs=1e-6)
    assert values["Jb", "p"] - values["Jb", "b"] == pytest.approx(1.0, abs=1e-6)
    assert values["Jpb", "p"] - values["Jpb", "b"] == pytest.approx(1.0, abs=1e-6)
    for seat in (0, 1):
        page = client.get(f"/matches/{match.pk}/?review={seat}").content.decode()
        rows = rows_of(page)
        assert rows
        taken = numbers(page, "taken-value")
        best = numbers(page, "best-value")
        lost = numbers(page, "lost")
        assert len(taken) == len(best) == len(lost) == len(rows)
        mistakes = 0
        verdicts = re.findall(r"data-verdict>(\w+)<", page)
        for (key, said), shown, top, cost, verdict in zip(
            rows, taken, best, lost, verdicts, strict=True
        ):
            action = kuhn_action(key, html.unescape(said))
            own = values[key, action]
            best_here = max(values[key, a] for a in "pb")
            assert shown == pytest.approx(own, abs=1e-4)
            assert top == pytest.approx(best_here, abs=1e-4)
            gap = best_here - own
            judged_by_its_loss(verdict, cost, gap)
            mistakes += verdict == "mistake"
        assert f"<strong data-mistakes>{mistakes}</strong>" in page


def kuhn_action(key: str, said: str) -> str:
    """The action a row's sentence says was taken: a check or a bet where no bet is faced,
    a fold or a call where one is."""
    verb = said.split(" with ")[0].split()[-1]
    assert verb in (("folded", "called") if key.endswith("b") else ("checked", "bet")), said
    return {"checked": "p", "bet": "b", "folded": "p", "called": "b"}[verb]


def test_the_issues_hands_are_no_mistakes_and_say_what_they_lost_in_words(client):
    """Every decision of the jack first to act and of the queen facing a bet (where Kuhn's
    equilibrium mixes) is no mistake, whichever action was taken: fine where the solve values
    it as the best to 4 places, else close with what it lost; the sentence says what was
    held, seen and done, and how often the solved strategy does it."""
    match = scripted_match("kuhn", ["p", "b"] * 100, hands=30, seed=2)
    opened_and_solved(client, match)
    sigma, _ = stored_strategy(client)
    seen = set()
    for seat in (0, 1):
        page = html.unescape(client.get(f"/matches/{match.pk}/?review={seat}").content.decode())
        verdicts = re.findall(r"data-verdict>(\w+)<", page)
        for (key, said), verdict in zip(rows_of(page), verdicts, strict=True):
            if key in ("J", "Qb") and 0.05 < sigma[key]["b"] < 0.95:
                seen.add(verdict)
                if verdict == "fine":
                    assert re.search(r"\d+% of the time here: ", said), said
                    assert said.endswith(
                        (": no loss.", ": no measurable loss (under 0.0001 chips).")
                    ), said
                else:
                    # the solve's gap between actions an equilibrium mixes is said as the
                    # solve's, never as a loss of the game's
                    assert verdict == "close", said
                    assert re.search(
                        r"\d+% of the time here, and an equilibrium mixes only between actions "
                        r"worth the same: the solve's values, from finitely many iterations, "
                        r"put \w+ below \w+ by 0\.\d{4} chips, less than the 0\.01 that makes "
                        r"a mistake\.$",
                        said,
                    ), said
                first = "the jack, first to act" if key == "J" else "the queen, after the "
                assert first in said
    assert seen


# ------------------------------------------------------------------------- Leduc hold'em
LEDUC_DECK = ("J", "J", "Q", "Q", "K", "K")
LEDUC_RAISE = (2, 4)


def leduc_over(betting: str) -> bool:
    return betting.endswith("f") or betting == "cc" or (betting.endswith("c") and "r" in betting)


def leduc_actions(betting: str) -> list[str]:
    raised = betting.count("r")
    out = ["f", "c"] if betting.endswith("r") else ["c"]
    return out + (["r"] if raised < 2 else [])


def leduc_put(rounds: list[str]) -> list[int]:
    put = [1, 1]
    for n, betting in enumerate(rounds):
        for i, action in enumerate(betting):
            if action == "c":
                put[i % 2] = max(put)
            elif action == "r":
                put[i % 2] = max(put) + LEDUC_RAISE[n]
    return put


def leduc_payoff(cards: tuple[str, str, str], rounds: list[str]) -> float:
    put = leduc_put(rounds)
    last = rounds[-1]
    if last.endswith("f"):
        return -put[0] if (len(last) - 1) % 2 == 0 else put[1]
    mine, theirs, board = cards
    if mine == board != theirs:
        return put[0]
    if theirs == board != mine:
        return -put[0]
    order = "JQK"
    return put[0] * (
        (order.index(mine) > order.index(theirs)) - (order.index(mine) < order.index(theirs))
    )


def leduc_values(sigma: dict[str, dict[str, float]]):
    """As :func:`kuhn_values`, over every deal of two private cards and a board card from
    the six (each equally likely: 6 x 5 x 4 orders)."""
    total: dict[tuple[str, str], float] = defaultdict(float)
    weight: dict[str, float] = defaultdict(float)
    by_cards: dict[str, float] = defaultdict(float)
    own: dict[str, float] = defaultdict(float)
    deals = list(itertools.permutations(range(6), 3))
    chance = 1 / len(deals)

    def key_of(cards, rounds, player) -> str:
        key = cards[player] + rounds[0]
        return key + "/" + cards[2] + rounds[1] if len(rounds) == 2 else key

    def next_rounds(rounds, action):
        now = [*rounds[:-1], rounds[-1] + action]
        if leduc_over(now[-1]) and not now[-1].endswith("f") and len(now) == 1:
            now.append("")
        return now

    def finished(rounds) -> bool:
        return leduc_over(rounds[-1]) and (rounds[-1].endswith("f") or len(rounds) == 2)

    def worth(cards, rounds) -> float:
        if finished(rounds):
            return leduc_payoff(cards, rounds)
        key = key_of(cards, rounds, len(rounds[-1]) % 2)
        return sum(
            sigma[key][a] * worth(cards, next_rounds(rounds, a)) for a in leduc_actions(rounds[-1])
        )

    game = 0.0
    for deal in deals:
        cards = tuple(LEDUC_DECK[i] for i in deal)
        game += chance * worth(cards, [""])
        stack = [([""], [1.0, 1.0])]
        while stack:
            rounds, reach = stack.pop()
            if finished(rounds):
                continue
            player = len(rounds[-1]) % 2
            key = key_of(cards, rounds, player)
            sign = 1.0 if player == 0 else -1.0
            w = reach[1 - player] * chance
            weight[key] += w
            by_cards[key] += chance
            own[key] = max(own[key], reach[player])
            for action in leduc_actions(rounds[-1]):
                after_rounds = next_rounds(rounds, action)
                total[key, action] += w * sign * worth(cards, after_rounds)
                after = list(reach)
                after[player] *= sigma[key][action]
                stack.append((after_rounds, after))
    values = {(k, a): v / weight[k] for (k, a), v in total.items() if weight[k] > 0}
    # how often the other player's strategy leads to each information set, of the deals
    # that could lead there
    likely = {k: weight[k] / by_cards[k] for k in weight}
    return values, game, likely, own


def leduc_player(key: str) -> int:
    """Who decides at ``key``: the first position where the round's betting is even."""
    first, _, second = key.partition("/")
    return len(second[1:] if second else first[1:]) % 2


def leduc_action(key: str, said: str) -> str:
    """The action a row's sentence says was taken: a check or a bet where no raise is
    faced, a fold, a call or a raise where one is."""
    verb = said.split(" with ")[0].split()[-1]
    facing = key.split("/")[-1].endswith("r")
    words = (
        {"folded": "f", "called": "c", "re-raised": "r"}
        if facing
        else {"checked": "c", "raised": "r"}
    )
    assert verb in words, said
    return words[verb]


def test_a_leduc_review_agrees_with_a_brute_force_walk_of_every_deal(client):
    match = scripted_match("leduc", None, hands=30, seed=5)
    opened_and_solved(client, match)
    sigma, exploitability = stored_strategy(client)
    _, game, _, own = leduc_values(sigma)
    # Leduc hold'em is worth about -0.0856 to the first player at an equilibrium
    assert game == pytest.approx(-0.0856, abs=max(2 * exploitability, 0.005))
    # where a player's own strategy (almost) never goes, the review has them play on with
    # the best action, not the mix the solve left there: each player's values are those of
    # that profile, and its every choice there is a best action by this walk's values
    tree = build(Leduc())
    by_player = {}
    for player in (0, 1):
        table = strategy_table(tree, settled(tree, strategy_array(tree, sigma), player))
        mine, _, _, _ = leduc_values(table)
        by_player[player] = mine
        unreached = [k for k in own if leduc_player(k) == player and own[k] < 1e-3]
        assert unreached
        for key in unreached:
            here = {a: v for (k, a), v in mine.items() if k == key}
            if not here:  # the opponent's strategy never leads here either
                continue
            chosen = max(table[key], key=table[key].get)
            assert table[key][chosen] == 1.0 and here[chosen] >= max(here.values()) - 1e-9
    values = {(k, a): v for (k, a), v in by_player[0].items() if leduc_player(k) == 0}
    values |= {(k, a): v for (k, a), v in by_player[1].items() if leduc_player(k) == 1}
    compared = 0
    for seat in (0, 1):
        page = client.get(f"/matches/{match.pk}/?review={seat}").content.decode()
        rows = rows_of(page)
        taken, best, lost = (numbers(page, n) for n in ("taken-value", "best-value", "lost"))
        verdicts = re.findall(r"data-verdict>(\w+)<", page)
        for (key, said), shown, top, cost, verdict in zip(
            rows, taken, best, lost, verdicts, strict=True
        ):
            here = {a: v for (k, a), v in values.items() if k == key}
            best_here = max(here.values())
            assert top == pytest.approx(best_here, abs=1e-4)
            action = leduc_action(key, html.unescape(said))
            assert shown == pytest.approx(here[action], abs=1e-4)
            judged_by_its_loss(verdict, cost, best_here - here[action])
            compared += 1
    assert compared > 40
