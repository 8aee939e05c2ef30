"""Plays scripted sessions on TextArena's UltimateTexasHoldem-v0 (run by Python 3.12).

With ``{"parse": [texts]}`` instead, reports how the environment reads each text in every
phase, with its default action wrapper and without.

Reads ``{"sessions": [{"max_rounds", "chips", "ante", "deals", "actions"}]}`` on stdin, where
each deal is the round's nine cards (two for the player, two for the dealer, five for the
board, as ``As``, ``Td``...). The environment is made with ``textarena.make`` and its default
wrappers, untouched, except that its module's ``random`` is replaced by a stand-in whose
``shuffle`` arranges each round's deck so that the scripted cards are the ones dealt, and
that the start of each round is watched to read the chips the previous round left.
Writes, per session: the fate of each action sent (``ok``, ``refused`` or ``ended``: the
game was over before reading it), the chips after each completed round, and the end. A
session with ``"observe": true`` also gets the observation text the agent is shown before
each action (``observations``: None for an action sent after the end) and after the last one
(``final``).
"""

import json
import sys

import textarena as ta
import textarena.envs.UltimateTexasHoldem.env as uth_module

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def reference_card(card):
    rank = "10" if card[0] == "T" else card[0]
    return {"rank": rank, "suit": SUITS[card[1]]}


class ScriptedShuffle:
    """Stands in for the ``random`` module: each shuffle deals the next scripted round."""

    def __init__(self, deals):
        self.deals = [[reference_card(c) for c in deal] for deal in deals]

    def shuffle(self, deck):
        wanted = self.deals.pop(0)
        rest = [c for c in deck if c not in wanted]
        # The environment pops from the end: player, player, dealer, dealer, board x 5.
        deck[:] = rest + list(reversed(wanted))


def innermost(env):
    while isinstance(env, ta.Wrapper):
        env = env.env
    return env


def play(session):
    uth_module.random = ScriptedShuffle(session["deals"])
    env = ta.make(
        "UltimateTexasHoldem-v0",
        max_turns=session["max_rounds"],
        start_chips=session["chips"],
        ante_amount=session["ante"],
    )
    raw = innermost(env)
    round_ends = []
    start_round = raw._start_new_round

    def watched_start():
        if raw.state.game_state["current_round"] > 0:
            round_ends.append(raw.state.game_state["chips"])
        start_round()

    raw._start_new_round = watched_start
    env.reset(num_players=1, seed=0)
    fates, observations = [], []
    for action in session["actions"]:
        if raw.state.done:
            fates.append("ended")
            observations.append(None)
            continue
        if session.get("observe"):
            observations.append(env.get_observation()[1])
        seen = len(raw.state.logs)
        _, info = env.step(action)
        # The environment logs the player's action only when it reads it.
        if not any(sender == 0 for sender, _ in raw.state.logs[seen:]):
            fates.append("ended")
        elif info.get("invalid_move"):
            fates.append("refused")
        else:
            fates.append("ok")
    final = env.get_observation()[1] if session.get("observe") else None
    extra = 0
    while not raw.state.done and extra < 3:  # the reference reports a finished game late
        env.step("[skip]")
        extra += 1
    gs = raw.state.game_state
    completed = list(round_ends)
    if gs.get("game_complete"):
        completed.append(gs["chips"])  # the last round ended the game: no new round began
    rewards, game_info = env.close()
    return {
        "fates": fates,
        "round_ends": completed,
        "done": raw.state.done,
        "reward": (rewards or {}).get(0),
        "chips": gs["chips"],
        "round": gs["current_round"],
        "invalid_move": bool(game_info[0].get("invalid_move")),
        "observations": observations,
        "final": final,
    }


#: (phase, play bet) of every situation in which an action is read
SITUATIONS = [
    ("pre_flop", 0),
    ("flop", 0),
    ("flop", 100),
    ("river", 0),
    ("river", 50),
    ("river", 100),
]
CANONICAL = {"play_bet_4x": "4x", "play_bet_2x": "2x", "play_bet_1x": "1x"}


def parse_all(texts):
    """How the reference reads each text in each situation, with and without its wrapper."""
    env = ta.make("UltimateTexasHoldem-v0")
    env.reset(num_players=1, seed=0)
    wrapper, raw = env, innermost(env)
    while not isinstance(wrapper, ta.ActionWrapper):
        wrapper = wrapper.env
    readings = {}
    for phase, play_bet in SITUATIONS:
        raw.state.game_state["current_phase"] = phase
        raw.state.game_state["play_bet"] = play_bet
        for mode, read in (("wrapped", wrapper.action), ("raw", lambda t: t)):
            found = [raw._parse_action(read(t)) for t in texts]
            readings[f"{phase}/{play_bet}/{mode}"] = [CANONICAL.get(f, f) for f in found]
    return readings


def main():
    request = json.load(sys.stdin)
    if "parse" in request:
        json.dump({"readings": parse_all(request["parse"])}, sys.stdout)
    else:
        json.dump({"sessions": [play(s) for s in request["sessions"]]}, sys.stdout)


if __name__ == "__main__":
    main()
