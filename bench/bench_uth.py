"""Ultimate Texas Hold'em: rounds per second, and the ``basic`` bot's expected return.

    .venv/bin/python bench/bench_uth.py [--rounds N] [--ev-rounds M] [--workers W] [--seed S]

1. Speed: rounds per second of the engine alone (a fixed policy applied directly), of the
   engine with the ``basic`` bot called directly, and of whole sessions through the arena's
   match runner, with ``always-check`` in-process and in a child process speaking the bot
   protocol (JSON lines), one call per decision. Best of three runs each.
2. Expected return of ``basic`` per round, in units of the ante, by Monte Carlo over M
   rounds (in W worker processes, each its own seeded sessions), with the standard error.
   The bot's decisions never look at the pay table, so each round is settled under both
   tables: the ``standard`` result is the ``default`` one with the blind paid by the
   standard table, which makes the difference between the tables exact for the same deals.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

from bots.arena import Arena
from games.engine.tournament import derive_seed, mean_sd_se
from games.registry import get_game
from games.uth.bots.basic import Bot as Basic
from games.uth.rules import PAY_TABLES, UthState

#: published house edge of optimal play, standard table, in % of the ante
PUBLISHED_STANDARD = -2.19
#: published gain of paying flushes 3:1 instead of 3:2, in % of the ante
PUBLISHED_FLUSH_GAIN = 3.9
BIG = 10**15  # chips enough that a long session never runs out


def best_of(runs: int, measure) -> float:
    return max(measure() for _ in range(runs))


def engine_alone(rounds: int) -> float:
    """A fixed policy (4x before the flop, then skip) applied straight to the engine."""
    state = UthState.new(1, config={"max_rounds": rounds, "chips": BIG})
    started = time.perf_counter()
    while not state.is_over():
        state.apply(0, "[4x]" if state.phase == "pre_flop" else "[skip]")
    return rounds / (time.perf_counter() - started)


def engine_with_basic(rounds: int) -> float:
    bot = Basic()
    state = UthState.new(2, config={"max_rounds": rounds, "chips": BIG})
    started = time.perf_counter()
    while not state.is_over():
        state.apply(0, bot.act(state.observation()))
    return rounds / (time.perf_counter() - started)


def through_arena(rounds: int, in_process: bool) -> float:
    sessions = 4
    per_session = max(rounds // sessions, 1)
    with Arena(
        get_game("uth"),
        ["builtin:always-check"],
        in_process_builtins=in_process,
        config={"max_rounds": per_session, "chips": BIG},
    ) as arena:
        started = time.perf_counter()
        summary = arena.run(rounds=sessions, seed=3)
        elapsed = time.perf_counter() - started
    played = summary["bots"][0]["rounds_played"]
    assert played == sessions * per_session
    return played / elapsed


def ev_chunk(seed: int, rounds: int) -> dict[str, float]:
    """Sums over ``rounds`` rounds of basic play: per-table net, net squared, and the
    per-round difference between the tables (all in ante units)."""
    bot = Basic()
    state = UthState.new(seed, config={"max_rounds": rounds, "chips": BIG})
    while not state.is_over():
        state.apply(0, bot.act(state.observation()))
    sums = {"n": 0.0}
    for r in state.rounds:
        ante = r["bets"]["ante"]
        nets = {"default": Fraction(r["net"])}
        if not r["folded"] and r["winner"] == "player":
            paid = PAY_TABLES["default"].get(r["player_hand"], Fraction(0)) * ante
            other = PAY_TABLES["standard"].get(r["player_hand"], Fraction(0)) * ante
            nets["standard"] = nets["default"] - paid + other
        else:
            nets["standard"] = nets["default"]
        sums["n"] += 1
        for table, net in nets.items():
            x = float(net / ante)
            sums[f"{table}_sum"] = sums.get(f"{table}_sum", 0.0) + x
            sums[f"{table}_sq"] = sums.get(f"{table}_sq", 0.0) + x * x
        d = float((nets["default"] - nets["standard"]) / ante)
        sums["diff_sum"] = sums.get("diff_sum", 0.0) + d
        sums["diff_sq"] = sums.get("diff_sq", 0.0) + d * d
    return sums


def mean_se(total: float, squares: float, n: int) -> tuple[float, float, float]:
    mean, sd, se = mean_sd_se(total, squares, n)
    return mean, se, sd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="rounds per speed run")
    parser.add_argument("--ev-rounds", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-speed", action="store_true", help="only the expected return")
    args = parser.parse_args()
    print(f"Ultimate Texas Hold'em, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if not args.no_speed:
        n = args.rounds
        rows = [
            ("engine alone (4x, skip, skip)", lambda: engine_alone(n)),
            ("engine + basic bot, direct", lambda: engine_with_basic(n)),
            ("runner, always-check in-process", lambda: through_arena(n, True)),
            ("runner, always-check child process", lambda: through_arena(n // 4, False)),
        ]
        for label, measure in rows:
            print(f"  {label:38s} {best_of(3, measure):10.0f} rounds/s", flush=True)

    chunk = 20_000
    chunks = [(derive_seed(args.seed, "ev", i), chunk) for i in range(-(-args.ev_rounds // chunk))]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        parts = list(pool.map(ev_chunk, *zip(*chunks, strict=True)))
    totals: dict[str, float] = {}
    for part in parts:
        for key, value in part.items():
            totals[key] = totals.get(key, 0.0) + value
    n = totals["n"]
    print(f"basic bot, expected return per round in % of the ante ({n:,.0f} rounds, seed "
          f"{args.seed}, {time.perf_counter() - started:.0f} s):")  # fmt: skip
    published = {
        "standard": PUBLISHED_STANDARD,
        "default": PUBLISHED_STANDARD + PUBLISHED_FLUSH_GAIN,
    }
    for table in ("standard", "default"):
        mean, se, sd = mean_se(totals[f"{table}_sum"], totals[f"{table}_sq"], n)
        print(f"  {table:9s} {100 * mean:+7.3f}% +- {100 * se:.3f}% (SE; SD per round "
              f"{sd:.2f} antes)   optimal play, published: {published[table]:+.2f}%")  # fmt: skip
    mean, se, _ = mean_se(totals["diff_sum"], totals["diff_sq"], n)
    print(
        f"  flush 3:1 instead of 3:2 adds {100 * mean:+.3f}% +- {100 * se:.3f}% "
        f"(published: +{PUBLISHED_FLUSH_GAIN:.1f}%)"
    )


if __name__ == "__main__":
    main()
