"""Replay frames: a stored match record turned into what a viewer draws, one frame per step.

The record is replayed through the game's own engine, exactly as
``GameState.replay`` does (recorded chance, then every recorded action, refusal and fault),
and each game's frame builder looks at the engine's state after each step. No rule is
re-implemented here: the engines say what is where.

A frame is JSON data::

    {"step": 3, "label": "Game 2 of 10", "actor": 1, "decision": "plays R7",
     "lines": ["bob/strong plays R7 ..."], "scores": [1, 1],
     "seats": [{"zones": [ZONE, ...], "notes": ["3 cards"], "turn": false}, ...],
     "shared": [ZONE, ...]}

and a zone ``{"label": "Hand", "cards": ["R3", "S9"], "down": 0, "fan": "row"}`` holds card
codes face up, ``down`` face-down cards after them, and ``fan`` says how to lay them out
(``row``: side by side; ``pile``: the last few, overlapping). :func:`card_view` describes a
code for drawing it (``templates/includes/card.html``, ``static/js/replay.js``).

A game registers its builder with :func:`frames_for`; a game without one still gets its
raw events listed on the match page (``Replay.supported`` is False).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from games.engine.chance import ReplayMismatch
from games.engine.game import GameState
from games.registry import get_game

#: bump when the frame format changes (cached replays are keyed by it)
FORMAT_VERSION = 1

Frame = dict[str, Any]
Builder = Callable[[dict[str, Any], list[str]], list[Frame]]

_BUILDERS: dict[str, Builder] = {}
#: what a seat's score means in one match of the game
SCORE_LABELS: dict[str, str] = {}


def frames_for(slug: str, score_label: str = "score") -> Callable[[Builder], Builder]:
    """Register the frame builder of a game: ``builder(record, names) -> frames``."""

    def register(builder: Builder) -> Builder:
        _BUILDERS[slug] = builder
        SCORE_LABELS[slug] = score_label
        return builder

    return register


# ---- cards ----------------------------------------------------------------------------------
SUIT_SYMBOLS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}
#: RPS Poker's symbols are drawn as their letters, as the game writes them (every font has them)
RPS_SYMBOLS = {"R": "R", "P": "P", "S": "S"}
RPS_NAMES = {"R": "rock", "P": "paper", "S": "scissors"}


def card_view(code: str) -> dict[str, Any]:
    """What a card code means for drawing it: ``Qh`` is the queen of hearts (red), ``R3``
    is RPS Poker's rock 3. Anything else is drawn as its own text."""
    if len(code) == 2 and code[0] in RPS_NAMES and code[1].isdigit():
        kind = RPS_NAMES[code[0]]
        return {
            "code": code,
            "rank": code[1],
            "suit": RPS_SYMBOLS[code[0]],
            "color": kind,
            "label": f"{kind} {code[1]}",
        }
    if len(code) == 2 and code[0] in "23456789TJQKA" and code[1] in SUIT_NAMES:
        rank = "10" if code[0] == "T" else code[0]
        return {
            "code": code,
            "rank": rank,
            "suit": SUIT_SYMBOLS[code[1]],
            "color": "red" if code[1] in "hd" else "black",
            "label": f"{RANK_NAMES.get(code[0], code[0])} of {SUIT_NAMES[code[1]]}",
        }
    return {"code": code, "rank": code, "suit": "", "color": "black", "label": code}


def cards_text(cards: Sequence[str]) -> str:
    return ", ".join(card_view(c)["label"] for c in cards)


def zone(label: str, cards: Sequence[str] = (), down: int = 0, fan: str = "row") -> dict:
    return {"label": label, "cards": list(cards), "down": down, "fan": fan}


# ---- stepping through a record ------------------------------------------------------------
def steps(record: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | None, GameState]]:
    """The engine's state after the deal (event None), then after each recorded action,
    refusal or fault (:meth:`GameState.replay_steps`). Raises :class:`ReplayMismatch` if
    the record does not reproduce itself."""
    spec = get_game(record["game"])
    yield from spec.state_class.replay_steps(
        record["events"], len(record["seats"]), record["config"]
    )


def _fault_lines(event: dict[str, Any], names: list[str]) -> list[str]:
    return [
        f"{names[int(seat)]} is out: {fault['kind']}: {fault['reason']}"
        for seat, fault in event["faults"].items()
    ]


def _actor(event: dict[str, Any] | None) -> int | None:
    if event is None:
        return None
    if "seat" in event:
        return event["seat"]
    faulted = sorted(int(s) for s in event.get("faults", {}))
    return faulted[0] if len(faulted) == 1 else None


# ---- the replay of a match ----------------------------------------------------------------
@dataclass
class Replay:
    game: str
    title: str
    names: list[str]
    frames: list[Frame] = field(default_factory=list)
    #: False: no frame builder for this game (the page lists the raw events)
    supported: bool = True
    #: why the record could not be replayed, if it could not
    error: str = ""

    def cards(self) -> dict[str, dict[str, Any]]:
        """Every card code the frames use, described for drawing."""
        codes: set[str] = set()
        for frame in self.frames:
            for part in [*frame["shared"], *(z for s in frame["seats"] for z in s["zones"])]:
                codes.update(part["cards"])
        return {code: card_view(code) for code in sorted(codes)}

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "game": self.game,
            "title": self.title,
            "seats": self.names,
            "supported": self.supported,
            "error": self.error,
            "cards": self.cards(),
            "frames": self.frames,
        }


def build(record: dict[str, Any], names: list[str] | None = None) -> Replay:
    """The replay of a match record; ``names`` label the seats (default: the record's)."""
    slug = record.get("game", "")
    try:
        title = get_game(slug).title
    except KeyError:
        title = slug
    names = list(names or [s.get("name", f"seat {i}") for i, s in enumerate(record["seats"])])
    replay = Replay(game=slug, title=title, names=names)
    builder = _BUILDERS.get(slug)
    if builder is None:
        replay.supported = False
        return replay
    try:
        frames = builder(record, names)
    except (ReplayMismatch, KeyError, ValueError, TypeError) as exc:
        replay.supported = False
        replay.error = str(exc) or type(exc).__name__
        return replay
    for number, frame in enumerate(frames):
        frame["step"] = number
    replay.frames = frames
    return replay


def _frame(label: str, lines: list[str], scores: list[Any], seats: list[dict], shared: list):
    return {
        "step": 0,
        "label": label,
        "actor": None,
        "decision": "",
        "lines": lines,
        "scores": scores,
        "seats": seats,
        "shared": shared,
    }


def _seat(zones: list[dict], notes: Sequence[str] = (), turn: bool = False) -> dict[str, Any]:
    return {"zones": zones, "notes": list(notes), "turn": turn}


# ---- RPS Poker ------------------------------------------------------------------------------
@frames_for("rps-poker", score_label="games won")
def rps_poker_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the deal, each of the five draft steps, each of the ten games, and each
    disqualification: the simultaneous choices of both seats make one step."""
    from games.rps_poker.cards import DRAFT_STEPS, GAMES

    frames: list[Frame] = []
    offers: list[list[str]] = [[], []]
    chosen: dict[int, int] = {}
    drafting, drafted = True, 0
    for event, state in steps(record):
        if event is not None and event["type"] == "action":
            chosen[event["seat"]] = event["action"]
            if state.chosen:
                continue  # one seat has chosen, the other not yet: no step to show
        lines: list[str] = []
        label, decision = "The deal", ""
        if event is None:
            lines.append(
                f"The deck is shuffled. Draft: each player is offered two cards {DRAFT_STEPS} "
                "times, keeps one and passes the other."
            )
        elif event["type"] == "fault":
            label = "Disqualified"
            lines += _fault_lines(event, names)
            if state.forfeited:
                (winner,) = {0, 1} - {int(s) for s in event["faults"]}
                lines.append(f"{names[winner]} is credited with {state.forfeited} unplayed games")
            decision = lines[0]
        elif drafting:
            drafted += 1
            label = f"Draft {drafted} of {DRAFT_STEPS}"
            for seat in (0, 1):
                kept, passed = offers[seat][chosen[seat]], offers[seat][1 - chosen[seat]]
                lines.append(
                    f"{names[seat]} keeps {card_view(kept)['label']} and passes "
                    f"{card_view(passed)['label']} to {names[1 - seat]}"
                )
            decision = "; ".join(line.split(" and passes")[0] for line in lines)
            if state.phase == "main":
                lines.append(
                    "Each player shuffles its ten cards and draws three. The base card of "
                    f"game 1 is {card_view(state.base)['label']}."
                )
        else:
            game = state.games[-1]
            label = f"Game {len(state.games)} of {GAMES}"
            a, b = (card_view(c)["label"] for c in game["played"])
            decision = f"{names[0]} plays {a}, {names[1]} plays {b}"
            lines.append(
                f"Base {card_view(game['base'])['label']}: {decision}; "
                f"{names[game['winner']]} wins the game"
            )
        frame = _frame(label, lines, list(state.scores), [], [])
        frame["decision"] = decision
        frame["actor"] = _actor(event) if event is not None and event["type"] == "fault" else None
        _rps_table(frame, state)
        frames.append(frame)
        offers = [list(o) for o in state.offers]
        drafting, chosen = state.phase == "draft", {}
    if frames and state.is_over():
        a, b = state.scores
        end = "a draw" if a == b else f"{names[0 if a > b else 1]} wins the match"
        frames[-1]["lines"].append(f"Final score {a}-{b}: {end}")
    return frames


def _rps_table(frame: Frame, state: Any) -> None:
    last = state.games[-1] if state.games else None
    seats = []
    for seat in (0, 1):
        zones = []
        if state.phase == "draft":
            zones.append(zone("Offered", state.offers[seat]))
            zones.append(zone("Drafted", state.decks[seat]))
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
            notes.append(f"disqualified ({state.faults[seat].kind})")
        seats.append(_seat(zones, notes, turn=last is not None and last["winner"] == seat))
    shared = []
    if last is not None:
        shared.append(zone(f"Base of game {len(state.games)}", [last["base"]]))
    elif state.phase == "main" and state.base:
        shared.append(zone("Base of game 1", [state.base]))
    undealt = len(state.locations()["undealt"]) + len(state.remaining)
    if state.phase == "main" and state.base and last is not None:
        shared.append(zone(f"Next base (game {len(state.games) + 1})", [state.base]))
    shared.append(zone("Undealt", down=undealt, fan="pile"))
    frame["seats"], frame["shared"] = seats, shared


# ---- Last Card ------------------------------------------------------------------------------
@frames_for("last-card", score_label="points taken")
def last_card_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the deal and one per turn (a move, a refused move or a fault), with the
    lines of the kit's readable log (``games.last_card.logs``) that the step wrote."""
    from games.last_card.logs import readable

    frames: list[Frame] = []
    counts: list[int] = []
    seen = 0
    for event, state in steps(record):
        # the lines this step's history makes: counted on the step alone, worded by the
        # story of the whole game below (a pass and its draw read as one line there)
        new, seen = state.history[seen:], len(state.history)
        counts.append(len(readable(SimpleNamespace(history=new, over=False), names)))  # type: ignore[arg-type]
        if event is None:
            label = "The deal"
        elif event["type"] == "fault":
            label = "Out of the game"
        else:
            label = f"Turn {state.turns}"
        frame = _frame(label, [], [], [], [])
        frame["actor"] = _actor(event)
        _last_card_table(frame, state, names)
        frames.append(frame)
    story = readable(state, names) if frames else []
    told = 0
    for frame, count in zip(frames, counts, strict=True):
        frame["lines"], told = story[told : told + count], told + count
        frame["decision"] = (
            frame["lines"][0] if frame["lines"] and frame["actor"] is not None else ""
        )
    if frames:
        frames[-1]["lines"] += story[told:]  # how the game ended, seat by seat
    return frames


def _last_card_table(frame: Frame, state: Any, names: list[str]) -> None:
    seats = []
    for seat, hand in enumerate(state.hands):
        notes = [f"{len(hand)} card" + ("" if len(hand) == 1 else "s")]
        if state.called[seat]:
            notes.append("called last card")
        if seat in state.faults:
            notes.append(f"out of the game ({state.faults[seat].kind})")
        if state.winner == seat:
            notes.append("winner")
        turn = not state.over and state.current == seat
        seats.append(_seat([zone("Hand", hand)], notes, turn=turn))
    shared = [
        zone("Played", state.played, fan="pile"),
        zone("Deck", down=len(state.deck), fan="pile"),
    ]
    table_notes = ["clockwise" if state.direction == 1 else "anticlockwise"]
    if state.active_suit:
        table_notes.append(f"suit chosen: {SUIT_NAMES[state.active_suit]}")
    if state.punishment:
        table_notes.append(f"next player picks up {state.punishment} unless it adds to it")
    frame["seats"], frame["shared"], frame["notes"] = seats, shared, table_notes
    frame["scores"] = [state.seat_stats(seat)["points_taken"] for seat in range(state.num_seats)]


# ---- Ultimate Texas Hold'em -------------------------------------------------------------------
@frames_for("uth", score_label="net chips")
def uth_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for each deal, each decision of the seat, each showdown and each refusal or
    fault. The ``[skip]`` answers of phases with nothing to decide make no step of their
    own (the cards they turn over show at the next one). A showdown frame shows the round
    as the engine's hand history (``UthState.rounds``) settled it."""
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
    frame = _frame(f"Round {done['round']}: showdown", lines, net, [seat], shared)
    frame["notes"] = [f"round net {done['net']:+g}"]
    frame["actor"] = 0
    frame["decision"] = "folds" if done["folded"] else f"net {done['net']:+g}"
    return frame


# ---- Kuhn poker, Leduc hold'em, Blackjack++: their module registers their builders ---------
from games.chips import replay as _chip_games  # noqa: E402, F401
