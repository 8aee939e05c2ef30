"""Ultimate Texas Hold'em's replay frames (see games/replays.py for the frame format)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from games.replays import Frame, _fault_lines, _frame, _seat, cards_text, steps, zone


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for each deal, each decision of the seat, each showdown and each refusal or
    fault. The ``[skip]`` answers of phases with nothing to decide make no step of their
    own (the cards they turn over show at the next one). A showdown frame shows the round
    as the engine's hand history (``UthState.rounds``) settled it. Each round is a chapter,
    from its deal to its settling step."""
    from games.uth.rules import chip_value

    frames: list[Frame] = []
    settled = 0
    start = Fraction(record["config"].get("chips", 1000))
    name = names[0]
    phase = ""
    for event, state in steps(record):
        # the phase the seat decided in (the state has moved on to the next one)
        label, phase = f"Round {state.round_no}: {_UTH_PHASES.get(phase, phase)}", state.phase
        net = [chip_value(state.chips - start)]
        if event is None:
            frames.append(_uth_deal(state, name, net))
            continue
        kind = event["type"]
        if kind == "fault":
            frame = _uth_live(state, label, _fault_lines(event, names), net)
            frame["actor"], frame["decision"] = 0, "out of the session"
            frame["lines"].append(f"The session ends: {state.reason}")
            frames.append(frame)
            continue
        if kind == "rejected":
            text = f"{name} answers {event['action']!r:.80}: refused ({event['reason']})"
            frame = _uth_live(state, label, [text], net)
            frame["actor"], frame["decision"] = 0, "refused answer"
            frames.append(frame)
            continue
        ended = len(state.rounds) > settled
        taken = state.rounds[-1]["actions"][-1] if ended else _uth_text(state.taken[-1])
        said = [] if taken == "[skip]" else [f"{name} {_UTH_WORDS.get(taken, taken)}"]
        if ended:  # this answer ended the round: its showdown
            settled = len(state.rounds)
            done = state.rounds[-1]
            net = [chip_value(Fraction(done["chips"]) - start)]
            frame = _uth_showdown(done, name, said, net)
            frames.append(frame)
            if not state.is_over():
                frames.append(_uth_deal(state, name, [chip_value(state.chips - start)]))
            else:
                frame["lines"].append(f"The session ends: {state.reason}")
        elif said:
            frame = _uth_live(state, label, said, net)
            frame["actor"], frame["decision"] = 0, _UTH_WORDS.get(taken, taken)
            frames.append(frame)
    return frames


_UTH_PHASES = {"pre_flop": "before the flop", "flop": "the flop", "river": "the river"}
_UTH_WORDS = {
    "[4x]": "bets 4x the ante",
    "[2x]": "bets 2x the ante",
    "[1x]": "bets 1x the ante",
    "[check]": "checks",
    "[fold]": "folds",
}


def _hand(category: str) -> str:
    """``two_pair`` -> ``two pair``."""
    return category.replace("_", " ")


def _uth_text(move: str) -> str:
    from games.uth import actions

    return actions.text(move)


def _uth_bets(ante: int, play: int) -> list[str]:
    return [f"ante {ante}", f"blind {ante}", f"play {play}" if play else "no play bet"]


def _uth_deal(state: Any, name: str, net: list[Any]) -> Frame:
    frame = _uth_live(
        state,
        f"Round {state.round_no}: the deal",
        [f"Round {state.round_no}: {name} posts ante and blind and is dealt "
         f"{cards_text(state.player)}"],
        net,
    )  # fmt: skip
    return frame


def _uth_live(state: Any, label: str, lines: list[str], net: list[Any]) -> Frame:
    from games.uth.rules import chip_value

    board = state.visible_board() if not state.is_over() else list(state.board)
    seat = _seat(
        [zone("Hole cards", state.player)],
        [f"{chip_value(state.chips)} chips", *_uth_bets(state.ante, state.play_bet)],
        turn=not state.is_over(),
    )
    shared = [
        zone("Dealer", down=2),
        zone("Board", board, down=5 - len(board)),
    ]
    frame = _frame(label, lines, net, [seat], shared)
    frame["notes"] = [f"phase: {state.phase.replace('_', ' ')}"]
    frame["chapter"] = f"Round {state.round_no}"
    return frame


def _uth_showdown(done: dict[str, Any], name: str, lines: list[str], net: list[Any]) -> Frame:
    results = done["results"]
    if done["folded"]:
        lines.append(f"Ante and blind are lost: {done['net']:+g}, {done['chips']:g} chips")
    else:
        qualifies = "qualifies" if done["dealer_qualifies"] else "does not qualify"
        lines.append(
            f"Showdown: {name} has {_hand(done['player_hand'])}, the dealer "
            f"{_hand(done['dealer_hand'])} ({qualifies}, shows {cards_text(done['dealer'])}); "
            f"winner: {done['winner']}"
        )
        lines.append(
            f"Ante {results['ante']:+g}, blind {results['blind']:+g}, play {results['play']:+g}: "
            f"net {done['net']:+g}, {done['chips']:g} chips"
        )
    seat = _seat(
        [zone("Hole cards", done["player"])],
        [f"{done['chips']:g} chips", *_uth_bets(done["bets"]["ante"], done["bets"]["play"])],
    )
    # the dealer turns its cards over only at a showdown, never after a fold
    dealer = zone("Dealer", down=2) if done["folded"] else zone("Dealer", done["dealer"])
    shared = [dealer, zone("Board", done["board"])]
    # the river's decision settles the round: a fold ends it there, anything else goes on to
    # the showdown in the same step
    ending = "folded at the river" if done["folded"] else "the river and the showdown"
    frame = _frame(f"Round {done['round']}: {ending}", lines, net, [seat], shared)
    frame["notes"] = [f"round net {done['net']:+g}"]
    frame["chapter"] = f"Round {done['round']}"
    frame["actor"] = 0
    frame["decision"] = "folds" if done["folded"] else f"net {done['net']:+g}"
    return frame
