"""The text action parser: what it accepts, what it refuses, and that it reads every text as
TextArena's own environment does (checked against the package on thousands of texts)."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from games.engine.game import IllegalAction
from games.uth.actions import parse
from tests.uth import reference_env
from tests.uth.test_reference import DRIVER, FORMS, NOISE

#: the reference's situations (phase, play bet) and the legal actions in each
SITUATIONS = {
    "pre_flop/0": ["4x", "check"],
    "flop/0": ["2x", "check"],
    "flop/100": ["skip"],
    "river/0": ["1x", "fold"],
    "river/50": ["skip"],
    "river/100": ["skip"],
}
TOKENS = [
    "[",
    "]",
    "[",
    "]",
    "4",
    "2",
    "1",
    "3",
    "x",
    "X",
    "play",
    "PLAY",
    "bet",
    "Bet",
    " ",
    "  ",
    "\t",
    "_",
    "c",
    "check",
    "f",
    "fold",
    "s",
    "skip",
    "play_bet_",
    "[4x]",
    "[c]",
    "\u017f",
    "\u212a",
    "\u00e9",
    "\n",
    "bet4x",
    "\u00a0",
]  # with the long s and the kelvin sign, which case-fold to s and k


def fuzz_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 7))) for _ in range(n)]


def test_it_accepts_every_documented_form_in_its_phase():
    assert parse("[4x]", ["4x", "check"]) == "4x"
    assert parse("[Play Bet 4X]", ["4x", "check"]) == "4x"
    assert parse("[play_bet_2x]", ["2x", "check"]) == "2x"
    assert parse("I think I should [c] here", ["2x", "check"]) == "check"
    assert parse("[F]", ["1x", "fold"]) == "fold"
    assert parse("[s]", ["skip"]) == "skip"
    assert parse("check", ["4x", "check"]) == "check"  # bare text is read as if bracketed


def test_it_prefers_the_bet_when_a_text_names_two_actions_as_the_reference_does():
    assert parse("[check] no wait [4x]", ["4x", "check"]) == "4x"
    assert parse("[fold] or [1x]", ["1x", "fold"]) == "1x"


def test_it_refuses_with_a_message_listing_the_legal_actions():
    for text, legal in [
        ("[2x]", ["4x", "check"]),
        ("[check]", ["skip"]),
        ("I check", ["1x", "fold"]),
        ("[raise]", ["2x", "check"]),
    ]:
        with pytest.raises(IllegalAction) as refused:
            parse(text, legal)
        message = str(refused.value)
        assert "legal actions:" in message
        assert all(f"[{a}]" in message for a in legal)
    with pytest.raises(IllegalAction, match="as text"):
        parse(4, ["4x", "check"])
    with pytest.raises(IllegalAction):
        parse("check", ["4x", "check"], wrap_bare=False)


def test_it_reads_every_text_as_the_reference_does():
    texts = sorted({*NOISE, *(f for forms in FORMS.values() for f in forms)})
    texts += fuzz_texts(3000, seed=5)
    try:
        python = reference_env.ensure()
    except reference_env.ReferenceUnavailable as exc:
        pytest.fail(str(exc))
    done = subprocess.run(
        [str(python), str(DRIVER)],
        input=json.dumps({"parse": texts}),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    readings = json.loads(done.stdout)["readings"]
    accepted = 0
    for situation, legal in SITUATIONS.items():
        for mode in ("wrapped", "raw"):
            theirs = readings[f"{situation}/{mode}"]
            for text, their in zip(texts, theirs, strict=True):
                try:
                    mine = parse(text, legal, wrap_bare=mode == "wrapped")
                except IllegalAction:
                    mine = None
                assert mine == their, (situation, mode, text)
                accepted += mine is not None
    assert accepted > 1000  # the fuzz reaches accepted texts, not only refusals
