"""Goofspiel's replay frames (see games/replays.py for the frame format): a frame for each
deal's first prize, one for each turn once both bids are down (the bids shown together, as
the players saw them), and one for each fault. Each deal is a chapter."""

from __future__ import annotations

from typing import Any

from games.replays import Frame, _actor, _fault_lines, _frame, _seat, steps, zone


def _cards(cards: list[int]) -> list[str]:
    return [str(c) for c in cards]


def _table(state: Any, label: str, lines: list[str], names: list[str]) -> Frame:
    seats = [
        _seat(
            [zone("Hand", _cards(state.hands[seat]))],
            notes=[f"{state.points[seat]} prize points this deal"],
        )
        for seat in (0, 1)
    ]
    prize = [] if state.prize is None else [str(state.prize)]
    shared = [
        zone("Prize", prize),
        zone("Prizes to come", down=len(state.prizes_left())),
    ]
    return _frame(label, lines, list(state.scores), seats, shared)


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    frames: list[Frame] = []
    deal, turns = -1, 0
    for event, state in steps(record):
        if event is not None and event["type"] == "action" and state.bids:
            continue  # one bid is down, the other not yet: nothing to show
        lines: list[str] = []
        decision = ""
        chapter = f"Deal {max(deal, 0) + 1}"
        if event is not None and event["type"] == "fault":
            label = "Out of the match"
            lines += _fault_lines(event, names)
            decision = lines[0]
        elif event is not None and event["type"] == "action":
            done = state.deals_played[-1]["turns"] if state.deal != deal else state.history
            shown = done[turns:]
            for prize, first, second in shown:
                if first == second:
                    taken = "nobody takes it (equal bids)"
                else:
                    taken = f"{names[0 if first > second else 1]} takes it"
                lines.append(
                    f"Prize {prize}: {names[0]} bids {first}, {names[1]} bids {second}; {taken}"
                )
            decision = lines[0].split("; ")[0] if lines else ""
            label = f"Deal {deal + 1}, turn {turns + 1}"
            turns += len(shown)
        else:
            label = "The deal"
        if state.deal != deal and not state.is_over():
            if deal >= 0:
                last = state.deals_played[-1]
                lines.append(
                    f"Deal {deal + 1} ends {last['points'][0]} to {last['points'][1]} in prize "
                    f"points: returns {last['returns'][0]:+g} and {last['returns'][1]:+g}"
                )
            deal, turns = state.deal, 0
            lines.append(f"Deal {deal + 1}: the prizes are shuffled; the first is {state.prize}")
        frame = _table(state, label, lines, names)
        frame["chapter"] = chapter
        frame["decision"] = decision
        frame["actor"] = _actor(event) if event is not None and event["type"] == "fault" else None
        frames.append(frame)
    if frames and state.is_over():
        result = state.result()
        if result["deal_log"]:
            last = result["deal_log"][-1]
            frames[-1]["lines"].append(
                f"Deal {len(result['deal_log'])} ends {last['points'][0]} to "
                f"{last['points'][1]} in prize points"
            )
        a, b = result["scores"]
        end = "a draw" if a == b else f"{names[0 if a > b else 1]} wins the match"
        frames[-1]["lines"].append(f"Final score {a:g} to {b:g}: {end}")
    return frames
