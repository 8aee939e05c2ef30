"""Match records replayed from a file: what ``manage.py replay`` does with one.

A match record is what the arena writes to ``--logs DIR/matches/``, what the site's
**Download** link gives (``/matches/<n>/record.json``) and the ``record`` of the API's match
(``/api/matches/<n>/``): the game, config, seats and every event in order. Replaying one runs
its events through the game's own engine (``GameState.replay``, which checks every recorded
chance outcome and action) and then compares the result the engine reaches with the one
recorded, so a record that was edited, or that comes from a different version of the rules,
is refused with what differs. The steps are listed with the game's own frame builder (its
``GameSpec.replay``), the same labels the replay viewer shows.

Nothing here knows a game: each record names its game, and the game's spec says the rest.
"""

from __future__ import annotations

import json
from typing import Any

from games.engine import untrusted
from games.engine.chance import ReplayMismatch
from games.engine.game import IllegalAction
from games.engine.spec import GameSpec
from games.engine.table import plural


class RecordError(ValueError):
    """A record that cannot be replayed; the message says why and, where it can, what to do."""


def refused(record: dict[str, Any], seat: int) -> list[str]:
    """The reasons the rules refused answers of ``seat`` without a fault, in order: the
    ``rejected`` events a game logs where an illegal answer is not a fault (Last Card: an
    illegal move counts as a pass; ``GameState.reject``)."""
    events = record.get("events")
    if not isinstance(events, list):
        return []
    return [
        str(event.get("reason", ""))
        for event in events
        if isinstance(event, dict) and event.get("type") == "rejected" and event.get("seat") == seat
    ]


def refused_text(spec: GameSpec, count: int, first: str) -> str:
    """Refused answers in words, for their bot's author: "31 illegal moves (an illegal move is
    refused and counts as a pass); the first: the 4 of clubs matches neither the suit nor ..."; ""
    for none. ``first``, the rules' words about the bot's answer, is shown on one line."""
    if count <= 0:
        return ""
    rule = f" ({spec.illegal_answer})" if spec.illegal_answer else " refused"
    return f"{plural(count, 'illegal move')}{rule}; the first: {untrusted.one_line(first)}"


def find_record(data: Any) -> dict[str, Any] | None:
    """The match record in ``data``: the data itself (the arena's file, the site's download)
    or its ``record`` (the API's match); None if there is none."""
    if isinstance(data, dict) and isinstance(data.get("record"), dict):
        data = data["record"]
    if isinstance(data, dict) and isinstance(data.get("events"), list):
        return data
    return None


def replay(record: dict[str, Any], spec: GameSpec) -> dict[str, Any]:
    """Replay ``record`` through ``spec``'s engine; the report holds the seats, each step's
    label, the result and whether it is the recorded one (RecordError if not)."""
    seats = record.get("seats")
    config = record.get("config")
    if not isinstance(seats, list) or not seats:
        raise RecordError("the record has no 'seats' (a list of the seats' names)")
    if not isinstance(config, dict):
        raise RecordError("the record has no 'config' (an object)")
    hidden = sum(
        1 for e in record["events"] if isinstance(e, dict) and e.get("type") == "chance"
        and "outcome" not in e
    )  # fmt: skip
    if hidden and spec.state_class.seed_is_public:
        raise RecordError(
            f"the outcomes of its {hidden} shuffle(s) are left out: this is the site's public"
            " copy of the record of a match whose tournament was not over (its seed and"
            " shuffles would deal the deal's other seatings), so the match cannot be dealt"
            " again from it; download the record again once the tournament is over, or"
            " follow the match page's replay instead"
        )
    if hidden:
        raise RecordError(
            f"the outcomes of its {hidden} shuffle(s) are left out: this is the site's public"
            f" copy of the record ({spec.title} keeps the cards nobody saw secret), so the"
            " match cannot be dealt again from it; replay the record the arena wrote (the"
            " files under --logs DIR/matches/) or the match page's replay instead"
        )
    names = [_name(seat, n) for n, seat in enumerate(seats)]
    try:
        state = spec.state_class.replay(record["events"], len(seats), config)
    except (ReplayMismatch, IllegalAction) as exc:
        raise RecordError(f"the record does not replay: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"the record does not replay: a malformed event ({exc!r})") from None
    result = json.loads(json.dumps(state.result()))
    recorded = record.get("result")
    if recorded is not None and recorded != result:
        raise RecordError(_difference(result, recorded))
    return {
        "game": spec.slug,
        "title": spec.title,
        "seats": names,
        "events": len(record["events"]),
        "steps": _steps(record, spec, names),
        "result": result,
        "same_as_recorded": recorded is not None,
    }


def _name(seat: Any, n: int) -> str:
    if isinstance(seat, dict) and isinstance(seat.get("name"), str):
        return seat["name"]
    return f"seat {n}"


def _difference(result: dict[str, Any], recorded: Any) -> str:
    if not isinstance(recorded, dict):
        return f"the recorded result is not an object: {recorded!r}"
    keys = sorted(k for k in result.keys() | recorded.keys() if result.get(k) != recorded.get(k))
    shown = "; ".join(
        f"{k}: replayed {_short(result.get(k))}, recorded {_short(recorded.get(k))}" for k in keys
    )
    return f"the replay does not reach the recorded result ({shown})"


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _steps(record: dict[str, Any], spec: GameSpec, names: list[str]) -> list[dict[str, Any]]:
    """Each step's label and log lines, as the replay viewer shows them (none for a game
    without a frame builder)."""
    if spec.replay is None:
        return []
    return [
        {
            "label": frame["label"],
            "lines": list(frame.get("lines", [])),
            "table": table_lines(frame, names),
        }
        for frame in spec.replay(record, names)
    ]


def table_lines(frame: dict[str, Any], names: list[str]) -> list[str]:
    """What the replay viewer draws after a step, as text: the shared cards (a board, a
    dealer's hand, a pile), then each seat's, every zone by its label, its cards face up by
    their codes and how many are face down (``Board: 3c Jc 4h, 2 face down``)."""
    lines = [_zone(zone) for zone in frame.get("shared", [])]
    for name, seat in zip(names, frame.get("seats", []), strict=False):
        zones = [_zone(zone) for zone in seat.get("zones", [])]
        if zones:
            lines.append(f"{name}: {'; '.join(zones)}")
    return lines


def _zone(zone: dict[str, Any]) -> str:
    cards = " ".join(str(card) for card in zone.get("cards", []))
    down = zone.get("down", 0)
    held = ", ".join(part for part in (cards, f"{down} face down" if down else "") if part)
    return f"{zone.get('label', '')}: {held or 'none'}"


def report_lines(report: dict[str, Any], steps: bool = False) -> list[str]:
    """The report as text: the match, its steps (with ``steps``: each one's log lines, and
    the cards on the table whenever they changed), each seat's score, and that the replay
    reached the recorded result."""
    lines = [
        f"{report['title']}: {', '.join(report['seats'])}; {report['events']} events,"
        f" {len(report['steps'])} steps"
    ]
    if steps:
        shown: list[str] = []
        for number, step in enumerate(report["steps"], 1):
            lines.append(f"step {number}: {step['label']}")
            lines += [f"  {line}" for line in step["lines"]]
            table = step.get("table", [])
            if table and table != shown:  # the cards, where they changed
                lines += [f"    | {line}" for line in table]
                shown = table
    scores = report["result"].get("scores", [])
    for name, score in zip(report["seats"], scores, strict=False):
        lines.append(f"  {name}: {score}")
    if report["same_as_recorded"]:
        lines.append("replayed: the same result as recorded")
    else:
        lines.append("replayed (the record holds no result to compare with)")
    return lines
