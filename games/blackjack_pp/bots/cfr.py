"""Plays Blackjack++ by CFR+: for each combination of up cards it solves the deal (standard
library only, so it runs in the sandbox too) and plays the average strategy.

The deal is solved on its public tree: what both players see (up cards, who hit or stood,
the hit cards), with one strategy per own down card at each decision, as the original C++
project did. A player who busts is skipped, which only it knows: such a node splits into
"it busted" and "it acts" for the down cards that make each true. The dealer decides
nothing, so each end of a deal is worth its exact expectation over the dealer's draws.
Solutions are cached in the process, keyed by (up cards, max hits).

With ``max_hits`` 1 (the match default) it runs 30 CFR+ iterations (about 0.3 s, never
more than 0.5 s of the move's second), which bring the exploitability below 1e-3 points
per deal. With ``max_hits`` 2 or 3 one iteration alone takes a second or more in plain
Python, far over the move deadline, so it does not solve those games: it plays a simple
rule (hit below 15).
"""

import time
from functools import cache
from operator import mul

VALUES = tuple(range(1, 11))
P = tuple((4 if v == 10 else 1) / 13 for v in VALUES)
NAMES = {v: ("A" if v == 1 else "T" if v == 10 else str(v)) for v in VALUES}
ITERATIONS = 30
BUDGET_S = 0.5


def card_value(code):
    return 1 if code[0] == "A" else 10 if code[0] in "TJQK" else int(code[0])


def total(hard, ace):
    return hard + 10 if ace and hard + 10 <= 21 else hard


@cache
def dealer_totals(up):
    out = {}

    def draw(hard, ace, p):
        t = total(hard, ace)
        if t >= 17:
            out[t] = out.get(t, 0.0) + p
            return
        for v, q in zip(VALUES, P, strict=True):
            draw(hard + v, ace or v == 1, p * q)

    for v, q in zip(VALUES, P, strict=True):
        draw(up + v, up == 1 or v == 1, q)
    return tuple(out.items())


def rank_key(t):
    return (t <= 21, t)


@cache
def payoff(t0, t1, dealer_up):
    """Player 0's expected points minus player 1's over the dealer's final total."""
    value = 0.0
    for d, p in dealer_totals(dealer_up):
        keys = (rank_key(t0), rank_key(t1), rank_key(d))
        pts = [
            sum(1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
                for j in range(3) if j != i)
            for i in range(3)
        ]  # fmt: skip
        value += p * (pts[0] - pts[1])
    return value


class Solver:
    """CFR+ on the public tree of one deal (up cards fixed, down cards private)."""

    def __init__(self, up, max_hits):
        self.up = up
        self.max_hits = max_hits
        self.regret = {}  # key -> [[hit, stand] per down card]
        self.total = {}  # key -> [[hit, stand] per down card] (average strategy numerator)
        self.nodes = 0
        self.iterations = 0

    # a public state: hards, aces (of the public cards of each player), hits, done masks
    # (per down card: True when that player is done), turn, history tokens
    def root(self):
        u0, u1 = self.up[0], self.up[1]
        return ((u0, u1), (u0 == 1, u1 == 1), (0, 0), ((False,) * 10, (False,) * 10), 0, ())

    def totals(self, hard, ace):
        return [total(hard + v, ace or v == 1) for v in VALUES]

    def walk(self, state, reach, masks, upd, weight):
        """Counterfactual values of player ``upd`` per own down card."""
        self.nodes += 1
        hards, aces, hits, done, turn, tokens = state
        mask_u = masks[upd]
        for player in (turn, 1 - turn):
            m = masks[player]
            acting = [m[i] and not done[player][i] for i in range(10)]
            if not any(acting):
                continue
            finished = [m[i] and done[player][i] for i in range(10)]
            value = self.decide(state, player, reach, masks, acting, upd, weight)
            if any(finished):
                rest = list(masks)
                rest[player] = finished
                other = (hards, aces, hits, done, 1 - player, tokens)
                # the player is done (bust) for these cards: it is skipped
                extra = self.walk_skip(other, player, reach, rest, upd, weight)
                value = [a + b for a, b in zip(value, extra, strict=True)]
            return [v if mask_u[i] else 0.0 for i, v in enumerate(value)]
        return self.terminal(state, reach, masks, upd)

    def walk_skip(self, state, finished_player, reach, masks, upd, weight):
        # ``finished_player`` is done for every card of its mask: only the other acts now
        hards, aces, hits, done, _turn, tokens = state
        forced = list(done)
        forced[finished_player] = (True,) * 10
        return self.walk(
            (hards, aces, hits, tuple(forced), 1 - finished_player, tokens),
            reach, masks, upd, weight,
        )  # fmt: skip

    def decide(self, state, player, reach, masks, acting, upd, weight):
        hards, aces, hits, done, _turn, tokens = state
        key = (player, tokens)
        regret = self.regret.setdefault(key, [[0.0, 0.0] for _ in range(10)])
        sigma = []
        for r in regret:
            pos = r[0] + r[1]
            sigma.append((r[0] / pos, r[1] / pos) if pos > 0 else (0.5, 0.5))
        sub_masks = list(masks)
        sub_masks[player] = acting
        values = []
        for a in (0, 1):
            child_reach = list(reach)
            if player != upd:
                child_reach[player] = [reach[player][i] * sigma[i][a] for i in range(10)]
            if a == 1:
                d = list(done)
                d[player] = (True,) * 10
                child = (hards, aces, hits, tuple(d), 1 - player, (*tokens, f"{player}s"))
                values.append(self.walk(child, child_reach, sub_masks, upd, weight))
            else:
                acc = [0.0] * 10
                for v, q in zip(VALUES, P, strict=True):
                    h = list(hards)
                    h[player] += v
                    ac = list(aces)
                    ac[player] = ac[player] or v == 1
                    n = list(hits)
                    n[player] += 1
                    d = list(done)
                    d[player] = tuple(
                        total(h[player] + w, ac[player] or w == 1) > 21
                        or n[player] >= self.max_hits
                        for w in VALUES
                    )
                    child = (
                        tuple(h), tuple(ac), tuple(n), tuple(d), 1 - player,
                        (*tokens, f"{player}h{NAMES[v]}"),
                    )  # fmt: skip
                    got = self.walk(child, child_reach, sub_masks, upd, weight)
                    acc = [x + q * y for x, y in zip(acc, got, strict=True)]
                values.append(acc)
        if player != upd:
            return [values[0][i] + values[1][i] for i in range(10)]
        out = [0.0] * 10
        avg = self.total.setdefault(key, [[0.0, 0.0] for _ in range(10)])
        for i in range(10):
            if not acting[i]:
                continue
            s = sigma[i]
            v = s[0] * values[0][i] + s[1] * values[1][i]
            out[i] = v
            r = regret[i]
            r[0] = max(r[0] + values[0][i] - v, 0.0)
            r[1] = max(r[1] + values[1][i] - v, 0.0)
            w = weight * reach[player][i]
            avg[i][0] += w * s[0]
            avg[i][1] += w * s[1]
        return out

    def terminal(self, state, reach, masks, upd):
        hards, aces, _hits, _done, _turn, _tokens = state
        t0 = self.totals(hards[0], aces[0])
        t1 = self.totals(hards[1], aces[1])
        du = self.up[2]
        other = 1 - upd
        w = [P[i] * reach[other][i] if masks[other][i] else 0.0 for i in range(10)]
        if upd == 0:
            return [
                sum(map(mul, [payoff(a, b, du) for b in t1], w)) if masks[0][i] else 0.0
                for i, a in enumerate(t0)
            ]
        return [
            -sum(map(mul, [payoff(a, b, du) for a in t0], w)) if masks[1][i] else 0.0
            for i, b in enumerate(t1)
        ]

    def iterate(self):
        self.iterations += 1
        everyone = (True,) * 10
        for upd in (0, 1):
            self.walk(self.root(), [[1.0] * 10, [1.0] * 10], [everyone, everyone], upd,
                      self.iterations)  # fmt: skip

    def strategy(self, player, tokens, down):
        row = self.total.get((player, tuple(tokens)))
        if row is None:
            return None
        hit, stand = row[VALUES.index(down)]
        return hit / (hit + stand) if hit + stand > 0 else None


_SOLVED = {}


def solved(up, max_hits, budget=BUDGET_S):
    key = (up, max_hits)
    if max_hits > 1:
        return None  # too big to solve within the move deadline: the simple rule plays
    if key not in _SOLVED:
        solver = Solver(up, max_hits)
        start = time.monotonic()
        solver.iterate()
        while solver.iterations < ITERATIONS and time.monotonic() - start < budget:
            solver.iterate()
        _SOLVED[key] = solver
    return _SOLVED[key]


class Bot:
    name = "cfr"
    # not ``quick``: solving a deal takes up to half a second, so a live table asks it from a
    # thread rather than hold up its event loop

    def __init__(self):
        import random

        self.rng = random.Random(21)

    def act(self, obs):
        up = tuple(card_value(c) for c in obs["up"])
        solver = solved(up, obs["max_hits"])
        p_hit = None
        if solver is not None:
            tokens = obs["history"].split(",") if obs["history"] else []
            p_hit = solver.strategy(obs["position"], tokens, card_value(obs["down"]))
        if p_hit is None:
            return "hit" if obs["total"] < 15 else "stand"
        return "hit" if self.rng.random() < p_hit else "stand"
