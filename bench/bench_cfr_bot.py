"""How the built-in ``cfr`` bot of Blackjack++ plays with 1, 2 and 3 hits: its time per move,
the exploitability of its strategy on the exact game, and its edge against ``simple``.

    .venv/bin/python bench/bench_cfr_bot.py [--max-hits 1,2,3] [--sets 8] [--pairs 4]
                                             [--hands 50] [--seed 1] [--no-exact]

For each max hits:

- **Moves**: ``--pairs`` pairs of matches of ``--hands`` deals against ``simple`` (a pair:
  one seed, ``cfr`` in each seat), in this process as a site's worker plays them, the bot's
  solution cache emptied first (a match's deals have fresh up cards, so most of its first
  moves in a deal pay for a solve; the second match of a pair finds them solved); each
  ``act`` call is timed: min, median, p99 and max, against the move's deadline. A pair's
  points per deal for ``cfr`` give the *played* edge, with its 95% interval over pairs (a
  deal's luck is large: hundreds of deals give a wide interval).
- **Exact**: ``--sets`` sets of up cards drawn as a deal draws them (``--seed``); for each,
  the deal's exact public tree (``games.solver.public``), the bot's solution as it solves it
  in play (half a second of its CPU time, within 0.8 s of the clock), mapped onto every
  information set of the tree (the simple rule where the solution has none), and then, exactly:
  its exploitability (min, median, max over the sets; ``simple``'s beside it), and its
  expected points per deal against ``simple`` (both positions averaged), whose mean over the
  sets is the *exact* edge, with a 95% interval over the sets (no card luck in it beyond the
  up cards).
- **Equilibrium** (unless ``--no-exact``): for up cards 6,6,2 the exact game solved by the
  project's public-tree CFR+ to exploitability 1e-3 (``manage.py solve``'s solver), its value
  for player 0 beside the bot's strategy's value against a best response from each side.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from scipy.stats import t as t_dist

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.blackjack_pp.bots import cfr  # noqa: E402
from games.blackjack_pp.tree import PROBABILITY, VALUES, PublicBlackjackPP  # noqa: E402
from games.engine.agents import InProcessAgent  # noqa: E402
from games.engine.runner import MatchRunner  # noqa: E402
from games.registry import get_game  # noqa: E402
from games.solver.public import (  # noqa: E402
    PublicSolver,
    best_response_value,
    build_public,
    exploitability,
    value_of,
)

GAME = get_game("blackjack-pp")
CARD = {"A": 1, "T": 10}


def card(text: str) -> int:
    return CARD.get(text) or int(text)


def simple_hits(up: tuple[int, int, int], key: str) -> float:
    """What ``simple`` does at an information set ``PD:H``: hit below 15."""
    player, down, history = int(key[0]), card(key[1]), key[3:]
    cards = [up[player], down]
    for token in history.split(",") if history else []:
        if token[0] == str(player) and token[1] == "h":
            cards.append(card(token[2:]))
    hard = sum(cards)
    return 1.0 if (hard + 10 if 1 in cards and hard + 10 <= 21 else hard) < 15 else 0.0


def bot_table(up: tuple[int, int, int], solution, keys: list[str]) -> dict:
    """The bot's hit probability at every information set (the simple rule where its
    solution has none, as the bot plays)."""
    table = {}
    for key in keys:
        player, history = int(key[0]), key[3:]
        hit = None
        if solution is not None:
            tokens = history.split(",") if history else []
            hit = solution.strategy(player, tokens, card(key[1]))
        if hit is None:
            hit = simple_hits(up, key)
        table[key] = {"h": hit, "s": 1.0 - hit}
    return table


def ci95(xs: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (Student's t: a few matches or sets are few)."""
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return mean, float("nan"), float("nan")
    half = t_dist.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / len(xs) ** 0.5
    return mean, mean - half, mean + half


class TimedCfr(cfr.Bot):
    seconds: list[float] = []

    def act(self, obs):
        started = time.perf_counter()
        try:
            return super().act(obs)
        finally:
            TimedCfr.seconds.append(time.perf_counter() - started)


def played(max_hits: int, pairs: int, hands: int, seed: int) -> tuple[list[float], list[float]]:
    """Per pair of matches (one seed, cfr in each seat), cfr's points per deal against
    simple; and every act call's seconds."""
    cfr._SOLVED.clear()
    TimedCfr.seconds = []
    runner = MatchRunner(time.monotonic, GAME.time_control)
    per_match = []
    for m in range(pairs * 2):
        seat = m % 2
        classes = [GAME.builtin_class("simple")] * 2
        classes[seat] = TimedCfr
        agents = [InProcessAgent(c, GAME.bot_call, c.__name__) for c in classes]
        match_seed = seed * 1000 + m // 2
        state = GAME.state_class.new(match_seed, config={"hands": hands, "max_hits": max_hits})
        result = runner.run(state, agents, seed=match_seed).result
        if result["faults"]:
            raise SystemExit(f"max hits {max_hits}, match {m}: faults {result['faults']}")
        per_match.append(result["scores"][seat] / hands)
    per_pair = [(a + b) / 2 for a, b in zip(per_match[::2], per_match[1::2], strict=True)]
    return per_pair, TimedCfr.seconds


def draw_up(rng: random.Random) -> tuple[int, int, int]:
    weights = [PROBABILITY[v] for v in VALUES]
    a, b, c = rng.choices(VALUES, weights, k=3)
    return a, b, c


def exact(up: tuple[int, int, int], max_hits: int) -> dict:
    """The bot's solution for one deal, judged on the exact game."""
    tree = build_public(PublicBlackjackPP(up, max_hits))
    keys = tree.infoset_keys
    cfr._SOLVED.clear()
    started = time.perf_counter()
    solution = cfr.solved(up, max_hits)
    solve_s = time.perf_counter() - started
    mine = bot_table(up, solution, keys)
    simple = {k: {"h": simple_hits(up, k), "s": 1.0 - simple_hits(up, k)} for k in keys}
    bot_sigma = tree.strategy_from_table(mine)
    edge = 0.0
    for cfr_player in (0, 1):
        table = {k: (mine[k] if int(k[0]) == cfr_player else simple[k]) for k in keys}
        value = value_of(tree, tree.strategy_from_table(table))
        edge += value if cfr_player == 0 else -value
    iterations = getattr(solution, "iterations", 0) if solution is not None else 0
    return {
        "exploitability": exploitability(tree, bot_sigma),
        "simple_exploitability": exploitability(tree, tree.strategy_from_table(simple)),
        "edge": edge / 2,
        "solve_s": solve_s,
        "iterations": iterations,
        "bytes": getattr(solution, "nbytes", 0),
        "tree": tree,
        "sigma": bot_sigma,
    }


def equilibrium(max_hits: int) -> None:
    up = (6, 6, 2)
    got = exact(up, max_hits)
    tree, sigma = got["tree"], got["sigma"]
    solver = PublicSolver(tree, "cfr+")
    started = time.perf_counter()
    while solver.iterations < 1000:
        solver.iterate()
        if solver.iterations % 10 == 0 and solver.exploitability() < 1e-3:
            break
    print(
        f"  equilibrium 6,6,2: exact CFR+ {solver.iterations} iterations "
        f"({time.perf_counter() - started:.1f} s), exploitability "
        f"{solver.exploitability():.1e}, value for player 0 {solver.value():+.4f}; the bot's "
        f"strategy: exploitability {got['exploitability']:.1e}; against a best response it "
        f"gets at least {-best_response_value(tree, sigma, 1):+.4f} as player 0 and gives "
        f"at most {best_response_value(tree, sigma, 0):+.4f} as player 1 (points for player 0)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-hits", default="1,2,3")
    parser.add_argument("--sets", type=int, default=8, help="up-card sets for the exact figures")
    parser.add_argument("--pairs", type=int, default=4, help="pairs of matches played")
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-exact", action="store_true", help="skip the equilibrium solves")
    args = parser.parse_args()
    move = GAME.time_control.move
    print(f"cfr against simple; move deadline {move:.1f} s; solve budget {cfr.BUDGET_S} s")
    for max_hits in (int(x) for x in args.max_hits.split(",")):
        print(f"\nmax hits {max_hits}")
        per_pair, seconds = played(max_hits, args.pairs, args.hands, args.seed)
        ms = sorted(s * 1000 for s in seconds)
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        print(
            f"  moves: {len(ms)} act calls, ms min {ms[0]:.2f} median "
            f"{statistics.median(ms):.2f} p99 {p99:.1f} max {ms[-1]:.1f} "
            f"(deadline {move * 1000:.0f}; over it: {sum(m > move * 1000 for m in ms)})"
        )
        mean, lo, hi = ci95(per_pair)
        print(
            f"  played edge: {mean:+.3f} points a deal (95% CI {lo:+.3f} to {hi:+.3f}) over "
            f"{len(per_pair)} pairs of matches of {args.hands} deals (one seed, seats swapped)"
        )
        rng = random.Random(args.seed)
        rows = []
        for _ in range(args.sets):
            up = draw_up(rng)
            row = exact(up, max_hits)
            rows.append(row)
            print(
                f"    up {','.join(map(str, up))}: exploitability {row['exploitability']:.1e}"
                f" (simple {row['simple_exploitability']:.3f}), edge {row['edge']:+.4f}, "
                f"solve {row['solve_s'] * 1000:.0f} ms, {row['iterations']} iterations, "
                f"{row['bytes'] / 1024:.0f} KiB"
            )
        xs = sorted(r["exploitability"] for r in rows)
        mean, lo, hi = ci95([r["edge"] for r in rows])
        print(
            f"  exploitability over {len(rows)} sets: min {xs[0]:.1e} median "
            f"{statistics.median(xs):.1e} max {xs[-1]:.1e}; simple's median "
            f"{statistics.median(r['simple_exploitability'] for r in rows):.3f}"
        )
        print(
            f"  exact edge: {mean:+.4f} points a deal (95% CI {lo:+.4f} to {hi:+.4f}) over "
            f"{len(rows)} sets of up cards"
        )
        most = max(r["bytes"] for r in rows)
        if most:  # the merged states' tables (1 hit keeps its small solver)
            print(
                f"  solution cache: {most / 1024:.0f} KiB a set at most, {cfr.CACHE_SIZE} sets: "
                f"{cfr.CACHE_SIZE * most / 2**20:.1f} MiB at most"
            )
        if not args.no_exact:
            equilibrium(max_hits)


if __name__ == "__main__":
    main()
