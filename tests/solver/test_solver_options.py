"""A game's solver options (``SolverOption`` on its ``SolverSpec``): what an option says of
itself, and ``manage.py solve`` taking its flags from every solvable game's options (a made-up
game's too), refusing a flag the game does not take and calling the game's export for
``--out``."""

from __future__ import annotations

import dataclasses
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engine.spec import SolverOption
from games.registry import get_game
from tests.solver import toy_game
from tests.solver.toy_game import SIDES, STAKE


def run(*args: str) -> str:
    out = StringIO()
    call_command("solve", *args, "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def help_text() -> str:
    from games.management.commands.solve import Command

    return Command().create_parser("manage.py", "solve").format_help()


@pytest.fixture
def toy(monkeypatch):
    return toy_game.install(monkeypatch)


# ------------------------------------------------------------------------- the option
def test_an_option_names_its_flag_fields_and_values():
    assert STAKE.flag == "--stake" and STAKE.field_names == ("stake",)
    assert SIDES.field_names == ("sides0", "sides1")
    assert SolverOption("max_hits", "Max hits").flag == "--max-hits"
    assert SolverOption("n", "N", flag_text="--count").flag == "--count"
    assert SIDES.split("h/e") == ("h", "e") and SIDES.join(["t", "h"]) == "t/h"
    assert STAKE.split(5) == (5,) and STAKE.join([5]) == 5
    assert STAKE.describe(5) == "stake 5" and SIDES.describe("h/t") == "sides h/t"
    assert SIDES.detail("h/t") == "sides h/t (first, second)"
    assert STAKE.detail(5) == "stake 5"
    assert SIDES.plain(["h", "t"]) == "sides h/t" and STAKE.plain(1) == "stake 1"
    assert STAKE.file_text(5) == "x5" and SIDES.file_text("h/e") == "h-e"
    assert STAKE.key(5) == "5" and SIDES.key("h/e") == "h/e"
    shown = SolverOption("n", "Rounds", shown="{} rounds", text=lambda v: f"#{v}")
    assert shown.describe(3) == "#3 rounds"


def test_a_game_declares_its_options_in_its_own_package():
    for spec in (get_game(slug) for slug in ("kuhn", "leduc")):
        assert spec.solver is not None and spec.solver.options == ()
        assert spec.solver.export is None
    solver = get_game("blackjack-pp").solver
    assert solver is not None
    assert [o.name for o in solver.options] == ["up", "max_hits"]
    assert all(isinstance(o, SolverOption) for o in solver.options)
    assert all(type(o).__module__ == "games.engine.spec" for o in solver.options)
    assert solver.option("up").field_names == ("up0", "up1", "up2")
    assert solver.option("max_hits").flag == "--max-hits"
    assert solver.option("max_hits").file_text(2) == "hits2"
    assert solver.option("up").describe("6,6,T") == "up cards 6, 6, 10"
    assert solver.export is not None and solver.export.__module__.startswith("games.blackjack_pp")
    with pytest.raises(KeyError):
        solver.option("stake")


# ------------------------------------------------------------------------ the command
def test_the_command_takes_a_new_games_options_from_its_spec(toy):
    text = run("toy-match", "--stake", "3", "--sides", "h/e", "--iterations", "20")
    assert "Toy match (stake 3, sides h/e): CFR+, 20 iterations" in text
    assert toy_game.CALLS[0] == {"stake": 3, "sides": "h/e"}
    # an option not given is left to the game
    run("toy-match", "--iterations", "5")
    assert toy_game.CALLS[0] == {"stake": None, "sides": None}
    helped = " ".join(help_text().split())
    assert "--stake N toy-match: what a match wins (default 1)" in helped
    assert "--sides A/B toy-match: the two sides, e.g. h/t (default h/t)" in helped
    assert "--max-hits K blackjack-pp: 1, 2 or 3 (default 2)" in helped


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["kuhn", "--stake", "3"],
            "kuhn takes no --stake: --stake and --sides are options of toy-match only",
        ),
        (
            ["toy-match", "--up", "6,6,2"],
            "toy-match takes no --up: --up and --max-hits are options of blackjack-pp only",
        ),
        (
            ["leduc", "--max-hits", "1", "--sides", "h/t"],
            "leduc takes no --max-hits and --sides: blackjack-pp takes --up and --max-hits; "
            "toy-match takes --stake and --sides",
        ),
        (["toy-match", "--stake", "0"], "--stake must be at least 1 (got 0)"),
        (["toy-match", "--out", "x"], "--out writes Blackjack++ strategies: use --json"),
    ],
)
def test_a_flag_the_game_does_not_take_names_the_games_that_do(toy, args, message):
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_flag_several_games_take_is_one_flag_that_names_them_all(monkeypatch):
    hits = get_game("blackjack-pp").solver.option("max_hits")
    shared = dataclasses.replace(hits, help="how often to try", default=4)
    spec = toy_game.install(monkeypatch)
    solver = dataclasses.replace(spec.solver, options=(STAKE, shared))
    toy = dataclasses.replace(spec, solver=solver)
    import games.solver_games

    real = games.solver_games.solvable
    monkeypatch.setattr(games.solver_games, "solvable", lambda: {**real(), "toy-match": toy})
    helped = " ".join(help_text().split())
    assert (
        "--max-hits K blackjack-pp: 1, 2 or 3 (default 2); toy-match: how often to try "
        "(default 4)" in helped
    )
    with pytest.raises(CommandError) as caught:
        run("kuhn", "--max-hits", "2")
    assert str(caught.value) == (
        "kuhn takes no --max-hits: blackjack-pp takes --up and --max-hits; "
        "toy-match takes --stake and --max-hits"
    )
    # the two must read the flag alike
    odd = dataclasses.replace(solver, options=(dataclasses.replace(shared, parse=str),))
    monkeypatch.setattr(
        games.solver_games,
        "solvable",
        lambda: {**real(), "toy-match": dataclasses.replace(spec, solver=odd)},
    )
    with pytest.raises(CommandError, match="--max-hits reads differently for blackjack-pp and"):
        run("kuhn")


def test_out_calls_the_games_export(monkeypatch, tmp_path):
    spec = toy_game.install(monkeypatch)
    written = []

    def export(directory, game, strategy, algorithm, iterations):
        written.append((directory, game.stake, sorted(strategy), algorithm, iterations))
        return 7

    solver = dataclasses.replace(spec.solver, export=export, export_help="write a toy folder")
    import games.solver_games

    real = games.solver_games.solvable
    toy = dataclasses.replace(spec, solver=solver)
    monkeypatch.setattr(games.solver_games, "solvable", lambda: {**real(), "toy-match": toy})
    assert "toy-match: write a toy folder" in " ".join(help_text().split())
    run("toy-match", "--stake", "5", "--iterations", "30", "--out", str(tmp_path))
    assert written == [(tmp_path, 5, ["p0", "p1"], "CFR+", 30)]
