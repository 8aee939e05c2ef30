"""The moves a live table plays for a person whose turn timer ran out are kept in the stored
match (its record's ``played_for``: games/engine/played_for.py, docs/live-tables.md "The turn
timer"). The solver's review lists them without judging them (they were no decisions of the
person's), and a finished table's page shows the person's "Time ran out..." lines again
where their log had them, to them alone. A record without the key (stored before it
existed, or of a match where nothing was played for anyone) works as it did."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest

from bots.running.playing import Entry, play
from games import reviews
from games.engine import untrusted
from games.engine.played_for import KEY, actions_played_for, events_played_for
from games.live.host import LOG_KEPT, Finish, SeatPlan, TableHost, final_messages
from games.registry import get_game
from games.solver.export import result_document
from games.solver.public import solver_for
from games.solver.review import review
from tests.live.test_host import Wire, builtin, host, join, run
from tests.live.test_resume import (
    PLANS,
    TIMERS,
    Store,
    ann_away_at_turn_3,
    kill,
    last_action,
    start,
)

#: the review's words for a move the table played
NOT_REVIEWED = "Time ran out: the table played this move by default, so it is not reviewed."
TOLD = "Time ran out, so this was played for you: "


def kuhn_values():
    """The values of the review's solve of Kuhn poker (its review settings)."""
    settings = reviews.review_settings("kuhn", {"config": {"hands": 10}})
    game = settings.make_game()
    solver = solver_for(game, settings.algorithm)
    solver.train(settings.iterations)
    return reviews.values_of(settings, result_document(game, solver))


def page_log(wire: Wire, audience: str) -> list[dict[str, Any]]:
    """The log a page of ``audience`` kept by the end, from every message it heard in order:
    each ``state``'s log lines and each ``note`` (a line of the seat's own), each key once
    with its first text, the latest LOG_KEPT (static/js/table.js)."""
    logged: dict[str, dict[str, Any]] = {}
    for message in wire.to(audience):
        if message["type"] == "state":
            for entry in message["frame"]["log"]:
                logged.setdefault(entry["key"], entry)
        elif message["type"] == "note":
            entry = {"key": message["key"], "text": message["text"], "mine": True}
            logged.setdefault(message["key"], entry)
    return list(logged.values())[-LOG_KEPT:]


def defaulted_turns(wire: Wire, seat: int) -> list[int]:
    """The turns of ``seat`` its log said were played for it (a note after the turn)."""
    turns, turn = [], None
    for message in wire.to(f"seat:{seat}"):
        if message["type"] == "turn":
            turn = message["turn"]
        elif message["type"] == "note":
            turns.append(turn)
    return turns


def actions_of(record: dict[str, Any], seat: int) -> list[int]:
    """The indexes of ``seat``'s action events: its n-th turn made the n-th of them."""
    return [
        i
        for i, e in enumerate(record["events"])
        if e.get("type") == "action" and e.get("seat") == seat
    ]


async def play_letting_turns_pass(
    game: str,
    seats: list[SeatPlan],
    person: int,
    let_pass: set[int],
    config: dict[str, Any] | None = None,
) -> tuple[Wire, dict[str, Any]]:
    """A table where the person in seat ``person`` lets the turns of ``let_pass`` (numbers
    from 1) run out and plays the others (the game's safe move, as her own); returns what
    its host published and the stored record."""
    wire = Wire()
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    table = host(game, seats, wire, config=config, turn_timer=0.5, away_timer=0.5, on_finish=store)
    run(table)
    answered: set[int] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while not table.done.is_set():
        assert loop.time() < deadline, "the match did not end"
        turns = wire.to(f"seat:{person}", "turn")
        human = table.humans[person]
        if turns and human.waiting and human.turn == turns[-1]["turn"]:
            turn = turns[-1]["turn"]
            if turn not in let_pass and turn not in answered:
                answered.add(turn)
                table.submit(person, turn, table.rules.default_action(table.state, person))
        await asyncio.sleep(0.005)
    assert await join(table, 5)
    played = finished[0].played
    assert played is not None
    # stored as the site stores it
    return wire, untrusted.storable(played.outcome.record)


async def ann_away_from_kuhn(hands: int) -> tuple[Wire, Any]:
    """A Kuhn table of ``hands`` where ann never answers (every move of hers is the timer's)
    against cfr: what its host published and the match played."""
    wire = Wire()
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    table = host(
        "kuhn",
        [SeatPlan("ann", "human"), builtin("kuhn", "cfr")],
        wire,
        config={"hands": hands},
        turn_timer=0.2,
        away_timer=0.01,
        on_finish=store,
        away_turns_end=0,  # (she never plays: the whole match all the same)
    )
    run(table)
    assert await join(table, 60)
    played = finished[0].played
    assert played is not None
    return wire, played


@pytest.mark.asyncio
async def test_moves_played_for_an_away_person_are_not_reviewed_as_their_decisions():
    """The audit's case: ann never answers, so every move of hers is the timer's; the review
    judged them as hers ("You folded with the king, ...: a mistake that costs 3.00 chips")."""
    wire, played = await ann_away_from_kuhn(10)
    notes = wire.to("seat:0", "note")
    assert notes and all(n["text"].startswith(TOLD) for n in notes)
    record = played.outcome.record
    assert record[KEY] == [[0, i] for i in actions_of(record, 0)]
    assert len(record[KEY]) == len(notes)

    # the review of her seat, from the record as she may see it, as the match page makes it
    spec = get_game("kuhn")
    mine = spec.state_class.public_record(record, seat=0)
    moves = spec.solver.review_moves(mine)
    values = {(): kuhn_values()}
    done = review(moves, values, 0)
    assert len(done.rows) == len(notes)  # every decision of hers is listed
    assert not done.reviewed and done.mistakes == 0
    assert {row.reason for row in done.rows} == {NOT_REVIEWED}
    # the bot's own decisions are reviewed as ever
    theirs = review(moves, values, 1)
    assert theirs.reviewed and not any(row.move.played_for for row in theirs.rows)


@pytest.mark.asyncio
async def test_the_record_names_the_moves_the_timer_played_and_the_review_judges_the_others():
    wire, record = await play_letting_turns_pass(
        "kuhn",
        [SeatPlan("ann", "human"), builtin("kuhn", "cfr")],
        0,
        {2, 3, 6},
        config={"hands": 10},
    )
    defaulted = defaulted_turns(wire, 0)
    assert {2, 3, 6} <= set(defaulted)
    ann = actions_of(record, 0)
    assert len(ann) > 6
    # her n-th turn made her n-th action: those her log said were played for her, no other
    assert record[KEY] == [[0, ann[turn - 1]] for turn in defaulted]
    assert events_played_for(record) == {ann[turn - 1]: 0 for turn in defaulted}
    # nothing secret: everyone saw her marked away as those moves were made (the public
    # record, and the one without the deals, keep it)
    spec = get_game("kuhn")
    assert spec.state_class.public_record(record)[KEY] == record[KEY]
    assert spec.state_class.without_deals(record)[KEY] == record[KEY]
    away = [m["seats"][0]["away"] for m in wire.to("public", "seats")]
    marked = sum(1 for was, now in itertools.pairwise(away) if now and not was)
    runs = sum(1 for turn in defaulted if turn - 1 not in defaulted)
    assert marked == runs >= 2  # away at turn 2 (3 too), back at 4, away again at 6

    moves = [m for m in spec.solver.review_moves(spec.state_class.public_record(record, 0))]
    mine = [m for m in moves if m.seat == 0]
    assert [m.played_for for m in mine] == [n + 1 in defaulted for n in range(len(mine))]
    done = review(moves, {(): kuhn_values()}, 0)
    for n, row in enumerate(done.rows):
        if n + 1 in defaulted:
            assert not row.reviewed and row.reason == NOT_REVIEWED
        else:
            assert row.reviewed and row.verdict, row  # her own move, judged
    assert len(done.reviewed) == len(mine) - len(defaulted)


@pytest.mark.parametrize(
    ("game", "seats", "config"),
    [
        ("kuhn", ["cfr", "ann"], {"hands": 4}),
        ("leduc", ["cfr", "ann"], {"hands": 2}),
        # (cfr keeps its solved deals in the site's cache: games.live.host.SharedWork)
        pytest.param("blackjack-pp", ["cfr", "ann"], {"hands": 4}, marks=pytest.mark.backends),
        ("rps-poker", ["simple", "ann"], None),
        ("goofspiel", ["matching", "ann"], {"num_cards": 5, "deals": 1}),
        ("uth", ["ann"], {"max_rounds": 2}),
        ("last-card", ["naive", "ann", "heuristic"], {"max_turns": 40}),
    ],
)
@pytest.mark.asyncio
async def test_a_reloaded_finished_table_shows_a_persons_time_ran_out_lines_as_live(
    game, seats, config
):
    """``final_messages`` (a finished table's page, from the stored match alone) gives the
    person's log the lines their page had: each "Time ran out..." where it came, before the
    move's line; to their seat alone."""
    person = seats.index("ann")
    plans = [SeatPlan("ann", "human") if s == "ann" else builtin(game, s) for s in seats]
    wire, record = await play_letting_turns_pass(game, plans, person, {1, 2}, config)
    assert len(defaulted_turns(wire, person)) >= 2
    assert events_played_for(record) and set(events_played_for(record).values()) == {person}
    names = [p.name for p in plans]
    spec = get_game(game)
    view, _ = final_messages(spec, record, person, names, {})
    live = page_log(wire, f"seat:{person}")
    assert view["frame"]["log"] == live
    shown = [e["text"] for e in view["frame"]["log"] if e["key"].startswith("timeout")]
    told = [n["text"] for n in wire.to(f"seat:{person}", "note")]
    assert shown == told and all(t.startswith(TOLD) for t in told)
    # a spectator's page (and another seat's) never had them
    for seat in [None, *(s for s in range(len(seats)) if s != person)]:
        view, _ = final_messages(spec, record, seat, names, {})
        assert not [e for e in view["frame"]["log"] if e["key"].startswith("timeout")]
    view, _ = final_messages(spec, record, None, names, {})
    assert view["frame"]["log"] == page_log(wire, "public")


@pytest.mark.asyncio
async def test_a_resumed_table_keeps_the_moves_played_for_a_person_before_it_stopped():
    """The journal's ``d`` (a default, before the process died) reaches the record too."""
    store = Store()
    plans, timers = PLANS, TIMERS
    _, task, _ = await ann_away_at_turn_3(store)
    await kill(task)

    wire = Wire()
    finished: list[Finish] = []

    async def keep(finish: Finish) -> None:
        finished.append(finish)

    steps = sorted(store.steps.items())
    second = host("rps-poker", plans, wire, store=store, steps=steps, on_finish=keep, **timers)
    task = start(second)
    for n in range(12):
        turn = await wire.wait("seat:0", "turn", after=n)
        second.submit(0, turn["turn"], last_action(wire, 0))
    await task
    record = finished[0].played.outcome.record
    assert record[KEY] == [[0, actions_of(record, 0)[2]]]  # her third move, and no other
    view, _ = final_messages(get_game("rps-poker"), record, 0, ["ann", "builtin:strong"], {})
    notes = [e for e in view["frame"]["log"] if e["key"].startswith("timeout")]
    assert [n["text"] for n in notes] == [n["text"] for n in snapshot_notes(second)]


def snapshot_notes(table: TableHost) -> list[dict[str, Any]]:
    """The notes a page of seat 0 that connects now hears (a reload while the match goes on)."""
    return [m for m in map(json.loads, table.snapshot(0)) if m["type"] == "note"]


@pytest.mark.asyncio
async def test_a_match_where_nothing_was_played_for_anyone_is_recorded_as_ever():
    """A bot's match, or a table whose person made every move: no ``played_for``."""
    wire, record = await play_letting_turns_pass(
        "kuhn", [SeatPlan("ann", "human"), builtin("kuhn", "cfr")], 0, set(), {"hands": 2}
    )
    assert not wire.to("seat:0", "note") and KEY not in record
    wire = Wire()
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    bots = host("kuhn", [builtin("kuhn", "cfr"), builtin("kuhn", "cfr")], wire,
                config={"hands": 2}, on_finish=store)  # fmt: skip
    run(bots)
    assert await join(bots, 10)
    assert KEY not in finished[0].played.outcome.record


def bot_record(game: str, config: dict[str, Any], seed: int = 5) -> dict[str, Any]:
    """A match of two built-in bots, as the arena records one (no ``played_for``)."""
    played = play(
        get_game(game), [Entry(name="a", builtin="cfr"), Entry(name="b", builtin="cfr")],
        seed=seed, config=config,
    )  # fmt: skip
    return untrusted.storable(played.outcome.record)


@pytest.mark.parametrize(
    ("game", "config"),
    [("kuhn", {"hands": 10}), ("leduc", {"hands": 4}), ("blackjack-pp", {"hands": 6})],
)
def test_an_old_record_without_the_key_is_reviewed_and_shown_as_before(game, config):
    record = bot_record(game, config)
    assert KEY not in record
    spec = get_game(game)
    moves = spec.solver.review_moves(spec.state_class.public_record(record, 0))
    assert moves and not any(m.played_for for m in moves)
    names = ["a", "b"]
    view, _ = final_messages(spec, record, 0, names, {})
    assert not [e for e in view["frame"]["log"] if e["key"].startswith("timeout")]
    # pairs this site did not write (not an action of that seat, out of the log, not a pair)
    # name nothing
    chance = next(i for i, e in enumerate(record["events"]) if e["type"] == "chance")
    seat1 = actions_of(record, 1)[0]
    for junk in ("all", [[0, chance]], [[0, seat1]], [[0, 10**6]], [[0]], [["0", seat1]],
                 [[True, seat1]]):  # fmt: skip
        forged = record | {KEY: junk}
        assert events_played_for(forged) == {} and actions_played_for(forged) == {}
        moves = spec.solver.review_moves(spec.state_class.public_record(forged, 0))
        assert not any(m.played_for for m in moves)
        assert final_messages(spec, forged, 0, names, {}) == final_messages(
            spec, record, 0, names, {}
        )


@pytest.mark.parametrize(
    ("game", "config"),
    [("kuhn", {"hands": 10}), ("leduc", {"hands": 4}), ("blackjack-pp", {"hands": 6})],
)
def test_each_games_review_marks_the_very_decision_the_record_names(game, config):
    """The chip games find a decision by its place among the record's action events (their
    hand log lists each hand's actions in order): every action event, named, marks its own
    decision and no other."""
    record = bot_record(game, config)
    spec = get_game(game)
    plain = spec.solver.review_moves(record)
    actions = [i for i, e in enumerate(record["events"]) if e["type"] == "action"]
    assert len(plain) == len(actions)  # one decision for each action
    for n, index in enumerate(actions):
        seat = record["events"][index]["seat"]
        marked = spec.solver.review_moves(record | {KEY: [[seat, index]]})
        assert [m.played_for for m in marked] == [k == n for k in range(len(plain))]
        assert marked[n].seat == seat


@pytest.mark.asyncio
async def test_every_note_has_a_key_of_its_own_past_the_twenty_kept_for_a_reconnect():
    """A seat's notes were keyed by how many it keeps (20): from the 21st on, every one had
    the key ``timeout20``, and the page (which keeps a line a key) showed none of them."""
    wire, played = await ann_away_from_kuhn(30)
    notes = wire.to("seat:0", "note")
    assert len(notes) > 25
    assert [n["key"] for n in notes] == [f"timeout{n}" for n in range(len(notes))]
    live = [e["text"] for e in page_log(wire, "seat:0") if e["key"].startswith("timeout")]
    assert len(live) == len(notes)  # every one drawn on the page
    record = untrusted.storable(played.outcome.record)
    view, _ = final_messages(get_game("kuhn"), record, 0, ["ann", "builtin:cfr"], {})
    assert view["frame"]["log"] == page_log(wire, "seat:0")  # and on the reloaded page
