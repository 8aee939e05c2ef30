"""Ultimate Texas Hold'em at a live table: your hole cards, the board as far as it is turned,
your bets and chips; the dealer's cards only once a round reaches the showdown."""

from __future__ import annotations

from typing import Any

from games.chips.table import the_cards
from games.engine.table import TableOption, TableRules, name_of, signed
from games.replays import zone
from games.uth.actions import BET_1X, BET_2X, BET_4X, CHECK, FOLD, SKIP, text
from games.uth.rules import OVER, UthState

RECENT = 10
#: each action's button and key at a table (the times sign, as the page always wrote it)
TIMES = "\u00d7"
FACES = {
    BET_4X: (f"Bet 4{TIMES}", "4"),
    BET_2X: (f"Bet 2{TIMES}", "2"),
    BET_1X: (f"Bet 1{TIMES}", "1"),
    CHECK: ("Check", "C"),
    FOLD: ("Fold", "F"),
    SKIP: ("Continue", "S"),
}
PHASES = {"pre_flop": "before the flop", "flop": "on the flop", "river": "at the river"}


def _words(action: str) -> str:
    """An action as the log says it (``[4x]`` or ``4x``: "bet 4" and the times sign)."""
    return FACES.get(action.strip("[]"), (action, ""))[0].lower()


def _hand(category: str | None) -> str:
    return str(category or "").replace("_", " ")


def _verdict(done: dict[str, Any], who: str = "you") -> str:
    """A settled round's end: ``who`` folded ("you", or the player's name for anyone else),
    or the hands of its showdown."""
    if done["folded"]:
        return f"{who} folded"
    against = f"{_hand(done['player_hand'])} against the dealer's {_hand(done['dealer_hand'])}"
    return against + ("" if done["dealer_qualifies"] else " (dealer does not qualify)")


def _held(done: dict[str, Any], seat: int | None) -> str:
    """A settled round's hole cards in words, as ``seat`` saw them: " (you held the ... and
    the ...)"; a spectator is told them only of a round that reached the showdown (after the
    player's name: " (held the ...)")."""
    if not done.get("player"):
        return ""
    return f" ({'you held' if seat == 0 else 'held'} {the_cards(done['player'])})"


class UthTable(TableRules):
    default_action_text = "check, or fold at the river"
    #: the score is the session's net chips, a loss as often as a gain
    signed_scores = True
    options = (
        TableOption(
            "max_rounds",
            "Rounds",
            tuple((r, f"{r} rounds") for r in (5, 10, 20, 50)),
            default=10,
            help="You start with 1000 chips; the ante and the blind are 25 each.",
            shown="{} rounds",
        ),
        TableOption(
            "variant",
            "Pay table",
            # (short enough to be read whole in the menu on a phone: the help says it all)
            (
                ("default", "default: a flush pays 3 to 1"),
                ("standard", "standard: a flush pays 3 to 2"),
            ),
            default="default",
            help="What the blind pays on a winning flush: 3 to 1 in the default pay table (as "
            "in TextArena's game), 3 to 2 in the standard casino one.",
            shown="{} pay table",
        ),
    )

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        scores = result.get("scores") or []
        net = scores[0] if scores else 0
        reason = result.get("reason") or "the session is over"
        # signed as the final score beside it (score_text)
        return f"{reason[:1].upper()}{reason[1:]}. Net result: {signed(net)} chips."

    @staticmethod
    def _seen(state: UthState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may know of the session now, as data."""
        live = state.phase != OVER
        public: dict[str, Any] = {
            "phase": state.phase,
            "round": state.round_no if live else len(state.rounds),
            "max_rounds": state.config["max_rounds"],
            "board": state.visible_board() if live else [],
            "chips": state.observation()["chips"] if live else state.result()["chips"],
            "bets": {"ante": state.ante, "blind": state.ante, "play": state.play_bet},
            "taken": [text(a) for a in state.taken] if live else [],
            # settled rounds: the cards turned at the showdown (a folded round's hole cards
            # and dealer's cards only to the seat, as its bot's ``last_round`` shows them)
            "rounds": [state.seen_round(r, seat) for r in state.rounds[-RECENT:]],
            "outcome": state.outcome,
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if live:
            mine |= {
                "hole": list(state.player),
                "legal": [text(a) for a in state.legal()],
                "error": state.last_error,
            }
        return public | {"you": mine}

    def frame(self, state: UthState, seat: int | None, names: list[str]) -> dict[str, Any]:  # type: ignore[override]
        view = self._seen(state, seat)
        live = state.phase != OVER
        # the player as this viewer reads it: "you", or their name
        player_name = name_of(names, 0, None) if names else "the player"
        who = "you" if seat == 0 else player_name
        phase = PHASES.get(state.phase, "")
        bets = view["bets"]
        notes = [f"Round {view['round']} of {view['max_rounds']}"]
        # the seat's chips count the bets it has on the table, as the log's "(950 now)" of
        # the round before does (the next round's ante and blind are posted from them)
        chips = view["chips"]
        if live:
            staked = f"on the table: ante {bets['ante']}, blind {bets['blind']}"
            if bets["play"]:
                staked += f", play {bets['play']}"
            notes += [staked, f"{view['chips']:g} behind"]
            chips += bets["ante"] + bets["blind"] + bets["play"]
        seats = [
            {
                "zones": [],
                "notes": notes,
                "turn": live,
                "turn_text": phase,
                "score": f"{chips:g} chips",
                "badges": [],
            }
        ]
        shared: list[dict[str, Any]] = []
        lines: list[str] = []
        if live:
            board = view["board"]
            shared.append(zone("Dealer", down=2))
            shared.append(zone("Board", board, down=5 - len(board)) | {"note": phase})
        if view["rounds"]:
            last = view["rounds"][-1]
            number = last["round"]
            # a folded round's hole cards and dealer cards are turned over for the seat alone
            player = last["player"] or []
            whose = "your cards" if seat == 0 else "player"
            shared.append(zone(f"Round {number}: {whose}", player, down=0 if player else 2))
            dealer = last["dealer"] or []
            shared.append(zone(f"Round {number}: dealer", dealer, down=0 if dealer else 2))
            shared.append(zone(f"Round {number}: board", last["board"]))
            lines.append(f"Round {number}: {_verdict(last, who)}, {signed(last['net'])} chips.")
        hand = []
        if live and seat is not None:
            hand.append(zone("Your hole cards", view["you"]["hole"]))
            if view["taken"]:
                lines.append("This round you: " + ", ".join(map(_words, view["taken"])) + ".")
        choices = " or ".join(_words(a) for a in state.legal()) if live else ""
        # a round's log line names the player for anyone but the player
        named = "" if seat == 0 else f", {player_name}"
        return {
            "label": f"Round {view['round']}" if live else "The session is over",
            "lines": lines,
            "scores": [chips],
            "seats": seats,
            "shared": shared,
            "hand": hand,
            "pick": "",
            # on a phone the hole cards come before the dealer, the board and the rounds before
            # (static/css/table.css), in view with the buttons when the player is asked
            "hand_first": True,
            "status": f"Round {view['round']}, {phase}." if live else "The session is over.",
            # the player's words: never a spectator's, nor once the session is over
            "prompt": f"Your turn {phase}: {choices}." if live and seat is not None else "",
            "log": [
                {
                    "key": f"r{r['round']}",
                    "text": f"Round {r['round']}{named}{_held(r, seat)}: "
                    f"{', '.join(map(_words, r['actions']))}; "
                    f"{_verdict(r, '').strip()}: {signed(r['net'])} chips "
                    f"({r['chips']:g} now).",
                }
                for r in view["rounds"]
            ]
            # the round in play move by move, so that the log follows a person's own moves
            + [
                {
                    "key": f"r{view['round']}.{i}",
                    "text": f"Round {view['round']}, {who}: {_words(a)}.",
                }
                for i, a in enumerate(view["taken"], 1)
            ]
            # a fault: who faulted, and the round it cut short
            + self.fault_log(state, [name_of(names, 0, seat) if names else "the player"]),
        }

    def fault_given(self, state: UthState, names: list[str]) -> str:  # type: ignore[override]
        """The round a fault cut short, which loses its bets (no round after it is played),
        as "The session ends: round 3 is cut short and its bets are lost: \u221250 chips (950
        now)" says it."""
        cut = state.cut_short
        if cut is None:
            return ""
        chips = state.result()["chips"]
        return (
            f"The session ends: round {cut['round']} is cut short and its bets are lost: "
            f"{signed(cut['net'])} chips ({chips:g} now)."
        )

    def actions(self, state: UthState, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if state.phase == OVER:
            return []
        return [
            {
                "value": text(action),
                "label": FACES[action][0],
                "key": FACES[action][1],
                "secondary": action in (CHECK, FOLD),
            }
            | ({"also": ["Enter"]} if action == SKIP else {})
            for action in state.legal()
        ]

    def default_action(self, state: UthState, seat: int) -> Any:  # type: ignore[override]
        legal = state.legal()
        if CHECK in legal:
            return text(CHECK)
        return text(FOLD) if FOLD in legal else text(legal[0])
