"""RPS Poker's replay frames (see games/replays.py for the frame format)."""

from __future__ import annotations

from typing import Any

from games.replays import (
    Frame,
    TimerMoves,
    _actor,
    _fault_lines,
    _frame,
    _seat,
    card_view,
    faults_said,
    played_for,
    steps,
    zone,
)


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the deal, each of the five draft steps, each of the ten games, and each
    fault: the simultaneous choices of both seats make one step. The chapters: the deal, the
    draft, each game. A choice a live table made for a person whose time ran out says so."""
    from games.rps_poker.cards import DRAFT_STEPS, GAMES

    frames: list[Frame] = []
    offers: list[list[str]] = [[], []]
    chosen: dict[int, int] = {}
    #: what follows each seat's choice of this step: the table played it for them, or not
    noted = ["", ""]
    timer = TimerMoves(record)
    drafting, drafted = True, 0
    for event, state in steps(record):
        if event is not None and event["type"] == "action":
            chosen[event["seat"]] = event["action"]
            if event in timer:
                noted[event["seat"]] = played_for(names[event["seat"]])
            if state.chosen:
                continue  # one seat has chosen, the other not yet: no step to show
        lines: list[str] = []
        label, decision = "The deal", ""
        chapter = ""  # the label
        if event is None:
            lines.append(
                f"The deck is shuffled. Draft: each player is offered two cards {DRAFT_STEPS} "
                "times, keeps one and passes the other."
            )
        elif event["type"] == "fault":
            label = "A fault ends the match"
            # (the match's final score, below, says which games went to whom)
            lines += _fault_lines(event, names)
            decision = lines[0]
        elif drafting:
            drafted += 1
            label, chapter = f"Draft {drafted} of {DRAFT_STEPS}", "The draft"
            kept_said = []
            for seat in (0, 1):
                kept, passed = offers[seat][chosen[seat]], offers[seat][1 - chosen[seat]]
                kept_said.append(f"{names[seat]} keeps {card_view(kept)['label']}")
                lines.append(
                    f"{kept_said[-1]} and passes {card_view(passed)['label']} to "
                    f"{names[1 - seat]}{noted[seat]}"
                )
                kept_said[-1] += noted[seat]
            decision = "; ".join(kept_said)
            if state.phase == "main":
                lines.append(
                    "Each player shuffles its ten cards and draws three. The base card of "
                    f"game 1 is {card_view(state.base)['label']}."
                )
        else:
            game = state.games[-1]
            label, chapter = f"Game {len(state.games)} of {GAMES}", f"Game {len(state.games)}"
            a, b = (card_view(c)["label"] for c in game["played"])
            decision = f"{names[0]} plays {a}{noted[0]}, {names[1]} plays {b}{noted[1]}"
            lines.append(
                f"Base {card_view(game['base'])['label']}: {decision}; "
                f"{names[game['winner']]} wins the game"
            )
        frame = _frame(label, lines, list(state.scores), [], [])
        frame["chapter"] = chapter
        frame["decision"] = decision
        frame["actor"] = _actor(event) if event is not None and event["type"] == "fault" else None
        # a draft step shows its decision: the cards it offered, and what each seat had
        # drafted before it (the lines say what was kept; the next step shows the result)
        decided = drafting and event is not None and event["type"] != "fault"
        _rps_table(frame, state, offers if decided and state.phase == "draft" else None)
        frames.append(frame)
        offers = [list(o) for o in state.offers]
        drafting, chosen, noted = state.phase == "draft", {}, ["", ""]
    if frames and state.is_over():
        a, b = state.scores
        end = "a draw" if a == b else f"{names[0 if a > b else 1]} wins the match"
        winner = None if a == b else 0 if a > b else 1
        faults = faults_said(type(state), state.result(), names, winner)
        frames[-1]["lines"].append(f"Final score {a}-{b}: {end}{faults}")
    return frames


def _rps_table(frame: Frame, state: Any, decided: list[list[str]] | None) -> None:
    """The table after a step; with ``decided`` (the offers of the draft step just played),
    the table at that step's decision."""
    last = state.games[-1] if state.games else None
    seats = []
    for seat in (0, 1):
        zones = []
        if state.phase == "draft":
            # each draft step adds two cards to each deck: the one kept, the one received
            drafted = state.decks[seat][:-2] if decided else state.decks[seat]
            zones.append(zone("Offered", (decided or state.offers)[seat]))
            zones.append(zone("Drafted", drafted))
        else:
            zones.append(zone("Hand", state.hands[seat]))
            zones.append(zone("Deck", down=len(state.decks[seat]), fan="pile"))
            if last is not None:
                zones.append(zone("Played", [last["played"][seat]]))
        won = [g for g in state.games if g["winner"] == seat]
        notes = (
            [f"{len(won)} game{'' if len(won) == 1 else 's'} won"] if state.phase != "draft" else []
        )
        if seat in state.faults:
            notes.append(f"faulted ({state.faults[seat].kind}), plays no further")
        seats.append(_seat(zones, notes, turn=last is not None and last["winner"] == seat))
    shared = []
    if last is not None:
        shared.append(zone(f"Base of game {len(state.games)}", [last["base"]]))
    elif state.phase == "main" and state.base:
        shared.append(zone("Base of game 1", [state.base]))
    undealt = len(state.locations()["undealt"]) + len(state.remaining)
    if decided:  # the next step's offers are still undealt at this step's decision
        undealt += sum(len(offer) for offer in state.offers)
    if state.phase == "main" and state.base and last is not None:
        shared.append(zone(f"Next base (game {len(state.games) + 1})", [state.base]))
    shared.append(zone("Undealt", down=undealt, fan="pile"))
    frame["seats"], frame["shared"] = seats, shared
