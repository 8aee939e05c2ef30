"""Plays Blackjack++ by CFR: for each combination of up cards it solves the deal when the
deal starts and plays the average strategy: half a second of its own CPU time, within 0.8 s
of the move's second.

With ``max_hits`` 1 (the match default) it solves the deal exactly, in plain Python (so a
copy of this file runs in the sandbox too): CFR+ on the deal's public tree (what both
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

import sys
import time
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
        up = tuple(card_value(c) for c in obs["up"])
        solver = solved(up, obs["max_hits"], shared=self.shared)
        p_hit = None
        if solver is not None:
            tokens = obs["history"].split(",") if obs["history"] else []
            p_hit = solver.strategy(obs["position"], tokens, card_value(obs["down"]))
        if p_hit is None:
            return "hit" if obs["total"] < 15 else "stand"
        return "hit" if self.rng.random() < p_hit else "stand"
