"""Plays Blackjack++ by CFR. With ``max_hits`` 1, the match default, it looks its moves up in
tables solved ahead for every set of up cards (below, written by
``games/blackjack_pp/house.py``: CFR+, 100 iterations, exploitability at most about 3e-4
points a deal); with 2 or 3 hits it solves each set of up cards when its deal starts and
plays the average strategy: half a second of its own CPU time, within 0.8 s of the move's
second.

The tables took the place of a solve at each deal with one hit: that took half a second of
CPU time a deal (a match of 40 deals, 20 to 40 s of a worker's time), and on a loaded
machine the move's time cut it short, so the bot played worse there, and its opponents'
rated results depended on the machine's load. The solve the tables replaced is still here
(:class:`Solver`), for a deal no table covers.

With ``max_hits`` 1 a deal's solve is exact, in plain Python (so a copy of this file runs in
the sandbox too): CFR+ on the deal's public tree (what both
players see: up cards, who hit or stood, the hit cards), with one strategy per own down card
at each decision, as the original C++ project did. A player who busts is skipped, which
only it knows: such a node splits into "it busted" and "it acts" for the down cards that
make each true. The dealer decides nothing, so each end of a deal is worth its exact
expectation over the dealer's draws. 30 iterations (about 0.3 s) bring the exploitability
below 1e-3 points per deal.

With ``max_hits`` 2 or 3 the exact tree is too big for a move (3 hits: 47,000 public
decisions, seconds to build, 0.1 s or more per iteration), so it solves a smaller game
with NumPy and SciPy: every public history is merged into its *state*, each player's public
hand (hard total, ace), hits, whether it stood, who is due and who decides. A player still
decides with its own down card and all it sees of the other's hand, but forgets in which
order the cards came and at which totals the other hit (imperfect recall): 3 hits have
about 7,400 decisions instead of 47,000, in six levels (a level is the number of decisions
made so far). Each state holds a 10 x 10 matrix over the two down cards; what lies below a
state does not depend on how it was reached, so a level's sums are one sparse matrix
product. Discounted CFR (alternating updates, from a start near the simple rule) runs until
half a second of CPU time is spent, which on the shared 2-core development machine is 60
iterations with 2 hits and 22 to 40 with 3. The budget is the thread's CPU time, not the
clock's, so that a machine busy with others does not make the bot play worse (it did: 5 to
8 iterations with 3 hits under load, 24 instead of 30 with 1 hit beside one busy process);
only where the move's 0.8 s run out first does it stop short (beside one busy process on
its CPU: 30 iterations with 1 hit, 15 to 28 with 3). Mapped back onto every information set
of the exact game, the strategy's exploitability (exact best response,
``bench/bench_cfr_bot.py``) is 1e-5 to 1.1e-3 points a deal with 2 hits and 2.5e-4 to
2.8e-3 with 3 (up to 7e-3 when a loaded machine allows 5 to 8 iterations), against 0.05 to
0.12 for the simple rule (figures for several up cards: docs/games/blackjack-pp.md).

Where NumPy or SciPy is missing (the sandbox), or the machine is so busy that the build
and 3 iterations do not fit in the half second, it plays a simple rule (hit below 15) on
that deal; so it does at a live table played out by default (``hurried``: nobody is there).
Solutions are kept in the process for the deal's later moves and later deals
with the same up cards, the last ``CACHE_SIZE`` (up cards, max hits) only; at a live table,
whole ones also in the site's cache for its other processes (``Bot.shared``).
"""

import base64
import json
import sys
import time
import zlib
from collections import OrderedDict
from functools import cache
from operator import mul

try:  # 2 and 3 hits are solved with these; a copy of this bot in the sandbox has neither
    import numpy as np
    from scipy import sparse
except ImportError:  # the sandbox's interpreter
    np = sparse = None
    NO_SOLVER = "cfr: no NumPy or SciPy here: with 2 or 3 hits it plays the simple rule"
    print(NO_SOLVER, file=sys.stderr)  # once, into the bot's log

VALUES = tuple(range(1, 11))
P = tuple((4 if v == 10 else 1) / 13 for v in VALUES)
NAMES = {v: ("A" if v == 1 else "T" if v == 10 else str(v)) for v in VALUES}
ITERATIONS = 30
#: the CPU time a deal's solve may take (this thread's: a machine busy with others does not
#: shorten it, so the bot plays as well under load as on a quiet machine)...
BUDGET_S = 0.5
#: ...within this much of the move's wall time (1 s): past it, on a machine so busy that
#: the CPU is not there, the solve stops with what it has
WALL_S = 0.8
#: discounted CFR's iterations with 2 and 3 hits when time allows them all, and the fewest
#: worth playing (fewer: the simple rule plays the deal). On 6,6,2 with 3 hits, where simple
#: is 0.09 exploitable, 1, 2 and 3 iterations are 0.2, 0.051 and 0.028.
MERGED_ITERATIONS = {2: 60, 3: 40}
MIN_ITERATIONS = 3
#: the share of the simple rule in the merged solve's first strategy (the rest: uniform)
START_RULE = 0.7
#: solutions kept in the process, the least recently used dropped first (3 hits: 0.2 to
#: 0.4 MB each, so about 25 MB at most)
CACHE_SIZE = 64


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


_SOLVED = OrderedDict()


class Deadline:
    """When a solve stops: once it has had ``cpu_s`` of this thread's CPU time, or
    ``wall_s`` of the clock, whichever comes first."""

    def __init__(self, cpu_s=BUDGET_S, wall_s=WALL_S):
        self.cpu_end = time.thread_time() + cpu_s
        self.wall_end = time.monotonic() + wall_s

    def left(self):
        """Seconds left: the lesser of the CPU time's and the clock's."""
        return min(self.cpu_end - time.thread_time(), self.wall_end - time.monotonic())


def solved(up, max_hits, budget=BUDGET_S, shared=None):
    """The deal's solution (cached), or None where the simple rule plays. ``shared``: where
    other processes keep the solutions they made (``Bot.shared``), asked before solving and
    given every whole solution (one that ran all its iterations: a machine's load never
    leaves a lesser one there for everyone)."""
    key = (up, max_hits)
    if key in _SOLVED:
        _SOLVED.move_to_end(key)
        return _SOLVED[key]
    if shared is not None:
        solution = shared.get(key)
        if solution is not None:
            _keep(key, solution)
            return solution
    deadline = Deadline(budget)
    if max_hits == 1:
        solution = Solver(up, max_hits)
        solution.iterate()
        while solution.iterations < ITERATIONS and deadline.left() > 0:
            solution.iterate()
    elif np is None:
        solution = None
    else:
        solution = solve_merged(up, max_hits, deadline)
    _keep(key, solution)
    if shared is not None and solution is not None and whole(solution, max_hits):
        shared.set(key, solution)
    return solution


def _keep(key, solution):
    _SOLVED[key] = solution
    while len(_SOLVED) > CACHE_SIZE:
        _SOLVED.popitem(last=False)


def whole(solution, max_hits):
    """Whether ``solution`` ran every iteration its solve asks for (not one cut short)."""
    wanted = ITERATIONS if max_hits == 1 else MERGED_ITERATIONS[max_hits]
    return solution.iterations >= wanted


# ---------------------------------------------------------------------------------------
# 2 and 3 hits: the merged states, solved with NumPy

FULL = (1 << 10) - 1
#: the highest total a payoff table names (a public hand reaches 30, plus a down card)
TOP = 40
#: the solve's floating point type: single precision is ample for a strategy, and quicker
DTYPE = np.float32 if np is not None else None


class OutOfTime(Exception):
    pass


def solve_merged(up, max_hits, deadline, iterations=None):
    """Discounted CFR on the merged states until ``iterations`` (default
    ``MERGED_ITERATIONS``) or the :class:`Deadline`: a :class:`StateTable`, or None if not
    even ``MIN_ITERATIONS`` fit."""
    try:
        game = MergedStates(up, max_hits, deadline)
    except OutOfTime:
        return None
    target = iterations or MERGED_ITERATIONS[max_hits]
    last = 0.0
    while game.iterations < target:
        if deadline.left() < last:  # the next iteration would not fit
            break
        now = time.monotonic(), time.thread_time()
        game.iterate()
        last = max(time.monotonic() - now[0], time.thread_time() - now[1])
    if game.iterations < MIN_ITERATIONS:
        return None
    return StateTable(up, game.keys, game.hit_probability(), game.iterations)


def encode(role, turn, hands):
    """A decision's state as one integer (of ints or NumPy arrays): who decides, who is
    due, and each player's public hand (hard total, ace, hits, stood) in 9 bits. Sorted
    keys put player 0's decisions first (``role`` is the top bit)."""
    key = role * 2 + turn
    for hard, ace, hits, stood in hands:
        key = (((key * 32 + hard) * 2 + ace) * 4 + hits) * 2 + stood
    return key


def decode(key):
    hands = []
    for _ in range(2):
        stood, key = key % 2, key // 2
        hits, key = key % 4, key // 4
        ace, key = key % 2, key // 2
        hard, key = key % 32, key // 32
        hands.append((hard, ace, hits, stood))
    return key // 2, key % 2, hands[::-1]


@cache
def payoff_table(dealer_up):
    """``[t0, t1]``: player 0's expected payoff for final totals t0 and t1 (as
    :func:`payoff`, for every total up to ``TOP`` at once)."""
    t = np.arange(TOP + 1)
    key = np.where(t <= 21, t, t - 100)  # a bust hand below any other, busts by total
    k0, k1 = key[:, None], key[None, :]

    def beats(a, b):
        return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))

    out = np.zeros((TOP + 1, TOP + 1))
    for d, p in dealer_totals(dealer_up):
        kd = d if d <= 21 else d - 100
        out += p * (beats(k0, k1) + beats(k0, kd) - beats(k1, k0) - beats(k1, kd))
    return out


class MergedStates:
    """Discounted CFR on the deal with public histories merged into states (see the
    module's docstring). Arrays per decision ``d`` (all levels in a row, player 0's first
    within a level): ``sigma``, ``regret`` and ``avg`` are ``[d, action, own down card]``
    (action 0 hit, 1 stand); value and reach matrices are ``[d, t0, t1]``."""

    def __init__(self, up, max_hits, deadline):
        self.up = up
        self.max_hits = max_hits
        self.deadline = deadline
        self.bits = ((np.arange(FULL + 1)[:, None] >> np.arange(10)[None, :]) & 1).astype(DTYPE)
        self.levels = []
        self._build()
        n = self.keys.size
        self.regret = np.zeros((n, 2, 10), DTYPE)
        self.sigma = self._start()
        self.avg = np.zeros((n, 2, 10), DTYPE)
        self.iterations = 0
        self._reach1 = None

    def _start(self):
        """The first iteration's strategy: 70% the simple rule (hit below 15), 30% uniform.
        A start near sense converges sooner than a uniform one, which matters when a loaded
        machine allows a few iterations: on 6,6,2 with 3 hits, 8 iterations from it are
        3.4e-3 exploitable, from uniform 1.2e-2 (and 5 iterations 7.9e-3 against 3.1e-2)."""
        role, _turn, hands = decode(self.keys)
        down = np.arange(1, 11)[None, :]
        hard = np.where(role == 0, hands[0][0], hands[1][0])[:, None] + down
        ace = (np.where(role == 0, hands[0][1], hands[1][1])[:, None] == 1) | (down == 1)
        totals = np.where(ace & (hard + 10 <= 21), hard + 10, hard)
        hit = (START_RULE * (totals < 15) + (1 - START_RULE) * 0.5).astype(DTYPE)
        return np.stack([hit, 1 - hit], axis=1)

    # ------------------------------------------------------------------- the graph
    def _live(self, hand):
        """The down cards (bits) for which a player with this public hand is not done."""
        hard, _ace, hits, stood = hand
        room = np.clip(21 - hard, 0, 10)
        return np.where((stood == 0) & (hits < self.max_hits), (1 << room) - 1, 0)

    def _masks(self, role, turn, hands):
        """Player 0's and player 1's down cards (bits) in the part of a public state where
        ``role`` decides (2: the end) with ``turn`` due: the part is a function of the state
        alone, whatever the path to it."""
        live0, live1 = self._live(hands[0]), self._live(hands[1])
        due = np.where(turn == 0, live0, live1)
        nxt = np.where(turn == 0, live1, live0)
        m_turn = np.where(role == turn, due, FULL & ~due)
        m_other = np.where(role == turn, FULL, np.where(role == 2, FULL & ~nxt, nxt))
        return np.where(turn == 0, m_turn, m_other), np.where(turn == 0, m_other, m_turn)

    def _parts(self, turn, hands):
        """The non-empty parts of public states (``turn`` due): their rows and roles."""
        n = turn.size
        rows = np.tile(np.arange(n), 3)
        role = np.concatenate([turn, 1 - turn, np.full(n, 2)])
        m0, m1 = self._masks(role, turn[rows], [tuple(x[rows] for x in h) for h in hands])
        keep = (m0 != 0) & (m1 != 0)
        return rows[keep], role[keep]

    def _build(self):
        u0, u1 = self.up[0], self.up[1]
        one = np.array
        hands = [
            (one([u0]), one([int(u0 == 1)]), one([0]), one([0])),
            (one([u1]), one([int(u1 == 1)]), one([0]), one([0])),
        ]
        rows, role = self._parts(one([0]), hands)
        dec = role < 2
        now = np.unique(encode(role[dec], 0, [tuple(x[rows[dec]] for x in h) for h in hands]))
        prior = np.array(P, DTYPE)
        keys, offset = [], 0
        while now.size:
            if self.deadline.left() < 0:
                raise OutOfTime
            keys.append(now)
            level, now = self._level(now, offset)
            if offset == 0:
                self.root_reach = level["mask"] * np.outer(prior, prior)
            self.levels.append(level)
            offset += level["n"]
        self.keys = np.concatenate(keys)

    def _level(self, keys, offset):
        """One level's arrays, and the next level's keys."""
        role, turn, hands = decode(keys)
        n = keys.size
        m0, m1 = self._masks(role, turn, hands)
        # every decision's hit (one edge per card) and stand
        src = np.concatenate([np.repeat(np.arange(n), 10), np.arange(n)])
        act = np.r_[np.zeros(n * 10, dtype=int), np.ones(n, dtype=int)]
        card = np.r_[np.tile(np.arange(1, 11), n), np.zeros(n, dtype=int)]
        prob = np.r_[np.tile(np.array(P, DTYPE), n), np.ones(n, DTYPE)]
        who = role[src]
        after = []
        for p in (0, 1):
            hard, ace, hits, stood = (x[src] for x in hands[p])
            hit = (who == p) & (act == 0)
            after.append(
                (hard + np.where(hit, card, 0), ace | (hit & (card == 1)), hits + hit,
                 stood | ((who == p) & (act == 1)))
            )  # fmt: skip
        rows, part_role = self._parts(1 - who, after)
        part_keys = encode(part_role, 1 - who[rows], [tuple(x[rows] for x in h) for h in after])
        row_of = src[rows] * 2 + act[rows]
        q = prob[rows]
        dec = part_role < 2
        following, target = np.unique(part_keys[dec], return_inverse=True)
        edges = sparse.csr_matrix((q[dec], (row_of[dec], target)), shape=(n * 2, following.size))
        # the ends below each action, weighted by chance and folded into a constant
        ends, end_of = np.unique(part_keys[~dec], return_inverse=True)
        fixed = np.zeros((n * 2, 100), DTYPE)
        if ends.size:
            e_role, e_turn, e_hands = decode(ends)
            e0, e1 = self._masks(e_role, e_turn, e_hands)
            mats = self._payoffs(e_hands) * self.bits[e0][:, :, None] * self.bits[e1][:, None, :]
            to_end = sparse.csr_matrix((q[~dec], (row_of[~dec], end_of)), shape=(n * 2, ends.size))
            fixed = to_end @ mats.reshape(ends.size, 100)
        level = {
            "lo": offset,
            "n": n,
            "k": int((role == 0).sum()),  # player 0's decisions come first
            "mask": self.bits[m0][:, :, None] * self.bits[m1][:, None, :],
            "fixed": np.asarray(fixed).reshape(n, 2, 10, 10),
            "edges": edges,
            "edges_in": edges.T.tocsr(),
        }
        return level, following

    def _payoffs(self, hands):
        """Player 0's payoff ``[end, t0, t1]`` for the public hands of each end."""
        v = np.arange(1, 11)[None, :]

        def totals(hand):
            hard = hand[0][:, None] + v
            soft = (hand[1][:, None] == 1) | (v == 1)
            return np.minimum(np.where(soft & (hard + 10 <= 21), hard + 10, hard), TOP)

        t0, t1 = totals(hands[0]), totals(hands[1])
        return payoff_table(self.up[2]).astype(DTYPE)[t0[:, :, None], t1[:, None, :]]

    # ------------------------------------------------------------------- the passes
    def action_values(self):
        """Per level: ``[d, action, t0, t1]``, player 0's payoff below each action."""
        out = [None] * len(self.levels)
        below = None
        for i in range(len(self.levels) - 1, -1, -1):
            lv = self.levels[i]
            n, k, lo = lv["n"], lv["k"], lv["lo"]
            a = lv["fixed"]
            if below is not None and lv["edges"].nnz:
                a = a + (lv["edges"] @ below.reshape(-1, 100)).reshape(n, 2, 10, 10)
            out[i] = a
            hit = self.sigma[lo : lo + n, 0]
            v = a[:, 0] - a[:, 1]
            v[:k] *= hit[:k, :, None]
            v[k:] *= hit[k:, None, :]
            v += a[:, 1]
            v *= lv["mask"]
            below = v
        return out

    def reach(self, player):
        """Per level: ``[d, t0, t1]``, the reach of each pair of down cards by chance and the
        other player's strategy (not ``player``'s)."""
        out = [self.root_reach]
        for i, lv in enumerate(self.levels[:-1]):
            n, k, lo = lv["n"], lv["k"], lv["lo"]
            x = np.repeat(out[i][:, None], 2, axis=1)
            s = self.sigma[lo : lo + n]
            if player == 1:
                x[:k] *= s[:k, :, :, None]
            else:
                x[k:] *= s[k:, :, None, :]
            below = lv["edges_in"] @ x.reshape(n * 2, 100)
            out.append(below.reshape(-1, 10, 10) * self.levels[i + 1]["mask"])
        return out

    def _update(self, player, t, reach, own, values):
        for i, lv in enumerate(self.levels):
            k, lo, n = lv["k"], lv["lo"], lv["n"]
            mine = slice(0, k) if player == 0 else slice(k, n)
            if mine.start == mine.stop:
                continue
            d = slice(lo + mine.start, lo + mine.stop)
            if player == 0:
                cfv = np.einsum("dij,daij->dai", reach[i][mine], values[i][mine])
                weight = own[i][mine].sum(axis=2)
            else:
                cfv = -np.einsum("dij,daij->daj", reach[i][mine], values[i][mine])
                weight = own[i][mine].sum(axis=1)
            s = self.sigma[d]
            r = self.regret[d] + cfv - (cfv * s).sum(axis=1, keepdims=True)
            # discounted CFR (alpha 1.5, beta 0, gamma 2)
            r *= np.where(r > 0, t**1.5 / (t**1.5 + 1.0), 0.5)
            self.regret[d] = r
            self.avg[d] = self.avg[d] * ((t - 1) / t) ** 2 + weight[:, None, :] * s
            r = np.maximum(r, 0.0)
            total = r.sum(axis=1, keepdims=True)
            self.sigma[d] = np.where(total > 0, r / np.where(total > 0, total, 1.0), 0.5)

    def iterate(self):
        """One iteration: player 0's update, then player 1's against it."""
        t = self.iterations + 1
        reach0 = self.reach(0)
        # player 1's reach depends on player 0's strategy alone, unchanged since the last
        # iteration's player 0 update
        reach1 = self._reach1 if self._reach1 is not None else self.reach(1)
        self._update(0, t, reach0, reach1, self.action_values())
        self._reach1 = self.reach(1)
        self._update(1, t, self._reach1, reach0, self.action_values())
        self.iterations = t

    def hit_probability(self):
        """``[d, own down card]``: the average strategy's, NaN where never reached."""
        total = self.avg.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.avg[:, 0] / total).astype(np.float32)


class StateTable:
    """A solved deal's strategy: the probability of hitting per merged state (sorted keys)
    and own down card."""

    def __init__(self, up, keys, hit, iterations):
        order = np.argsort(keys)
        self.up = up
        self.keys = keys[order]
        self.hit = hit[order]
        self.iterations = iterations

    @property
    def nbytes(self):
        return self.keys.nbytes + self.hit.nbytes

    def key(self, player, tokens):
        """The merged state of ``player`` deciding after ``tokens`` (the history)."""
        hands = [[u, int(u == 1), 0, 0] for u in self.up[:2]]
        turn = 0
        for token in tokens:
            who = int(token[0])
            if token[1] == "s":
                hands[who][3] = 1
            else:
                v = card_value(token[2:])
                hands[who][0] += v
                hands[who][1] |= int(v == 1)
                hands[who][2] += 1
            turn = 1 - who
        return encode(player, turn, hands)

    def strategy(self, player, tokens, down):
        key = self.key(player, tokens)
        at = int(np.searchsorted(self.keys, key))
        if at == self.keys.size or self.keys[at] != key:
            return None
        hit = float(self.hit[at, VALUES.index(down)])
        return None if hit != hit else hit


class Bot:
    name = "cfr"
    # not ``quick``: solving a deal takes up to half a second, so a live table asks it from a
    # thread rather than hold up its event loop (one such bot thinking at a time)
    #: set by a live table played out by default (everyone at it away) or played again up to
    #: where it stopped: the simple rule then, without solving (games/live/host.py)
    hurried = False
    #: where the site keeps the deals' solutions for all its processes (get and set by
    #: (up cards, max hits)), set by a live table (games/live/host.py): a deal solved in one
    #: web process is not solved again in another. None: this process's own cache only.
    shared = None

    def __init__(self):
        import random

        self.rng = random.Random()  # a fresh seed each match: a fixed one repeats its choices

    def act(self, obs):
        if self.hurried:
            return "hit" if obs["total"] < 15 else "stand"
        if obs["max_hits"] == 1:
            table = one_hit(obs["up"])
            if table is not None:  # the deal's strategy, solved ahead
                hits = table.get(obs.get("infoset"))
                if hits is None:  # (no decision of the solve's: as a solve's None, below)
                    return "hit" if obs["total"] < 15 else "stand"
                return "hit" if self.rng.random() * ONE_HIT_SCALE < hits else "stand"
        up = tuple(card_value(c) for c in obs["up"])
        solver = solved(up, obs["max_hits"], shared=self.shared)
        p_hit = None
        if solver is not None:
            tokens = obs["history"].split(",") if obs["history"] else []
            p_hit = solver.strategy(obs["position"], tokens, card_value(obs["down"]))
        if p_hit is None:
            return "hit" if obs["total"] < 15 else "stand"
        return "hit" if self.rng.random() < p_hit else "stand"


# ---------------------------------------------------------------------------------------
# 1 hit: every deal's strategy, solved ahead

#: the tables' probabilities are counts of this many
ONE_HIT_SCALE = 1000
#: the tables, unpacked at the first deal of one hit: {deal: hits a thousand, by infoset key}
_ONE_HIT = {}


def one_hit(up):
    """The solved strategy of a deal of one hit with the up cards ``up`` (card codes):
    {information set key: hits in :data:`ONE_HIT_SCALE`}, from :data:`ONE_HIT`; None for up
    cards it does not hold."""
    if not _ONE_HIT and ONE_HIT:
        doc = json.loads(zlib.decompress(base64.b85decode("".join(ONE_HIT))))
        # every decision is hit or stand: a table holds each one's count of hits, in the
        # order of its layout's keys
        layouts = [[key for key, _ in layout] for layout in doc["layouts"]]
        for deal, (layout, hits) in doc["tables"].items():
            _ONE_HIT[deal] = dict(zip(layouts[layout], hits, strict=True))
    return _ONE_HIT.get(",".join(NAMES[card_value(c)] for c in up) + "/1")


# -- the tables of one hit: written by games/blackjack_pp/house.py, not by hand --
ONE_HIT = (
    "c-rlq&90=ndWP?%$0Y^-+h@i-Fx$!?ks_VJkuo^RAc}JDSyij3Dkx+885@jwwbb6dR~Ow2o(E&Ue"
    "3<|J^N)Y~pa1;t|N7^jzy0;sUw=COw?DVP{`~#V?ax2|{OiB|{I(Nc-;rP6QD5KDU*9ob-?3lcab"
    "Mr*zrHifzr*<7y1#SZH-+z;()Uf}`=<7N)A+t=ecyDxZ}z@#4xVrRbN)Ty+e_iwOX1r~;oD2$+e_"
    "iwOX1r~;oD2$+e_iwOX1l|>Dx=`+e_)&OX=H7>Dx=`+e_)&OX=H7>Dx=`+e_)$OXb^3<=ac;+e_u"
    "!OXb^3<=ac;+e_u!OXb^3<=ac;*-P!)OYPfB?b}Q3+e_`+OYPfB?b}Q3+e_`+OYPfB?b%D?+e_oy"
    "OXJ&1<J(K)+e_oyOXJ&1<J(K)+e_oyOXJx~>)T7~+e_=)OY7T9>)T7~+e_=)OY7T9>)T7~+e_=&O"
    "Xu55=i5u?+e_!$OXu55=i5u?+e_!$OXu55=i5u?*~{Lym%VQ<d*5F6zP;>yd)fQ;viI#}@7v4Xx0"
    "k(dFMH2k4!*q{e0w?g_Hyv;<>1@P!MB%#Z!ZVmUJky!9DI8@%=Yr<yMO-c-~Rm{|M4?;``<tO_Ve"
    "{G>}MR;-Tq=-*WJ*d$=lqGyL%?!8JZnDlkg194xTA^hGqxPG(1DIgJ%Ywq1nMR3(wH(;F*JGXm;?"
    "dhi7PZ@N9r*Xo`C#_PrmVu+=rT8toFW3tJVlOTsQ}Rm?60yRcO;yEN>=R>kZxunSuiv&+IRY*oxI"
    "2fMIUF}r%$g{_L&HNY-xRmd)htR7p1x4M5Nc!iW6TW$2}TPlR}7t$liD3VS{<DpYVoe;l6r;IuwZ"
    "^u@dB^=d4*p97AO!^SBW2+KgAz;T=CA>nkj;->0r4XuLfOXR6y<2_zgYdlZK)a+o2+2<>&*A1E4~"
    "IEkb6$Vfw=)R6;SALoB-_`x<?$&K(Vv)GBnmk;=2=@6LSzkvHY$X48VYSx2thOyN}suFtiYbDN!w"
    "<9J8k*rheKGS`i`%^>-9A%fyL4*SEAcl2&`&;yb!t`9kBTL;X2Sdhv&CMW)HA9_&Ghu-5+4_?t?u"
    "@5+~A{;J+Ev0&8s_tOeiGiN(LsV+K~ou6%-#)eI4<1s1cuk`~du1=gNEp%z7*Fi0);gR8|Cxu~f|"
    "($~lr5oE<#;%2(Y6Z6qk!qo*A>0riFmxT5?-_xQ1Rb+ifQGI?|6@ZH1?hFasrwU1!5ya)fY<7U0c"
    "rGJTt3Ebe|5~5;A|uO%Syp>0Bk<a5^6Q+P)8jjw#`c|GIp=QoUzZ<1t&x)Rqbkdth+%dD>}c$|66"
    "aVFItg_14$=s92677IzQ_@{{hXrXS*qA>&@`aUp=lDd@zY{AWCqB{$<Eg(lE+UJ#3R&^IT2bQoFW"
    "ulPzkblg8V^{=OpMraDEc50yN10SxUAV2G|4OEK_3z&%goz2LPP)p{xAZcUX1|J@=ii)JCw>Oq;Q"
    "<n8Xku6dzx@@9?A*G~_xPRTmi9E*Q-z5r?RY%SZ5GTjN3tp3J+CI~IuslJR2n{Bv16p9m8%trCe!"
    "A7)b@6<=9o9`jaR9*}JnkWlM08$CVrGM<lm@R8;DxMoMpdKHgI4DZ-8yyNBZ^sVBNZWYgLMk6Z3G"
    "qj3l_2jW~p4xCuNKIL3HhtR*>X%ts%zHpnzQ1LO*{{EC1S$ZuEube^bsjXMXe!Wbh^7Y3hG@3GdU"
    "{T#Cje?O7K)=8byVwM>cF(EUbhF(wtx-*+7i&=vtGpBO5UL;Rei(MSNWSGl%KL=?%NHY)gX}vK8;"
    "GLM?t%^Y8!s+QJ0k;b#_zS5)QhKJm}pKU*kbnl^=B4^Ca?}^B-1@5kB6!spBo~&w%{?xvBDSo7yj"
    "-QI!<4JM}t#<sJ99OK*=l{I>SPA915sC6=)~){84!#u7gGuJ(iPs5KBW{@Cl%B`V=#-&f!7C~AcR"
    "p+4x~gFn=M@Ym}XzMkCUBI?M?(zPYaM_$~2%A^RQr3YEi6l_M#1T;faUNZ^J(3ICqK{GVvHPg@xO"
    "?k}>G(%HfGYieol-JBbGc@Hj>!BH%@|q3M3{7dx1nvT$iMS1x#Cuc>cL2~7Rt)Jsni$1wx?*@I9h"
    "%5)jM}e^is1!$XbLNa*Y%;<V_J#GAI%P$A@WDF`tT;R8!bcPkETR<`KM!u`_YtjOt!s_A+|bV4Xj"
    "Zufq5mGOwZ7MY%uC2(Q{#|j7!dpULn*+6S>p^xz9qHkEWDc2G>Jum3^zxE(^P`RhfCBgId_Cj9NX"
    "^!d7L}8lV=oDxsD_CVvgwsjrt<Ulw^3NkAlsltUzB?d|8^<t<XM2o?n_nlFqv_eaAY__M(uB;*)G"
    "ty#2IX!W5JB5{nabGd{J94_T@386P!%H<MLZn%_T?yr$)pL9ID#y7r83B4`vZV19^7!o!FDfG#bo"
    "PG5`ynISMmQuTXVjwq$7+x_D2%l6Z3jN?yXMRcMlNTht&4&5;Iuk^=kYrU7WV4WDRT6}*NJ2t}n0"
    "?dKX4gTXuRRb0I@{}54OY;&24)G&`JS8>tXj@kS>l){<maGGDZp6Xp$@>T6ksfsoacg^YQ*|qx)|"
    "pr@wVWdhd0}gwoF6qfcnU>b_(gGujLI!*gat9Ij@h0y+V2b=_aPoYv;6mXJXAQfNU&lDfS3s6wP9"
    "^LMLLR9Ev(9%62L0)RWPj?Nn5Nm@}2oJLA*9mlfZ>^h~q#w5>ff;@Kx6_8lcP$1`mkwbR^@-GAAf"
    "Bppajwh{Y<06Zth9vmmz*pqS`z%j?PpC35aaMSdrN{}Y`PG-vVosq9`<r#?tM!TXkOe7;R<tOJmA"
    "d=N1vZ*1MG^`0ks&+)y+SKb#0wDSPuG;B>6NaPfhr@S-Gj5}5U}LHuB50R3L~u@)AAA3>ys6#BbG"
    "Ck1#-vS?c4Bp}V-cb}DR%-=y5?ZwKAF|!Ira5(k}8RlZi>@zg7Zo287xTZRF;>9)VIAH)ecWNem$"
    "8+{{EJS{}-N%>)T#K>bh7Zu(pU*0c(p`HL$jb)c|WG*7Gp6VA|rT>VUOHtUa){h;;zg_OK406)pA"
    "_mj$M!g@*6>T#2YC%?o9G!)Lil7{KfMsmGruAAfq)Nlk@8;o~oNJN~J0w$ds0#7}bg)n13c)ATKA"
    "x98qpV`Ykw^&WV=+kxl%9r)*&!m}@}lJB^i-7dH?t;2UN>6r&cy3;9tF1Ys4N}b`e_@ngDC+$HnY"
    "xV(gzuhdwQ5f8A7=*3$#y@{nJ-MSG^m{?jiNjE~!@0np^-T6C3PbIu0!x~VIZ8npe_Z+x0C4XKDF"
    "qiB$3<u^*Nm14Scay!Wirh&i(`l;-ZGVDnZYqc6K|P@WoU|9W-u;8Q`|BO%g_|J%)v4=#VzY$8Jg"
    "mj4X_MNVar6~!<NwOa!nHQ(J}$c&=j{!!ZI|)EmIhmp^0Qq#XdTw(UYMmEt!F2Xv)tpEi^+@UNZ;"
    "H(3ID#hh}KXYc@bLG=-xKiSYko+>;l;CQdU)zYzPwuXVqyOZ5wZKm3YZN+rQA1-oEZj9oUxE=2sW"
    "tDIfP_R+))?Njd_NyPeS3LAz*A5Dy5HrX(Q`Dn`aVaV|@%8wAtBnqYw;h$MBzS}f1ZbjRdRS53SY"
    "n5etfOt!_u-e?rC`9!qA7k(2lQG<fe%?VLn?LISDQ!HRCe!b~)df643J;HRc(m&axX_&SLQ1%pzS"
    "Oc%3r(zAilml<T8O8j%wmirRu8ezMD|(IkklHW)`|NpyK~~{;<VDp(W}ryY#92OxC`0JXJ+%h$!n"
    "`dSCEd^5Oa&P7i<OYyX5u+nRhL>?-MMsomoep!xDu7%?ZQAwP0}a;KApw@2+Oi3=K12hSv<!@@uJ"
    "E-HP(U?a=3^|M`B~_3TeaXDpn#t}|cu_+OGfcLo9Rx#KlwG$G?n9?VXXlpg&I`Wa$BgHZRh>1?z+"
    "8#@_3_AmxnZSE@M<RHyN&V^>v82U?U4MNw$i-f}kzxjzHK0UUGcPz-&JMl(MZ)V;qF}Jd}vY?S`)"
    "*n!20gbBIT5^EMn$tj%m?QvdSE~`gqzJH$KGMS)E)PGyk^8ep1!yg2zUKSWN1j(pFc(n*>G={V*e"
    "!y&g|J1Zhb=mM$b18JBD^qC#BSdG)9Fa9Nr=Al0Y$2|Js#7Y9Mdsv52e|9@nAcdNSI^e&!JxhW5a"
    "=$Gb-sqsp#-E6T#6>snjaW*0#*nC2f^(6Hz-AUN<PrmWu*pkyGUkoVp~o1<)df%8b@^tQNLdThqU"
    "PX2-CI{hsaFsJeHCL;<xc)W}PhF9otZaX72PtbM1Oymh6%Mph!8)iG~Ek6aMNR}!ZsDH3?cJETA$"
    "TV59iCC_ph+;^hrg!XJ%da@Wsb(Siq)~EDgO1gPUwgF0}{;`Bj8cUci{f<&XF#yk<sf4lF`mvdml"
    "}em4sa3ensuXNm?*`4C;9RqbXDE42^}LIoz>MAOZpixTk?mSF@m%*qv%0AbjZ;&}0}oQA#3M*nrE"
    "&F%H8Cf-X<p`W!Hj3p=7pa<L<NX8MpS}mV?-5*Hbzu~Xk$dNh*h>FpMJkmzMuYcdj7VNES8$ey<k"
    "d3a2?>b3m1zwH4JwE+*aWZpLH`Ux9+~z9HmwCCf%_T;^wSOUXWs`Ov9VS-YZ`UCVQb#?QlRkl*rM"
    "s)T#;RtD0bk-02Oo*!@|jy~|g4HRUT|5b8W2&Rq8phM)oAcnF4cncmXBcQRosE0b@WCRLW`eJV@B"
    "OzciWC!17&V3|y>8cA67Mcs@%7>L^qh)&t6bB~G;dKbl&ia6ir_o*2_7)QU?)Pkj4Wvtpz>tWBxW"
    "7vyF$5VI+^SBn!PY)KT;xG#ZZokVL9RNc8{Oggm9TNgO+#5o3@@Di)z%Mif{gM>FY?3evNBqi$DT"
    "-kRT@o6yV!FIy=)^8<m?=LDgJG98%)&4<MGbT14a1u_E^SzkumVj%zXn_*(G)aHkRH`cRSeCw9TR"
    "X2O<~6*979uPx;84N$`8iST-q>=P7F<1#Y~D~E~#b^%~cxpT&s7K%qB_31r8>fz*`jfL^78mnHCl"
    "Y6HQ>{!>MF_ie#2UGBoSY#Eg;+81|znnvcn}oL^gmV|Y*>AyOV?l*VqHT8h}|rPgL5SW?KZnF8&D"
    "8j*77mE1VIihf4QSuyb|Dd1NYejU|;8G2g9*`|Lo`k6?l*u*WB;+8bXD-KIQHC-<0<W{?ET+j9Vp"
    "+>usQhmW-*Ey5+biWMoC2ON#X_-DMSI?HRcWSfEk<>Y#2$q)TJEUOeYPj3zSNsx2Q@@g;e5)C#oo"
    "h<aiM<5ldLmd-jPE*hU?;mmn%x9r({v&!!Z(@&+fgI?l#7SaV)MK;(l7B$Mt=oUiLX?08}m9ekHx"
    "R(BPsd?D}CA+Sf6(6ZaA|yCFCem+IqdN!;EqB5c?D|DH)PUFnu$2bSZ7UVXJUw@lcn{PA>7VNk5k"
    "-HJYT-#!#3AW)g{Xr{;NW6ly1rex3Dtpzbw&qeMwzyMY4-N~FYY4l&vJ9nwE@{nuFAoa9CKXvQJ>"
    "_(pjW1F^-X)pzzz{%|zQ!mN`ul8!)c^Quem%E7CXC6x*F3tO~eEWxTCR-Nny%g$Ea7fYvWH9)I_8"
    "j~J>QVze^nq^v&Q93mohfyC*`Zko8Eqo4iOgOQ=eZC}Y;iV4K+1=-hj?C?4hkzX?v?CZnn{9H4w;"
    "U33oKFrBOqJy}Irv)+1vxUwK{_VndlYOsd~p7Zk8ksWy}i)z;*4IHcrWaG-F$)<2#!yg07n$&%wI"
    "P<x8?H_K2<)q{r%7A3?kt(WxMJv0829_uCsdIKKDw4y!WU^CdVPf5H?vE=2r$`?!l>BLMnStSk0C"
    "TliOkpa@y@{R_$6y(cQZ8vOLn0i75v8YyCm0Cm*H1{na2#tv(d>WSuFXk&D(IaC&mf6wt^xGl8}x"
    "(n?R*lmZ!nWyQ&3CdLRK4@wbva*7zr2U8S4mUyyIa53mhp^s4TRO#Mg{*uBT>E5|wx~%XK)SV`A^"
    "XF)E=(f?!t;z5#3{n8(NwTppM+uH6iN3-dRl^+XDZ|?sdV~?`78k^9EVc?0M3{B{R4PmuS=DzT;)"
    "z11FkD1YC(e|@XpuCXIWh{fZ8AtwttUburmps!=t6-{n3DjfI`W(_CfP2glmZrOMF^8B7uSR_sj3"
    "rzON23DKpKFK&RW8NnoMB!eoU}zloAHmX22pFNlL=(n#@lc2|~i;nv6$U$vML4>P|oOHDinrvK|k"
    "f`IiuN!AW;UI2)H^_A<pIW-ClRyIMI?JWSRcQam;mfi!AusalBQ8L`%gqKIadsJ@-3&qc|MZ)J00"
    "(pn!@6w5S;6@@ZsSS#;@@vzmxMfJo~huwmt%a^-^F^Fa{un-34r67-@Aosa9fAw0GFa)(HgnCO+4"
    "m<w3+2dbJrAhes*BxG5p^zlZr}8i&{k?tEckmriClW?ecc9R88AupR-H|}sRUTn7JI(4(RKy_<B%"
    "*)zV0}hDj^%&ntCVCZB|N|qN#}b!Pn*|k0`E!*f>P}9Qjd5uRLZHXG&r45tBy^yl95{7h2pVVscy"
    "pyS|vE0aOE;J?X6U#R`-jalq^mwGhXp6vk5<A+E!?eR*Tz-TAHAiu<N5M=hVByQltU2qHlzzo<};"
    "2oQP!zBdqm7wZdTi(#>d<rHtF71wfYry&ihGB6@A>jsU0yvwDhIq_`n16UKVqZFn^hyo$^lq%$z<"
    ">Sl@9I=El8T%1}?DqPem2mz)qG~Zb)K@p2N6{*&1p9~-$y2zfC2g)TWa*0mfh}SeAK6K3<d!Sm1F"
    "w~N~BbsFm^7JDcZuq9{lZL&cTADQ0qFxaZZynri?IxCEX5y8J_sUrp`$&xeRZI{?Y}xNaE~7E;Lq"
    "k@~#Ve*2-z}0y(}-VvykFLF{{u@=^|xrQsMkOm*3;!eb7j9IC88gn5ybJkSQ9gWoP1)GOHkxekn7"
    "0Cx>KnoDQXF*b!aY{lwL7$j9H2>VH6x@9U6-sau@pcyJkp&TZE9FGpKdd!IoKd%YM5>3F_}|N)EX"
    "$S6HE0>Sd7<)sK4OpkJ(cJ%N=HML3#axH?`@FzZq~upWA$Srvz;>NP+wG;0}~NbJ27X-V1H17>LU"
    "t;pM08IbmGK9^bIYd^;5lYmc0JT=jsN+%I(6K#!OT>Y}HeVDS%-X^hFlN5$g=Mc#z-ew`KdH%JUV"
    "5CJFRSgHMWR`T7FY%7bE*cpOlFm75-|;!9)h^KEm4#REs(@DxUY*k`z3Xs1=&?tu9$KAKD^s;r1G"
    "GA&R?_aOm2n+GD@{(ynYGYr<HKy^O^ukOLlH%spKpBf|Hy&2`n?u^kfSBk{F`x<OYLsSF^=fb5$c"
    "=kP*GQ{BHt0vCP$nd9ihHh4@Gg`^wJcG%$+}(E^X4?)Laf5G%X~@YapVbMhj~2DR?C_s6h>u?a$~"
    "#Sv&}yLyv^FW8OEC5ih?QYZUqOnX{k^x5ay-_d+4{bCG%JLd}csuPRbp!IYzPVal!RBBu2aaW}Mr"
    "+PM2GprjkMp~k_=x*NB6-Ot|I#J^zA-lS6FJY`}|uo^!o&GQk>mo?P1S2=Uz4(}eT*&6<SBFBywG"
    "rK;a3K=81SC&EzawSub9ul(TFeW~Y714JVCp|~tk+J9rGkb<Ah91x6sKc%5X?QAgPV6H1*Vt7rT_"
    "(8to(YYwo_56dwX<=0W9Z>37;k3GmKeJw#O(L2ylIFf5L3JEjfkx=ONiAnVv&wm0dZl(?CUb>d~b"
    "9W%Xm2vZ}-Nlfp;_B@Zp$abG~J_Gs68icg@w|rVOs76Vwyf%r+3~T6l5$N_WyuYYXyp@|-#ix6{v"
    "CmB^iMfc|m1J3yyH*F@%W@_CzjrcXW~Q;GK=o|2vrk*g_ksgH#|TphZl5~p6!#n-%gEn@eM-PE|I"
    "CQn0c8;Z%!pLZpV#B4(;*y-b}M1u0V1ZzvH5(z5eqKGX6q=pqHQ&^FRPG1%suO??oMAu~cbd4A(4"
    "Ax#6Y~?9Y;>qeR&9vqaC=qCXX`q#7Jc&%(Nq(A%aFR&68iSq7B{X3|0)&nZV8Vc81AvIrb3Q%j#;"
    "NH_`}?LVVLbI^F4qZ9!esRM$(%MD36rTiF}ZT|5$0yw;MP{M5k}_PK-N%j5$4sm!K<xYB8;rUwBo"
    "9<LkLt)3L_3$2lJqHK0lwxj$0}w^=rfWpo?5ZB3E+(uAjfo##JVARgH7i&t=^0>%ZsXn)axbYW-b"
    "r`uV=MaZQ!b6U{YZO?t$NGuAZL<wIUKOhfH^lipBpx~}(gm}DbXJE{w+O}wC9gX*S3TmfANx((Cq"
    "L3g!Bb|+;!fNi5}hoTiQC}mkq{f43iE~Rhi&I%zObHt@>mhbASBM-kUcNc!=qaP?k(TA0xgb%)|="
    "-@Y2WfDH{x*6-MD<TOW_?=2iP$NRaVk^UPg%Xf35my<J<|{nHIQq(PT%mv?Or&I42kJB8IGCUQGB"
    "|;LC-G}D`1c>H_*p&W^Jr>(h;Fn<WU=URPLN*tMEyLPnk|y+7O9xNNPTuIk^M``HfU<LNv+zXOiZ"
    "8Tw0a8>IRZ)922IU2>2;eT?sTZco(8>BYd)FvYn_YpiEaj5I(wrhF4=4@sf5|K>e^oww)I9%d~zl"
    "FCd}t9(C~>zeHM?{b4EwJ*y74|@<vQt8nU>AD;#<z^JCU}*;riHge1GFhd~aqNo2JNBcQ9<#3nY$"
    "j5Z-Rf>9!(PBGCaG$&fhH2D#SclE+3ltvc?pECMnqI_ajMh>B_v%E;#LeVmDWhPSDD5<QDa%!sf{"
    "Xrejy@XX(xrtS-L~;P27qN*=W$Lragk<uHMvcwr)R56B1m0KG>htD{jEu{f<lCO~Msq;GRQ_MIKV"
    "xhy`NXKW$lO9G2<5x`qNJYa6qlJZ*aVwAADVVeD)#^i&4pZI6PGkxf=ikDrMQs%?Gw<RW|GGDy6v"
    "JSM#UxM%AtQc-?V@8;^xufO|N)y`M6X9PF>9@6YG@V-NdQ5m|S(Z@}ZwvvV-fXQ*kl5U`U`Y<`j?"
    "arQBz|fr?#<R2dAXj+?hV{}X*FVx)@~^WEGJP4Mhgp~%HlrG-L=E7TDcV%AZAq8NoFV-tlU7laks"
    "LZNdgq|}WVL6QX0eA)-a#otU}uzh&?NQ$K63WR3zIKzS!M@miHLEH^<x|k)Ep7XZR8xy~tGt@a)9"
    "ZESE-}plkc4Jh@LZv2EO4($aNe(8RW+YveNy1G$>fsT3q}j)kI;6-Yvz^4$zJd<P78A)*BcczBbZ"
    "kuRw1!2K=y#J1)WA6^J^q|+tprWs4;gDGjzs3rM&Oc_%@M&}0Y^kOM`o8J9iKECNV0QeY~77;eYn"
    "4Qt(YaKrmj8PTgmF?v7UFJl4=J6W7x552O$>b(m;{pCc#njSs8tmae7&%C0P*sHl)g|S6R{E&2(w"
    "n?ePWi?m2SWs9BCqvL*ULgb25tzU5WY@P6;{N^(P#B{HV93;|pH9m`ae;KjvpPE*B1XR#m8^)*)5"
    "O|Hw1=544^8H*a8&Zjc-WXAI+uT5Xv1-K_}5cB5ZTDU)_q%Z0c)QeH)&qH=R^%-;p=*iG675btls"
    "uXc~6I0$AyvYx0#oi?4^R9h~w=RU6-}v-GZZ1swusPnkC^N9jfdKbW_P>dpP0w?CUGjn-#a-s&?m"
    "h1XX$<eKD}W^Px7#P{!dNPOTXYiFUsnK26~I`z-2kU~T?P!-HGq5x5PQURyG1y*jp(lQtbDf&ZU%"
    "|+H3Ag?T2Z(*3D8n-O5m(0HTz7)QfR8^wGW$vnLi!jn@IkgTIrpv2FE&5u2+(kLb0vXtF8EoQK5c"
    "<C5Kw9f%DUKnh4d61@m$1BTNoeLNYb^OOm*{D-MRJGtT!XUQ6Rp3#I8;x6N5vh@j|6!n@ipnXI$A"
    "ZnDD_&se^hYsCqJqee#e^s?+ji-LTq91l2s<?&BMmH<e{(fPf3Lm&Ap(-L*jV#lzO1XMB-70-d`6"
    "O}wUDn%ZDx;ZDxDJ2M;vYt}36sI~&^NGA&#q^bba{?xQ6edl?q;99qTb%hywG{!AIto*zDGcJ26>"
    "gS#wK6xQi;e>oeQZI$WEpB?@)(~^9z$MQ!M0Prfb(81kolBzRCMmf+kA9peIp$=)pAn$&N^pVZg@"
    "Q%9xHm<x$;ALPx7(4jfey%tQQ=Uxxo!|aBZG+N=a(IA$9C9(&ok1$HpDM1!bBy|0pE+;pDZ-q}7_"
    "`EkEZ1R6&3$)kT<!5K*g4)kGzM=<}r!jji40JclX(RCls!poAyRtUeFV*!<Em8cuF>)i?<clrdx4"
    "<4HX|1+N;XA#}IxJ~Bok`aLE}`6>a^0_NAj3ZB=?N0!%fiaHWidl9NSg=$@WZx67ZgLQhW0|~1F)"
    "-zxo=;bmdc6DS!4_=cVV4dImWrX0)MV4`At9uE<5QShQl(lr^TTfrr5}Z;lVd^3wiFfBqfna0|_N"
    "x$#QVyXaG4Opbs7f)c7NuCXrP_f~<Fx|?TB(XOb|(t-XMB{Slm;nR*V$0I76nBmNmz)bCW`U6S2n"
    "&b!ey`9f>tu}gUn5-NWuegTs?lqT~3#jIuc&@z3G^Z;tC6l*51Mbt@eS_)2oSD$|R!5yd$OHL&g?"
    "-`0EDLPFzZrf$UO<<E`c(KdqveiyVKs@=WY~c(K6bUB4Z2N<8LF>Qx3G@kk%(<7nz>#%eM4S^)d*"
    "j|lo>))J<lu1k?lT<Yi1RAi7(AQ==$tqQ~+LJ;~C@&;(?X^c-H6;Mb^zWUlK^>|^CAPoXiwn0<T3"
    "aFFi3`di6$RxdXHB+-+k^M`;CTQweO11O$NhWw%a}g$W#5(wH$GUkmMW2-%C9<0(`s!OEFKr6lP-"
    "`-|O)`yPMEt*vSz1&2^qcjW^eGYJX7UDTYL{r(DA6PiUpIpIaWs_+B*G<S>jq8wBFwc8YczSmf=r"
    "M4jvk2&9x+7Ghc`!iB*Pxr7>|(uK&2m*)TTSJ6O%C1xsXclI>gZ=jZUeVfzq@(b#IeQmf`lJG7&7"
    "#yjp&axtq-(6S8UO^wh~^iUNS~;v)6gvH)O&O+&`39OiKs*GXmxywMaWAT#M=Y+7e2vQL<MB;Zk%"
    "4L_Gg5*k4x-}7xWjTAJ3Mw9=ODH>^L1dY58oRc(KO}QQ85a|$+q};rG#15;QPHb9@xtVaV>4ekyJ"
    "#^A~-Z`zt+zK*5CVwMmF0CfrOfuNiyiG|-fYCFVR)cP+1eGGj-zs9AP|V}9n6QIHw13OH<?7!(dL"
    "!Tsyh-pz!W(##;0;piU2c7ETlr8^Mj*GirwD1%Ob0i}s81k`s!SRawJI{a*;K)??@bC~s%*Y0=xG"
    "L77}S_S<T>^xe_Vt=0{-mlkFneBv3uClN7!Rv&l!6ky@x;RD@98t;m^V2<^+EdX6ei^l06!Ea^*n"
    "{>7y&J7XA2KWR9c5xv^!?<NY9t7S|9&sfi)Mgjfp+L%vGxHW(tZ>mf7iq2=@n6MlD?gCCjhM$<+O"
    "JYJAj<VRCvp}zDz#2p0*zt#+)?;(CLB?yMRC)*T5_@W?oA_x-Rdh5yQ^VZdO$PunJV&chqj;p1GC"
    "r?j0dCa7iY)bTfqp&K^wdY4!)<at<P%b<IwDwZ67&)B<_YtySn38jtawc1}n2uN06IlaUj*x{kFC"
    "H%#Syg%c{?`?=wq}LBNiJU1;g^lmo#XUPe)<CUIqjhZW$}U9R|voShvPg&Gd2pay4Zv?tT_Sbr>`"
    "_g0x(mj0Ls`=fYoIp)ctM9mluGJ-#*@;nii86g8w`FR8o%cSIcCT6@brXC5Wr<g;wmnSYajX`7cF"
    "j#K?ZN+SS}&;du2+Kb5`VH*KTX|DKMqp;R*YCwKPZZq|l;cka9~?pC;z9=xh4p|$24wC`&U-zYx9"
    "Us>@$KI+yQWB)3IN_bY1`tR|NbKk6w_?)(p@SR)f0)%6?Ksm%iAgx9Z+?ofE5pQ!M$h}0+{9~BGS"
    "3R&Q+5_X#F9k0Vy4Uc3Wt{=_Gl^}nM^Jl-;Pl5xklFPv!Eza`g36)7t4|o#RCp}$)7rqmY#tayOb"
    "C8H!PRYE^O7Sb-fn=l?$-btQH?o$`(I5UHQQra&j`ai5jC@8+BdPA58<XyAFh6lKt&`_TjN>HPsv"
    "jh#3>_jiW+g6%5d^1oT?zs)%5L=zt`B=I_=6wDKnUo2gcF%(T%Q!DUM6uH8T@V9fOnAn5;ZTG<)F"
    "um>r7{O&3M;cal|zraAFgC`Z&8RqMAU>zY0|y*{$d#MOdpVXoFCa@AY7I&jT7Ix>9AEOb6-PGs7H"
    "Y1wl%l`7vtbpX|zXR16LsjDM6LIM=ctBzdgoB@yAomOn@Bg=M}d(HUS{6Vb6_-1W}Xba3E!l<Gm9"
    "Z?jNv)%65j1a+FEHSK{6uZ-kOKghX@;V}V;emx=To)I;nB8Gj6v!Z1iN|IygpC~(oT&WR9IzG5MR"
    "<N>J&@HHdxW74fL1cq$bLcVBeIU?K+3fEh^4bU>4C%e5+zc7GxhPyMXDl>YLk!6c1;qMAlevF)!s"
    "rpNlQf2)~~4+rv}cJaGJ<*QN{Q5a(2K;oo?D!37YoOG^eNI>SQJ6EUf{mi-l?d^-NuF53Vz=vI(w"
    "3ELYtoSM$ZSg^A1%T`m)Mx@zVsE2NN7g%sTFR!I@YA!2R=M|Yn3fI10BsFPS+=9pE0LPk9j)5Z07"
    "?*6!KO*Jb_$E-tp|FP?!5mn8?;+{5ptirH!p#yV)hfJKbQ7}v;Frtc8C<B4LVT9xm{8T4KiCPpCm"
    "29PA&q$?#nvpOS*E*F7OG3g#`s?*x)iW7dKTFh!fViK3#xqC%C167Ffckv}#^b;0^P8a;W)MD&rs"
    "CI~jOvIbb#yRUde%J6R~cHaj*9stniB{k7lg5^ea-yWdJjV10?i2&QhtR@xW|bbNfB<Ep{ZM)>5F"
    "tmd9+_1F46s<`FcuLE1yGVY0%@=Bzp3XFP<WO98Fz~^vPqB<e5#JB85oV22EvskWV7FK_Ye|`NJ>"
    "{YD%3x`QoKs3Pn!C$s3?Kfk4BOKsLPm^6U~8mANX6m|GJ_ES7|=UA?A*Xw0ZiwlG*)qr3`<jS79t"
    "#h_603i%9@iw4<fgU}6K#v$o*NF|MgK9U_cb6SPSQ)2N^KrjlV(FwtzO$M0_1EIG&$agBb&AH>M3"
    "8O_e!*CiN!6Uc9Bi8(b@)%G@DAZ@_ioo*XebKOKWQ6M(IwQF$sYX+a6jCM5&vfF$@Sh3^DAa&Lg8"
    "Dq@@5e+2fg}WKKp>tZ(CRz1V+2wVsM=L43k%d`&__d`>-Ik;gFvB(T38N+PNI-@spIIBNwmBFYZH"
    "$`A+_Kd9-YM_wx>r@nwdwTkXpi`lUVe!VHb<KnM0wJS~*B`8j0+I5)BwxHx)S_Adw2MuL+BGpQop"
    "}K--Qi-E>N(!mEHn8c5@lMnW1$LzM>Mb5+i;t<FTPMfdUhn9om*LEc=~@V0(qOn9|m3u%tMSw)!;"
    "(bjp}e0j2Abqv(0ULCGK*WL~;-JDUJ;7Y$vBLduA96{Z{%14FH>t3hWMVvm|<KT8^{o;u6HAK6LG"
    "hq5%*HkJs_uX{{t``GhYb~_dz(4f{Bo+VU43E_0=Qqm4E3y~|Ly+mUd4EL|&5s4@Ut7exA>l?$p`"
    "1Oy4Nh}|izqh;mzJe)7vqtP)wrp45U(s<ZaFmMfE-J57))kPJ}XHamXf9}7M8%0RZAQ!fhDV!^so"
    "e$tXhJQ6_%`7VuH&;D62oRktT94w?}Q-O)3+++3#(;7<^;V(CqvrO-X-)HT9w&ES}Xu0e=d9p=~s"
    "N9*^H_#sADzxf<~Y%V4#Wjo~+J7yR-6$`t5QwHVLCU0ODB4^^@n&Dz4Q_JM9QQ)ii|cYLI-gXJ2X"
    "YYRK=Tz^oYQ#YN8tq$FZ`tM&Lv>vI4mMm~g-FS2Jfbx~(PE7_AJZjvL9$0s``8~?%U-GUCHcXD(m"
    "zNm$Vcs=1uum*|P?CPD^XJIP+f<x_;Fq5n@cw8I2aFgUa3Ke5*PsI%7n6xy2~EaN@7%oOw}}FL{("
    "E9s0`}|(UUR(V=lg%=f83!Xn7vgcdPNs&H(21dS@1hvS(3m$CE%|S{}7VEa!8Oe3b68~vnvoA^UN"
    "xjW`Ay;7XvNbuL3swbp8BYFXtV}%M|jH$8{8K0vG$a;G5jL)vp)ok*8SaX&T@uw(?wG_$>#|*JCn"
    "qG`l%Xxkgh-*8okvk!HDY#XHGPgc-`$9zT+30HwRX&M*b0EgqTV>}K@}%NF`rXLS82oqdzEDJ0GM"
    "1+&gBR_(Dk!gLJeGF>xO@Z{Xq%i6Q@6zAnBvUav#NZnbH(#ADXR|B;0)w9Pr+8WZ~tVn5NqV1=sJ"
    "p)fyLoRf&fQL~ojdNTPv5&3^*Y^BI?t#lB<~LzjtErAKrSHGfx-lU)c6-Op={KEOtEmmE>AZ59oj"
    "QKmgla96sj3Hb#-1Tv;S1@?CQ!#`E(lKuxQ>rhkd4rY9iNz7F8bKiA@(@KPDX4v*%@~J;9>)=J{)"
    "KKo&d7Jx<}uWfGbsIzKU|sU2tniAd-Lf08_Ebw7Uk;E(6c*aGVl2Tf(W<E|4dqnY3VcD=;-+wgc0"
    "wcC^*rtIP4M_vX=1>Q@Ptc9o?z-BnmpPi9|q=FIT}TZfTQ7NA>B;SyZ?Rj$lRkfqE*89SWnfU~v1"
    "vvr86fQhd1CPsBzOIi3Cqq;B+v374)N5^-hBvfq7O$8I@yP+ONAy-iFG9;Xo*DGxZlTf(|9`<=I#"
    "2f{}mIe{5JYoEK&ptZ{n+C#)JxfU3i-RbBLS!r~L50X>8X4<GPymtxNXD{|-RnDY-G1ivT)umpA9"
    "Vp4jygZgW*VlgDPR9{0K+vKw}q9HYk3z5np&FCCsEEPl~#ldK4*7ICOM@#ScPWUDwSjvgHvc0ozg"
    "Kc{_yrxDn$<kr`mVQBs-NL2YhPYCmVSy9Rn&fB(WUCLQ_Jl9+?7~%uWSUXuE0l=MsK22R3K+NrZF"
    "s#Va3TaWo;TM7mYDhN1CGCDWxs;DlyLD+R64<kw0=D>V7FG8kE*$t_iKw2t5jO;{}lwa}DNtB+fE"
    "Bt3}2!M>zdLt(GbV_nlMx&GAn)*cH@TMb`$v~m<mKqxfSW#~gfNeG1|r%(z)p-B<SEC{6`6q=ku1"
    "rv3n7=%LOOD&yIf$LuJNF7a^TCHUW4%a_4qzr-C$MsJKdaE8%p-H(0{*0=Ytr}nz8cK6t-`H`!sF"
    "Xs2-fm(PyZT|oqJ-VY@<*dNh{|D3nmNeCVNRSmW@Zk;?`G4(cysK!Io-?~WZdv3rpK9kW8h6Q6Kk"
    "7rxter1!Ohj;Xve~#%R3a)2k}LNkWe?B8RrscdBTM>y6t>8%NS_6|3U2Ba1dNH>(R)UPaE2NAq{N"
    "1Qhec^U1=o9aAVO8WW=X;!<2FZDezfix!V`=yk;Qhg&BS`kmQ~@PE+Lv9EfSpEC}}rvfA6w3_%QA"
    "QJyLkF_7Ou5X7u!&P(^`LXf1MHxezbhw+7_cY$rEZkid$k#zU|_oPxX>eG6}5_qGiXRh*A!x{eie"
    "_`bKyKef%&QIvV2VLH*`1zqNpr=9qUARArxn=I-t*Q$Phz5~6{rZ0{UT3~Di^!!9Isf@d*iC5x<V"
    "ncQlVQZ&D%-6Rmto@e_5b4sm0QH^$t$hUH{IErGQgdNTYTa+OawkFJTT|D^%C#d(Cj@<RExZ|kGH"
    ")U>wYc?8oW1L#-F?uSIeI@mfxr;(CqYfUvJu0TrBbqW{a}Jf(Kik-X<$DJ<x%VeX;j_8DST>2O~p"
    "kF`Fy!)P8j0yZE6X_K!c1d=Y#w3A|t00Y0^h=WHkHi+|7K8qbz{``$Nr7dPqD%_t7^$&J0)pE0qZ"
    "_Vt0D-b4@TtbI+@?ecl=iSO*sxIk)m(^dg};#vQLJZ`G~fjvN7#h>!lyaE;@7qHuK4I`EwnjhQ)u"
    "GLXrBTfOFE#Z{F*%D3#ocVDc#8QK0Gb{~Qo+7p&LB*n)4MKH*x(4WEM0*fz?=&3%wW-t8MdU<I^C"
    "p<mA4FfH<BZz~N6!+xNNDS6kb7psfcA9&#71U{Cox-(d|vee4KNc~nW-{;U>KOX5U{l+>OPuD)rn"
    "`{#SyG@1S``JE1idxK7!SyLYdQy2gA(lWzMgN^*STDIcqB*=Pq*<8>=8|JK?6qd(q(f%Ych0em@n"
    "t;X<dJX$M??!I~NGk&h*p;nKC~CgcJ|0g4S!l%UuEMFoltP}HE<0L5#rCiNPgzJ3$E2-DWD5)dz1"
    "{L<dp=m0VaWQMb~1kN6p$V8TvfgAv`k&|+Ws%@!^=I^s$S&LLWYr4=bi$a-P_ala=(iL7G6PdRL#"
    "co8xnahVHrZUCWhosAUn(TRVF3dxnkw^Th$+D`dgfNQr<U<Kj9}24!`NX*QaTQb?gn68^cI4zmAY"
    "mlyiG)zBLMV>ema&|$?xT?cjxd+?pg?u1#?z%jF!$v~vw<1Tc*5wmPne%6{A?2c+eeti@IbxR$y4"
    "M1b)UcSE~yvyQ8YEaujRwv(HP+|MhA^iFOgR@Abb?fS&Wh2##ps#jCuVo${NDQ(VWE`^<_@CdTml"
    ")<U^My!l%)k#2QVs#`kNrzaeda<}B_Q&*;Xj_Bo93kCHx(<|N)&vN!LMv5JZUsGmo37Iz%U9ro;X"
    "*ezz%LisG3vl!DST&38v_lW2@D4#`h5@!aFGj`FL`%6uD{42gmA4YQyXN3Rlb1qz4re4=5OpR)}H"
    "-3ygBGI0AGJ{LcHO=w94bQHdgHQ(k-2G9cdsGO6YaWY~tD*3!qv`6P=Yc&>drZQRhuvVx+3le>+^"
    "3IC(8ts7plN^H<MqcS&)0ER;qrs#epA>3fY<JNhNO`X!-Wfd&rK!;&1mY<A;}+3eNKo!lfX}V1nj"
    "w{J>;(E+Z_pa;7+7FX6BB9J7;&N+shp_b4SA+xRdD4Ldq=Q&UsSfoo-UR`;||DEIOZS4tjD4<RH*"
    "h1+rNL>LJiY1+qMgKm!E2s6fVK5J)X9UkQWGFqKN!jxq^*!yk1K&;`20>ms2GbcxpmN%EOvy=RH="
    "YwcW@(G~XPiYGa~uSg14PU6aA0q&h#Sz6Kc{t9vEvZZl5$RZ{iM6Li$-4XpI&C;5)s?(6>1bvL2Y"
    "GYXeZJe-Q-Z+eT&wg`q)3BGaM(U?GJ-mT83Em9w=F;9INTa>6FO1nl@;>_|Z{psIQpIKWU)f27AC"
    "Z6Q=!SqBaAU!ZX`rhtgBqLF;OAAtIWd|s&29}>Fk`D3jBbV{yai`WzcQQg``(0~nek}GG^w@nca="
    "1lk#2_3hHQo)yzs@DB4+TX8FDnkVCquk9E3U*&E|-Au3}+HJC;!9wNz1%yh4;HQ4qC4lqgY<t)4n"
    "0-Nh2KSVL>Im`sA3c*2W9z*)W3j+oMrk8O;K{NTbOVu928z4WT;#E5>W9@a5=ZS-ts@Sz1XHiEZi"
    "d=;eBY6QPj+4`u<2l(h7;_L0~MDATN>?1|V><C>g){)ttPN6O8UCGm3QlP&}fOlig-Y2?VWbSU98"
    "Jy~rPk)^5LFD2#&9VJnC^`Mu2Hs;PX#%yPKfJlT^l<LA^h?pl+dh$ouLiz1M0=nwckTK$hF@3<Kq"
    "}VS<=k1j@e)m@zJ5)&Y<j}8(9gfMlYf6gJ3b2F{4ZNj+_olwk$isvEaj}1q;ozvmsmA`zk2?D!2s"
    "K}XFylE0lLeeKoozWNB)DKzn0y_Qyk~YPv$33?SALKQqS3)U5xR*UlLafM&*i**g1)!nGV1fKg>K"
    "MwT1DS@1@mW7x(w?N01@_(y|KY>DHE?dPRd2Dh{NPt~5v)nu}GNx0H;_grFrSa*BvcLC8+>!d!T`"
    "`~GY4+-@z?Bv-a`m6ni)IPIoaKBbnI6^g`Ygj_-v!l;)qa>g%sP6`6Y*JN@$AN{L9S*@cnD$}K4G"
    "{M1+yCBEi)2a>KYxfP*0_gXM^gx_y+ttzm=lp_sBuzn}Dfl<e9yq@r&p!?)r{MgiIe_M-s9+zMzL"
    "Aif!*naLPthB^&tYB_P<R)c-{{1dBBKmzzBz?b9qr1e0kwd#Qb&?XpVV(e70hi^ZKNpIA;;xop|j"
    "L!d#4tIn)vyF%||K}%7}uXN~bGIQ_>YPOHHI+NLS)18OHKa3T7_q%srpn5S}cQd|Jce!xJg<Q93$"
    "OK{i6;WgF&IVf3-_>~ihWsxa9Qd>gI4U0M|e7h)T%p<P&_x?I9-Vbw3D6~9BD$<m}vJ!EJN^%=eI"
    "O0Zy&Xx!I^hbb13iV)IfpEGS1rv%QHaH_z?v3{D<3s~fP@8-v5C15-aN)42)pfsUQw&GiGc_m2eX"
    "p`p)MMzqZ?8aEXnTw_iK^4ql6ch>c^K(|1!@>3;utw>2&sIG-L_7o9XZ^fk`f#j62&=Rf=WD|GD!"
    "Duu><}z&v667>u$Jlv#a*q{4`C8w`5vw`#W;{^8#+>LgERB2)aJgyCs|hlg<M8Kd4i!NipR=f@hI"
    "lcPj`0VgLdCClQ4(H;uG3xIt9BXLwZPO{_qWxi|cO3QqUbQO+hbH;9OLJK~btiW{=J+EG1#*rCFh"
    "6LPYVaL$=xx6oKTxVb6f$&>9cD-^j_G0EVitghQ5q(VqZ@X{JIW%wjkJi~0&MSmsXZ|Nig)0XWX#"
    "Jp"
)
# -- the end of the tables of one hit --
