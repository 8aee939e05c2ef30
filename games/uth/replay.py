"""Ultimate Texas Hold'em's replay frames (see games/replays.py for the frame format)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from games.engine.written import minus_signs
from games.replays import (
    Frame,
    TimerMoves,
    _fault_lines,
    _frame,
    _seat,
    cards_text,
    played_for,
    steps,
    zone,
)


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for each deal, each decision of the seat, each showdown and each refusal or
    fault. The ``[skip]`` answers of phases with nothing to decide make no step of their
    own (the cards they turn over show at the next one). A showdown frame shows the round
    as the engine's hand history (``UthState.rounds``) settled it. Each round is a chapter,
    from its deal to its settling step.

    A replay is public and the same for everyone, so it shows the hole cards of a round only
    if the round reached the showdown, as a spectator saw them: the cards of a folded round
    (the player's and the dealer's) and of a round a fault cut short (those, and the board
    not yet turned) stay face down in every step of it (:func:`_face_down`). A move a live
    table played for a person whose time ran out says so."""
    from games.uth.rules import chip_value

    frames: list[Frame] = []
    #: the deal's frame of each round, by its number
    deals: dict[int, Frame] = {}
    settled = 0
    start = Fraction(record["config"].get("chips", 1000))
    name = names[0]
    phase = ""
    state: Any = None
    timer = TimerMoves(record)
    for event, state in steps(record):
        # the phase the seat decided in (the state has moved on to the next one)
        before = phase
        label, phase = f"Round {state.round_no}: {_UTH_PHASES.get(phase, phase)}", state.phase
        net = [chip_value(state.chips - start)]
        if event is None:
            frames.append(deals.setdefault(state.round_no, _uth_deal(state, name, net)))
            continue
        kind = event["type"]
        if kind == "fault":
            # the session is over: the board as it was turned when the fault came
            frame = _uth_live(state, label, _fault_lines(event, names), net, before)
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
        # (a move a live table played for a person whose time ran out says so)
        noted = played_for(name) if event in timer else ""
        said = [] if taken == "[skip]" else [f"{name} {_UTH_WORDS.get(taken, taken)}{noted}"]
        if ended:  # this answer ended the round: its showdown
            settled = len(state.rounds)
            done = state.rounds[-1]
            net = [chip_value(Fraction(done["chips"]) - start)]
            frame = _uth_showdown(done, name, said, net)
            if said and done["folded"]:
                frame["decision"] += noted
            frames.append(frame)
            if not state.is_over():
                deal = _uth_deal(state, name, [chip_value(state.chips - start)])
                frames.append(deals.setdefault(state.round_no, deal))
            else:
                frame["lines"].append(f"The session ends: {state.reason}")
        elif said:
            frame = _uth_live(state, label, said, net)
            frame["actor"], frame["decision"] = 0, _UTH_WORDS.get(taken, taken) + noted
            frames.append(frame)
    if state is not None:
        _face_down(frames, deals, _unshown(state), name)
    return frames


def _unshown(state: Any) -> set[int]:
    """The rounds whose hole cards no one but the player saw: those folded, and the one a
    fault cut short (the session ended in it: it never settled)."""
    unshown = {done["round"] for done in state.rounds if done["folded"]}
    if state.outcome == "fault" and (
        not state.rounds or state.rounds[-1]["round"] < state.round_no
    ):
        unshown.add(state.round_no)
    return unshown


def _face_down(frames: list[Frame], deals: dict[int, Frame], rounds: set[int], name: str) -> None:
    """Turn the player's hole cards face down in every frame of ``rounds``, and say their
    deals without the cards. (The dealer's cards are face down in them already: they are
    turned over only at a showdown.)"""
    if not rounds:
        return
    chapters = {f"Round {number}" for number in rounds}
    for frame in frames:
        if frame["chapter"] not in chapters:
            continue
        for seat in frame["seats"]:
            for part in seat["zones"]:
                part["down"] += len(part["cards"])
                part["cards"] = []
    for number in rounds:
        if number in deals:
            deals[number]["lines"] = [_dealt(number, name, "two cards")]


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


def _dealt(number: int, name: str, cards: str) -> str:
    return f"Round {number}: {name} posts ante and blind and is dealt {cards}"


def _uth_deal(state: Any, name: str, net: list[Any]) -> Frame:
    label = f"Round {state.round_no}: the deal"
    return _uth_live(state, label, [_dealt(state.round_no, name, cards_text(state.player))], net)


def _uth_live(
    state: Any, label: str, lines: list[str], net: list[Any], phase: str | None = None
) -> Frame:
    """The round in play; ``phase``: the one whose board to show, if not the state's (a
    fault ended the session in it)."""
    from games.uth.rules import FLOP, PRE_FLOP, chip_value

    board = {PRE_FLOP: [], FLOP: state.board[:3]}.get(phase or state.phase, list(state.board))
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
        lines.append(
            minus_signs(f"Ante and blind are lost: {done['net']:+g}, {done['chips']:g} chips")
        )
    else:
        qualifies = "qualifies" if done["dealer_qualifies"] else "does not qualify"
        lines.append(
            f"Showdown: {name} has {_hand(done['player_hand'])}, the dealer "
            f"{_hand(done['dealer_hand'])} ({qualifies}, shows {cards_text(done['dealer'])}); "
            f"winner: {done['winner']}"
        )
        lines.append(
            minus_signs(
                f"Ante {results['ante']:+g}, blind {results['blind']:+g}, "
                f"play {results['play']:+g}: net {done['net']:+g}, {done['chips']:g} chips"
            )
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
    frame["notes"] = [minus_signs(f"round net {done['net']:+g}")]
    frame["chapter"] = f"Round {done['round']}"
    frame["actor"] = 0
    frame["decision"] = "folds" if done["folded"] else minus_signs(f"net {done['net']:+g}")
    return frame
