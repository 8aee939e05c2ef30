"""A TextArena-style environment on this engine, so TextArena agents play it unchanged.

    env = UltimateTexasHoldemEnv()          # or make("UltimateTexasHoldem-v0", variant=...)
    env.reset(num_players=1, seed=7)
    done = False
    while not done:
        player_id, observation = env.get_observation()
        done, info = env.step(agent(observation))
    rewards, game_info = env.close()

``observation`` is text: the rules (on the first call), what happened since the previous
call (the end of the last round, a refused action), then the round, the chips, the bets,
the cards and the legal actions. ``step`` reads the action like TextArena does; a refused
action is answered with ``info = {"invalid_move": True, "reason": ...}`` and may be sent
again, once (a second refusal before two accepted actions ends the session, as there).
``close()`` gives ``({0: reward}, {0: info})``: reward 1.0 for a session completed with
chips left, -1.0 for one lost (out of chips, or ended by refused actions).

With ``observation="textarena"`` the observation is TextArena's own text instead: every
message since the start of the session, as its environment and default wrappers write them
(``games/uth/textarena_text.py``, compared with the real package by
``tests/uth/test_reference.py``), for an agent that reads it (``Available actions:
[play_bet_4x], [check]``, ``FLOP revealed: A♠, 10♦, 3♣``).

Unlike the reference, a session's last round is played (the reference stops when that round
is dealt), and the end of a session is reported by the step that causes it rather than by
the next one.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.game import IllegalAction
from games.uth import actions, hands
from games.uth.rules import PAY_TABLES, UthState, blind_pay, chip_value
from games.uth.textarena_text import TextArenaText

ENV_ID = "UltimateTexasHoldem-v0"
#: the kinds of observation text: this project's short one, or TextArena's own
OBSERVATIONS = ("compact", "textarena")


def make(env_id: str = ENV_ID, **options: Any) -> UltimateTexasHoldemEnv:
    """Like ``textarena.make`` for this one game; ``options`` go to the constructor."""
    if env_id != ENV_ID:
        raise ValueError(f"unknown environment {env_id!r} (this is {ENV_ID!r})")
    return UltimateTexasHoldemEnv(**options)


def _cards(cards: list[str]) -> str:
    return " ".join(cards) if cards else "none yet"


class UltimateTexasHoldemEnv:
    def __init__(
        self,
        variant: str = "default",
        max_rounds: int = 1000,
        start_chips: int = 1000,
        ante: int = 25,
        observation: str = "compact",
    ) -> None:
        if variant not in PAY_TABLES:
            raise ValueError(f"unknown variant {variant!r} (known: {', '.join(PAY_TABLES)})")
        if observation not in OBSERVATIONS:
            known = ", ".join(OBSERVATIONS)
            raise ValueError(f"unknown observation {observation!r} (known: {known})")
        self.observation = observation
        self._text: TextArenaText | None = None
        self.config = {
            "variant": variant,
            "max_rounds": max_rounds,
            "chips": start_chips,
            "ante": ante,
        }
        self.state: UthState | None = None
        self._news: list[str] = []
        self._told_rules = False
        self._turns = 0
        self._invalid_end = False

    # ---- the TextArena interface --------------------------------------------------------
    def reset(self, num_players: int = 1, seed: int | None = None) -> None:
        if num_players != 1:
            raise ValueError("Ultimate Texas Hold'em is played by one player against the dealer")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        self.state = UthState.new(seed, num_seats=1, config=self.config)
        self._news = [self._round_banner()]
        self._told_rules = False
        self._turns = 0
        self._invalid_end = False
        if self.observation == "textarena":
            c = self.config
            pays = blind_pay(c["variant"])
            self._text = TextArenaText(c["chips"], c["ante"], c["max_rounds"], pays)
            self._round_started()

    def get_observation(self) -> tuple[int, str]:
        state = self._live()
        if self._text is not None:
            self._news = []
            return 0, self._text.text
        parts = []
        if not self._told_rules:
            parts.append(self.rules())
            self._told_rules = True
        parts += self._news
        self._news = []
        if not state.is_over():
            parts.append(self._status())
        return 0, "\n".join(parts)

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        state = self._live()
        if state.is_over():
            return True, {}
        if self._text is not None:
            self._text.player(action)
        try:
            state.verify(0, action)
        except IllegalAction as exc:
            reason = str(exc)
            legal = [actions.text(a) for a in state.legal()]
            fault = state.reject(0, action, reason)
            if self._text is not None:
                self._text.refused(legal, final=fault is not None)
            if fault is not None:
                state.forfeit({0: fault})
                self._invalid_end = True
                self._news.append(f"Refused again: {reason}. The session is over.")
                return True, {"invalid_move": True, "reason": reason}
            self._news.append(f"Refused: {reason}. Send a legal action.")
            return False, {"invalid_move": True, "reason": reason}
        played = len(state.rounds)
        state.apply(0, action)
        self._turns += 1
        if self._text is not None:
            self._tell_textarena(state, played)
        if len(state.rounds) > played:
            self._news.append(self._round_summary(state.rounds[-1]))
            if state.is_over():
                self._news.append(f"Session over: {state.reason}.")
            else:
                self._news.append(self._round_banner())
        elif state.phase != "pre_flop":
            self._news.append(f"Board: {_cards(state.visible_board())}")
        return state.is_over(), {}

    def close(self) -> tuple[dict[int, float], dict[int, dict[str, Any]]]:
        state = self._live()
        reward = 1.0 if state.outcome == "won" else -1.0
        info = {
            "role": "Player 0",
            "invalid_move": self._invalid_end,
            "turn_count": self._turns,
            "reason": state.reason or "the session is not over",
            "chips": chip_value(state.chips),
            "rounds_played": len(state.rounds),
        }
        return {0: reward}, {0: info}

    # ---- text ---------------------------------------------------------------------------
    def rules(self) -> str:
        c = self.config
        ante = c["ante"]
        pays = ", ".join(
            f"{hands.LABELS[name]} {ratio.numerator}:{ratio.denominator}"
            for name, ratio in PAY_TABLES[c["variant"]].items()
        )
        return (
            "You are playing Ultimate Texas Hold'em against the dealer.\n"
            f"You start with {c['chips']} chips; the session lasts {c['max_rounds']} rounds and"
            " is lost if your chips are 0 or less when a round would start.\n"
            f"Each round you post an ante and a blind of {ante} each and get two cards; the"
            " dealer gets two hidden cards and five shared cards are dealt face down.\n"
            f"Before the flop: [4x] (a play bet of {4 * ante}) or [check]. On the flop (three"
            f" shared cards shown): [2x] (play bet {2 * ante}) or [check], or only [skip] if"
            f" you bet already. At the river (all five shown): [1x] (play bet {ante}) or"
            " [fold] (losing ante and blind), or only [skip] if you bet already.\n"
            "At the showdown the best five of seven cards win. The dealer qualifies with a"
            " pair or better: if not, the ante is returned. The play bet pays 1:1. The blind"
            f" pays on a winning straight or better ({pays}); a smaller winning hand returns"
            " it. Ties return every bet.\n"
            "Answer with one action in square brackets, like [check]."
        )

    def _status(self) -> str:
        state = self._live()
        bets = state.observation()["bets"]
        return (
            f"Round {state.round_no} of {self.config['max_rounds']}, "
            f"{state.phase.replace('_', '-')}. Chips: {chip_value(state.chips)} (bets not"
            f" included). Bets: ante {bets['ante']}, blind {bets['blind']}, play"
            f" {bets['play']}.\nYour cards: {_cards(state.player)}. Board:"
            f" {_cards(state.visible_board())}.\n"
            f"Legal actions: {actions.legal_text(state.legal())}"
        )

    def _round_banner(self) -> str:
        state = self._live()
        return (
            f"Round {state.round_no}: you post ante and blind; your cards are"
            f" {_cards(state.player)}."
        )

    @staticmethod
    def _round_summary(r: dict[str, Any]) -> str:
        if r["folded"]:
            outcome = "You folded"
        else:
            outcome = (
                f"Dealer had {_cards(r['dealer'])} on {_cards(r['board'])}: your"
                f" {hands.LABELS[r['player_hand']]} against the dealer's"
                f" {hands.LABELS[r['dealer_hand']]}"
                + ("" if r["dealer_qualifies"] else " (the dealer does not qualify)")
            )
        res = r["results"]
        return (
            f"{outcome}. Ante {res['ante']:+g}, blind {res['blind']:+g}, play"
            f" {res['play']:+g}: round {r['round']} net {r['net']:+g}, chips {r['chips']:g}."
        )

    def _round_started(self) -> None:
        state = self._live()
        assert self._text is not None
        self._text.round_started(state.round_no, chip_value(state.chips), state.player)

    def _tell_textarena(self, state: UthState, played: int) -> None:
        """What an accepted action made happen, in TextArena's text."""
        assert self._text is not None
        if len(state.rounds) > played:
            self._text.settled(state.rounds[-1])
            if not state.is_over():
                self._round_started()
        else:
            self._text.turned(state.visible_board())

    def _live(self) -> UthState:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state
