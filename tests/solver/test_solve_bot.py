"""``manage.py solve --bot``: a standalone bot with the solved tables embedded, which plays in
the real sandbox, passes the upload validation and plays the solved strategy."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from io import StringIO
from pathlib import Path
from types import ModuleType

import pytest
from django.core.management import CommandError, call_command

from games.blackjack_pp.rules import value
from games.blackjack_pp.solving import BOT as BLACKJACK_BOT
from games.blackjack_pp.tree import NAMES, BlackjackPP
from games.kuhn.tree import Kuhn
from games.leduc.tree import Leduc
from games.management.commands.solve import chosen_values, sweep_values
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array
from games.solver_games import solvers

#: each game with a small solve, and a built-in opponent for the arena
SOLVES = {
    "kuhn": (["--iterations", "500"], "builtin:cfr"),
    "leduc": (["--iterations", "300"], "builtin:cfr"),
    "blackjack-pp": (["--up", "6,6,2", "--max-hits", "1", "--iterations", "100"], "builtin:simple"),
}


def solve(*args: str) -> str:
    out = StringIO()
    call_command("solve", *args, "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def write_bot(tmp_path: Path, game: str, *extra: str) -> tuple[Path, dict]:
    """The bot of a small solve of ``game``, and the solve's JSON document."""
    bot, doc = tmp_path / f"solved_{game.replace('-', '_')}.py", tmp_path / f"{game}.json"
    solve(game, *SOLVES[game][0], "--bot", str(bot), "--json", str(doc), *extra)
    return bot, json.loads(doc.read_text())


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def embedded(module: ModuleType, name: str, answers: dict[str, str]) -> dict:
    """A table of the bot as the solver writes strategies: {key: {label: probability}}."""
    labels = {answer: label for label, answer in answers.items()}
    return {
        key: {labels.get(a, a): weight / module.SCALE for a, weight in row}
        for key, row in module.table(name).items()
    }


@pytest.mark.parametrize("game", list(SOLVES))
def test_the_written_bot_plays_in_the_sandbox_without_a_fault(tmp_path, game):
    bot, _ = write_bot(tmp_path, game)
    results = tmp_path / "results.json"
    call_command(
        "arena", "--game", game, str(bot), SOLVES[game][1], "--rounds", "2", "--seed", "5",
        "--no-progress", "--json", str(results), stdout=StringIO(),
    )  # fmt: skip
    data = json.loads(results.read_text())
    assert data["matches"] == 2
    mine = next(b for b in data["bots"] if b["source"] == str(bot))
    assert mine["faults"] == 0 and mine["matches"] == 2


@pytest.mark.parametrize(
    ("game", "tree", "answers"),
    [
        ("kuhn", Kuhn(), {}),
        ("leduc", Leduc(), {}),
        ("blackjack-pp", BlackjackPP((6, 6, 2), 1), BLACKJACK_BOT.answers),
    ],
)
def test_the_embedded_table_is_the_solved_one_rounded(tmp_path, game, tree, answers):
    bot, doc = write_bot(tmp_path, game)
    module = load(bot)
    (name,) = module.DOC["tables"]
    table = embedded(module, name, answers)
    assert set(table) == set(doc["infosets"])
    for key, row in doc["infosets"].items():
        assert table[key] == pytest.approx(row, abs=1e-3), key
    flat = build(tree)
    rounded = exploitability(flat, strategy_array(flat, table))
    assert rounded == pytest.approx(doc["exploitability"], abs=2e-3)


def frequency(bot, obs: dict, action: str, draws: int) -> float:
    return sum(bot.act(obs) == action for _ in range(draws)) / draws


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_its_action_frequencies_at_a_mixed_infoset_match_the_table(tmp_path, game):
    bot_file, doc = write_bot(tmp_path, game)
    module = load(bot_file)
    key, row = next(
        (k, r) for k, r in sorted(doc["infosets"].items()) if 0.1 < max(r.values()) < 0.9
    )
    legal = list(row)
    action, p = max(row.items(), key=lambda item: item[1])
    draws = 4000
    seen = frequency(module.Bot(), {"infoset": key, "legal": legal}, action, draws)
    assert abs(seen - p) < 5 * math.sqrt(p * (1 - p) / draws) + 1e-3


def test_a_blackjack_bot_finds_its_table_by_the_up_cards_and_plays_a_rule_elsewhere(tmp_path):
    bot_file, doc = write_bot(tmp_path, "blackjack-pp")
    module = load(bot_file)
    assert list(module.DOC["tables"]) == ["6,6,2/1"]
    # a mixed information set, or else the most even one
    key, row = min(doc["infosets"].items(), key=lambda item: abs(item[1]["h"] - 0.5))
    obs = {"up": ["6h", "6s", "2c"], "max_hits": 1, "infoset": key, "legal": ["hit", "stand"]}
    draws = 2000
    p = row["h"]
    seen = frequency(module.Bot(), obs | {"total": 20}, "hit", draws)
    assert abs(seen - p) < 5 * math.sqrt(p * (1 - p) / draws) + 1e-3
    # up cards no solve covered, and another max hits: the simple rule
    other = obs | {"up": ["Th", "6s", "2c"]}
    assert module.Bot().act(other | {"total": 12}) == "hit"
    assert module.Bot().act(other | {"total": 16}) == "stand"
    assert module.Bot().act(obs | {"max_hits": 2, "total": 16}) == "stand"


def test_the_blackjack_bot_names_a_deal_as_the_solver_names_its_settings(tmp_path):
    """The bot's ``setting(obs)`` from real observations of the engine (card codes with
    suits, J/Q/K) equals the table name of a solve with those up cards."""
    bot_file, _ = write_bot(tmp_path, "blackjack-pp")
    module = load(bot_file)
    state_class = get_game("blackjack-pp").state_class
    seen = set()
    for seed in range(60):
        state = state_class.new(seed, config={"hands": 2})
        (seat,) = state.pending()
        obs = state.prompt(seat).data
        up = [NAMES[value(card)] for card in obs["up"]]
        game = BlackjackPP(tuple(value(card) for card in obs["up"]), obs["max_hits"])
        assert game.settings()["up"] == up
        assert module.setting(obs) == BLACKJACK_BOT.table_key(game.settings())
        seen.add(module.setting(obs))
    assert len(seen) > 50


def test_every_value_of_an_option_gets_a_table(tmp_path):
    bot = tmp_path / "both.py"
    text = solve(
        "blackjack-pp", "--up", "T,T,T", "--every", "max-hits", "--values", "1", "2",
        "--iterations", "20", "--bot", str(bot),
    )  # fmt: skip
    text = " ".join(text.split())  # (its lines wrapped to the terminal's width)
    assert "2 tables" in text and f"bot written to {bot}" in text
    module = load(bot)
    assert sorted(module.DOC["tables"]) == ["T,T,T/1", "T,T,T/2"]
    obs = {"up": ["Kh", "Qs", "Jc"], "legal": ["hit", "stand"], "total": 12}
    for hits in (1, 2):
        assert module.table(module.setting(obs | {"max_hits": hits}))
    assert len(module.table("T,T,T/2")) > len(module.table("T,T,T/1"))
    assert "2 solves (max hits: 2 values), CFR+, 20 iterations each;" in text
    assert "--every max-hits --values 1 2" in bot.read_text()  # the command that made it


def test_a_sweep_to_a_target_says_how_many_iterations_its_solves_ran(tmp_path):
    text = solve(
        "blackjack-pp", "--up", "T,T,T", "--every", "max-hits", "--values", "1", "2",
        "--iterations", "500", "--target", "0.001", "--bot", str(tmp_path / "bot.py"),
    )  # fmt: skip
    text = " ".join(text.split())  # (its lines wrapped to the terminal's width)
    ran = re.search(r"CFR\+, (\d+) to (\d+) iterations \(each stopped at exploitability 0.001 "
                    r"or 500\); the worst exploitability ([0-9.e-]+)", text)  # fmt: skip
    assert ran is not None, text
    assert int(ran[1]) < int(ran[2]) <= 500 and float(ran[3]) <= 0.001


def test_values_pick_among_the_values_of_the_option_swept(tmp_path):
    up = solvers()["blackjack-pp"].option("up")
    assert chosen_values(up, ["t,t,t", "6,6,2"]) == ["6,6,2", "T,T,T"]  # in the option's order
    with pytest.raises(CommandError, match=r"--values 11,2,2: not a value of --up \(A,A,A, "):
        chosen_values(up, ["6,6,2", "11,2,2"])
    with pytest.raises(CommandError, match="--values picks values of --every OPTION"):
        solve("blackjack-pp", "--values", "1", "--bot", str(tmp_path / "b.py"))


def test_an_options_values_are_each_combination_of_its_parts():
    up = solvers()["blackjack-pp"].option("up")
    values = sweep_values(up)
    assert len(values) == 1000 and len(set(values)) == 1000
    assert values[0] == "A,A,A" and "T,6,2" in values


def test_the_same_solve_writes_the_same_file(tmp_path):
    first, _ = write_bot(tmp_path / "a", "leduc")
    second, _ = write_bot(tmp_path / "b", "leduc")
    assert first.read_bytes() == second.read_bytes()


def test_a_bot_over_the_limit_is_refused_with_its_size_and_what_makes_it_smaller(
    tmp_path, settings
):
    settings.BOT_MAX_CODE_BYTES = 4100  # (the bot is about 4,300 bytes, 4,050 with 2 digits)
    bot = tmp_path / "big.py"
    with pytest.raises(CommandError) as caught:
        solve("leduc", "--iterations", "50", "--bot", str(bot))
    message = str(caught.value)
    assert "the limit for a bot file is 4,100 bytes" in message
    assert "288 information sets" in message and "--bot-digits 2" in message
    assert not bot.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["kuhn", "--every", "up"], "--every solves for a bot: give --bot PATH too"),
        (["kuhn", "--bot-digits", "2"], "--bot-digits rounds the --bot file"),
        (["kuhn", "--bot", "x.py", "--bot-digits", "0"], "--bot-digits must be 1 to 6"),
        (["kuhn", "--bot", "x.py", "--every", "up"], "kuhn has no option to sweep"),
        (["blackjack-pp", "--bot", "x.py", "--every", "cards"], "blackjack-pp can sweep up"),
        (
            ["blackjack-pp", "--bot", "x.py", "--every", "up", "--up", "6,6,2"],
            "--every up solves every value: leave out --up",
        ),
    ],
)
def test_bot_options_that_do_not_apply_are_refused(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CommandError, match=message.replace("-", r"\-")):
        solve(*args)
    assert not (tmp_path / "x.py").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("game", list(SOLVES))
def test_the_written_bot_passes_the_upload_validation(tmp_path, game, django_user_model):
    from bots.competition.uploads import run_validation, upload

    bot, _ = write_bot(tmp_path, game)
    owner = django_user_model.objects.create_user("author")
    version = upload(owner, game, "solved", bot.name, bot.read_bytes())
    result = run_validation(version, quick=False)
    assert result.ok, result.log


def test_a_file_it_did_not_write_is_never_overwritten(tmp_path):
    mine = tmp_path / "my_bot.py"
    mine.write_text("class Bot:\n    def act(self, obs):\n        return 'p'\n")
    with pytest.raises(CommandError, match="was not written by manage.py solve --bot"):
        solve("kuhn", "--iterations", "10", "--bot", str(mine))
    assert mine.read_text().startswith("class Bot:")
    # a bot it wrote is replaced by the next solve
    solved = tmp_path / "solved.py"
    solve("kuhn", "--iterations", "10", "--bot", str(solved))
    first = solved.read_text()
    solve("kuhn", "--iterations", "200", "--bot", str(solved))
    assert solved.read_text() != first and "--iterations 200" in solved.read_text()


def test_the_written_bot_draws_afresh_in_every_match(tmp_path):
    # A fixed seed would repeat its mixed choices match after match, for an opponent's
    # author to read off the replays. Each match's bot (a fresh process in the sandbox) draws
    # its own: 40 bots, as 40 matches make them, do not all draw alike.
    bot, _ = write_bot(tmp_path, "kuhn")
    module = load(bot)
    assert module.SEED is None
    draws = {tuple(module.Bot().rng.random() for _ in range(3)) for _ in range(40)}
    assert len(draws) == 40


def test_the_bots_line_is_wrapped_between_words(tmp_path, monkeypatch):
    # "bot written to ...: 2,684 bytes (1 table, 12 information s" / "ets), in 0.1 s"
    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.chdir(tmp_path)
    out = solve("kuhn", "--iterations", "20", "--bot", "kuhn_bot.py")
    said = out[out.index("bot written to") :]
    assert all(len(line) <= 50 for line in said.splitlines()), said
    assert re.fullmatch(
        r"bot written to kuhn_bot\.py: [\d,]+ bytes \(1 table, 12 information sets\), in "
        r"\d+\.\d s",
        " ".join(said.split()),
    ), said
