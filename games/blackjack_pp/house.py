"""The strategy tables of the built-in ``cfr`` bot (``games/blackjack_pp/bots/cfr.py``) for
deals of one hit, the match default: every one of the 1,000 sets of up cards solved ahead by
this project's solver, as ``manage.py solve blackjack-pp --max-hits 1 --every up`` solves
them, so that the bot looks its moves up instead of solving each deal as it is dealt.

    .venv/bin/python -m games.blackjack_pp.house [--iterations N] [--check]

writes them into the bot's file, between its two marker lines (the same solves always write
the same bytes); ``--check`` only says whether the file holds what it would write.

Why ahead: a deal solved as it is dealt took the bot half a second of CPU time, cut short
where a loaded machine left it less of its move's time, so a match of 40 deals took a worker
20 to 40 seconds, and the bot's strength (and its opponents' rated results) depended on the
machine's load. The tables are CFR+ averages of :data:`ITERATIONS` iterations, rounded to
:data:`DIGITS` digits (exploitable by at most 2.7e-4 points a deal, median 1.4e-5, against
1e-3 for a deal's own solve of 30), and 18 KB of text in the file.
"""

from __future__ import annotations

import argparse
import re
import sys
from itertools import product
from pathlib import Path

from games.blackjack_pp.solving import solver_game
from games.blackjack_pp.tree import NAMES, VALUES
from games.solver.botfile import literal_lines, pack
from games.solver.export import strategy_table
from games.solver.public import solver_for

#: the bot whose file holds the tables
BOT_FILE = Path(__file__).resolve().parent / "bots" / "cfr.py"
ITERATIONS = 100
DIGITS = 3
BEGIN = "# -- the tables of one hit: written by games/blackjack_pp/house.py, not by hand --"
END = "# -- the end of the tables of one hit --"


def up_sets() -> list[str]:
    """Every set of up cards (player 0's, player 1's, the dealer's), as ``"6,6,T"``."""
    return [",".join(NAMES[v] for v in up) for up in product(VALUES, repeat=3)]


def solve(up: str, iterations: int = ITERATIONS) -> dict[str, dict[str, float]]:
    """One deal's strategy with one hit: ``{information set key: {action: probability}}``."""
    game = solver_game(up, 1)
    solver = solver_for(game, "cfr+")
    solver.train(iterations)
    return strategy_table(solver.tree, solver.average_strategy())


def tables(iterations: int = ITERATIONS, ups: list[str] | None = None) -> dict:
    """Every set of up cards' strategy, named as the bot names a deal's (``"6,6,T/1"``)."""
    solved = {}
    for up in up_sets() if ups is None else ups:
        table = solve(up, iterations)
        for key, actions in table.items():
            # (the bot reads a hit's probability: every decision is hit or stand, in order)
            if list(actions) != ["h", "s"]:
                raise ValueError(f"{up}: {key} has the actions {list(actions)}, not h and s")
        solved[f"{up}/1"] = table
    return solved


def block(solved: dict) -> str:
    """The lines between the markers: the packed tables as Python string literals."""
    text, _ = pack(solved, DIGITS)
    return f"{BEGIN}\nONE_HIT = (\n{literal_lines(text)}\n)\n{END}"


def written(source: str, new_block: str) -> str:
    """``source`` with its tables replaced by ``new_block``."""
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if len(pattern.findall(source)) != 1:
        raise ValueError(f"{BOT_FILE} has no one block of tables between its markers")
    return pattern.sub(lambda _: new_block, source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--check", action="store_true", help="only compare the file with them")
    args = parser.parse_args(argv)
    source = BOT_FILE.read_text()
    new = written(source, block(tables(args.iterations)))
    if args.check:
        same = new == source
        print(f"{BOT_FILE}: " + ("up to date" if same else "its tables differ from a new solve"))
        return 0 if same else 1
    BOT_FILE.write_text(new)
    print(f"{BOT_FILE}: 1,000 tables of one hit written ({len(new.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
