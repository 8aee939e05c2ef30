"""An agent written for TextArena's UltimateTexasHoldem-v0 enters the arena through the
adapter of ``games/uth/textarena_text.py``: it is shown the environment's TextArena text
(the same text, step for step, as ``UltimateTexasHoldemEnv(observation="textarena")``, which
``test_reference.py`` checks against the real package) and its text answers are played."""

from __future__ import annotations

import io
import json
import random
import textwrap
from pathlib import Path

import pytest
from django.core.management import call_command

from games.engine.game import IllegalAction
from games.uth.env import make
from games.uth.rules import UthState
from games.uth.textarena_text import TextArenaBot, best_hand, card_text
from tests.uth.test_reference import FORMS

#: a TextArena agent that reads the text: it answers the first action TextArena says is
#: available after a refusal (its first answer is refused on purpose), bets 4x after it,
#: and otherwise checks and calls at the river
AGENT_FILE = """
import sys

from textarena_text import TextArenaBot


class ReadingAgent:
    def __init__(self):
        self.bet = False

    def __call__(self, observation):
        last = observation.rsplit("\\n", 1)[-1]
        if "Available actions: [" in last:
            choice = last.split("Available actions: ", 1)[1].split(", ")[0]
            self.bet = choice.startswith("[play_bet")
            print("read:", last, file=sys.stderr)
            return choice
        if "Your hand:" in last:
            self.bet = False
            return "[raise]" if "[Player]" not in observation else "[check]"
        if self.bet:
            return "[skip]"
        if "FLOP revealed" in last:
            return "[check]"
        return "[play bet 1x]"


class Bot(TextArenaBot):
    name = "reading-agent"
    agent_class = ReadingAgent
"""


def test_an_agent_that_reads_the_text_plays_its_sessions_in_the_arena(tmp_path):
    bot = tmp_path / "reading_agent.py"
    bot.write_text(AGENT_FILE)
    # no copy of the toolkit module beside the bot: --no-sandbox puts it there, as the
    # sandbox does
    out_json, logs = tmp_path / "results.json", tmp_path / "logs"
    call_command(
        "arena", "--game", "uth", str(bot), "--sessions", "2", "--rounds-per-session", "20",
        "--seed", "4", "--no-sandbox", "--jobs", "1", "--no-progress", "--json", str(out_json),
        "--logs", str(logs), stdout=io.StringIO(),
    )  # fmt: skip
    (entry,) = json.loads(out_json.read_text())["bots"]
    assert entry["faults"] == 0 and entry["rounds_played"] == 40
    stderr = "".join(p.read_text() for p in (logs / "stderr").iterdir())
    assert "read: [GAME] \u274c Invalid action! Available actions: [play_bet_4x], [check]" in stderr
    for record in (logs / "matches").glob("*.json"):
        events = json.loads(record.read_text())["events"]
        actions = [e["action"] for e in events if e["type"] in ("action", "rejected")]
        assert actions[:2] == ["[raise]", "[play_bet_4x]"]


class Recording:
    """A TextArena agent that keeps what it was shown and answers in every written form."""

    shown: list[str] = []
    answers: list[str] = []

    def __call__(self, observation: str) -> str:
        Recording.shown.append(observation)
        return Recording.answers.pop(0)


class RecordingBot(TextArenaBot):
    agent_class = Recording


@pytest.mark.parametrize("seed", range(6))
def test_the_adapter_shows_the_agent_the_environments_text(seed):
    rng = random.Random(seed)
    config = UthState.default_config() | {"max_rounds": 40, "chips": 1000}
    env = make(observation="textarena", max_rounds=40, start_chips=config["chips"])
    env.reset(seed=seed)
    state = UthState.new(seed, num_seats=1, config=config)
    Recording.shown, Recording.answers = [], []
    bot = RecordingBot()
    while not state.is_over():
        # a refused answer now and then, never two close enough to end the session
        refused = len(Recording.shown) % 17 == 5
        form = "[raise]" if refused else rng.choice(FORMS[rng.choice(state.legal())])
        Recording.answers.append(form)
        answer = bot.act(state.observation())
        assert Recording.shown[-1] == env.get_observation()[1]
        env.step(answer)
        try:
            state.verify(0, answer)
        except IllegalAction as exc:
            fault = state.reject(0, answer, str(exc))
            if fault is not None:
                state.forfeit({0: fault})
        else:
            state.apply(0, answer)
    assert len(Recording.shown) > 12 and "Invalid action!" in Recording.shown[-1]
    assert env.get_observation()[1].startswith(Recording.shown[-1])


def test_it_names_the_best_hand_and_its_cards_as_textarena_does():
    assert card_text("Td") == "10\u2666" and card_text("As") == "A\u2660"
    name, five = best_hand(["Ah", "2d", "3c", "4s", "5h", "Kd", "Kc"])
    assert name == "Straight" and five == ["Ah", "2d", "3c", "4s", "5h"]
    name, five = best_hand(["Th", "Jh", "Qh", "Kh", "Ah", "9h", "2c"])
    assert name == "Royal Flush" and five == ["Th", "Jh", "Qh", "Kh", "Ah"]
    assert best_hand(["7c", "7d", "7h", "2s", "2d", "9c", "9h"])[0] == "Full House"


def test_an_adapter_without_an_agent_says_what_to_set():
    with pytest.raises(TypeError, match="set agent_class"):
        TextArenaBot()


def test_the_example_in_the_docs_is_the_tested_agent():
    doc = (Path(__file__).parents[2] / "docs" / "games" / "uth.md").read_text()
    assert textwrap.dedent(AGENT_FILE).strip() in doc


def test_an_adapter_can_make_its_agent_with_arguments():
    class Bot(TextArenaBot):
        def make_agent(self):
            return lambda observation: "[4x]" if "Your hand" in observation[-60:] else "[s]"

    state = UthState.new(2)
    assert Bot().act(state.observation()) == "[4x]"
