"""Hand histories: rounds given as cards and action texts, replayed through the engine.

A history is ``{"game": "uth", "variant": "default", "rounds": [{"player": ["As", "Kd"],
"dealer": ["2c", "2d"], "board": ["3h", "4h", "5h", "9s", "Tc"], "actions": ["[check]",
"[2x]"]}]}``, optionally with ``chips`` and ``ante`` (1000 and 25 by default). The ``[skip]``
answers of the phases with nothing to decide may be given or left out. Every round is checked
(card names, counts, duplicates, legal actions) and a bad one is refused with its number and
the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from games.engine.cards import Card
from games.engine.game import IllegalAction
from games.engine.table import plural
from games.uth import actions, hands
from games.uth.rules import PAY_TABLES, UthState, chip_value

CARD_COUNTS = {"player": 2, "dealer": 2, "board": 5}


class HistoryError(ValueError):
    """A history that cannot be replayed; the message names the round and the reason."""


class FixedDeals:
    """A Chance that deals given cards: each round's shuffle puts that round's nine cards
    (player, dealer, board) on top of the deck."""

    def __init__(self, deals: Sequence[Sequence[str]]) -> None:
        self._deals = [list(d) for d in deals]

    def shuffle(self, label: str, items: Sequence[str]) -> list[str]:
        if not self._deals:
            raise HistoryError(f"no cards given for {label}")
        deal = self._deals.pop(0)
        return deal + [c for c in items if c not in deal]


def _cards(where: str, value: Any, count: int) -> list[str]:
    if not isinstance(value, list):
        raise HistoryError(f"{where}: expected a list of {count} cards, got {value!r}")
    if len(value) != count:
        raise HistoryError(f"{where}: expected {count} cards, got {len(value)}")
    try:
        return [str(Card.read(c)) for c in value]
    except ValueError as exc:
        raise HistoryError(f"{where}: {exc}") from None


def parse_round(n: int, entry: Any) -> tuple[list[str], list[str]]:
    """The nine cards (player, dealer, board) and the action texts of round ``n``."""
    if not isinstance(entry, dict):
        raise HistoryError(f"round {n}: expected an object, got {type(entry).__name__}")
    deal: list[str] = []
    for key, count in CARD_COUNTS.items():
        if key not in entry:
            raise HistoryError(f"round {n}: no {key!r} cards")
        deal += _cards(f"round {n}: {key}", entry[key], count)
    twice = sorted({c for c in deal if deal.count(c) > 1})
    if twice:
        raise HistoryError(f"round {n}: card {', '.join(twice)} dealt twice")
    texts = entry.get("actions", [])
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise HistoryError(f"round {n}: 'actions' must be a list of action texts")
    return deal, texts


def replay(history: Any) -> dict[str, Any]:
    """Replay every round; returns each round's bets, results and net, and the total."""
    if not isinstance(history, dict):
        raise HistoryError("a history is a JSON object with 'rounds'")
    if history.get("game", "uth") != "uth":
        raise HistoryError(f"this is a history of {history.get('game')!r}, not 'uth'")
    variant = history.get("variant", "default")
    if variant not in PAY_TABLES:
        raise HistoryError(f"unknown variant {variant!r} (known: {', '.join(PAY_TABLES)})")
    entries = history.get("rounds")
    if not isinstance(entries, list) or not entries:
        raise HistoryError("'rounds' must be a non-empty list")
    parsed = [parse_round(n, entry) for n, entry in enumerate(entries, 1)]
    config = UthState.default_config() | {"variant": variant, "max_rounds": len(parsed)}
    config |= {key: history[key] for key in ("chips", "ante") if key in history}
    state = UthState(config=config, num_seats=1)
    try:
        state.start(FixedDeals([deal for deal, _ in parsed]))
    except ValueError as exc:
        raise HistoryError(str(exc)) from None
    for n, (_, texts) in enumerate(parsed, 1):
        if state.is_over():
            raise HistoryError(f"round {n}: the session is over ({state.reason})")
        _play_round(state, n, texts)
    return {
        "game": "uth",
        "variant": variant,
        "rounds": state.rounds,
        "total": chip_value(sum(Fraction(r["net"]) for r in state.rounds)),
        "chips": chip_value(state.chips),
    }


def _play_round(state: UthState, n: int, texts: list[str]) -> None:
    for i, text in enumerate(texts, 1):
        if state.round_no != n or state.is_over():
            raise HistoryError(f"round {n}: action {i} {text!r} comes after the showdown")
        if state.legal() == [actions.SKIP] and not _is_skip(text):
            state.apply(0, actions.text(actions.SKIP))
            if state.round_no != n or state.is_over():
                raise HistoryError(f"round {n}: action {i} {text!r} comes after the showdown")
        try:
            state.apply(0, text)
        except IllegalAction as exc:
            raise HistoryError(f"round {n}: action {i}: {exc}") from None
    while state.round_no == n and not state.is_over() and state.legal() == [actions.SKIP]:
        state.apply(0, actions.text(actions.SKIP))
    if state.round_no == n and not state.is_over():
        legal = actions.legal_text(state.legal())
        raise HistoryError(f"round {n}: the actions stop before the showdown (next: {legal})")


def _is_skip(text: str) -> bool:
    try:
        return actions.parse(text, [actions.SKIP]) == actions.SKIP
    except IllegalAction:
        return False


def _signed(value: float | int) -> str:
    return f"{value:+g}"


def report_lines(report: dict[str, Any]) -> list[str]:
    lines = [f"Ultimate Texas Hold'em, {report['variant']} pay table"]
    for r in report["rounds"]:
        bets = r["bets"]
        lines.append(
            f"round {r['round']}: player {' '.join(r['player'])}, dealer {' '.join(r['dealer'])}"
            f", board {' '.join(r['board'])}; actions {' '.join(r['actions'])}"
        )
        lines.append(f"  bets: ante {bets['ante']}, blind {bets['blind']}, play {bets['play']}")
        if r["folded"]:
            lines.append("  folded")
        else:
            lines.append(
                f"  player {hands.LABELS[r['player_hand']]}, dealer "
                f"{hands.LABELS[r['dealer_hand']]}"
                f"{'' if r['dealer_qualifies'] else ' (does not qualify)'}: {r['winner']} wins"
                if r["winner"] != "tie"
                else f"  player {hands.LABELS[r['player_hand']]}, dealer "
                f"{hands.LABELS[r['dealer_hand']]}: a tie"
            )
        results = r["results"]
        lines.append(
            f"  ante {_signed(results['ante'])}, blind {_signed(results['blind'])}, play "
            f"{_signed(results['play'])}: net {_signed(r['net'])}, chips {r['chips']:g}"
        )
    lines.append(f"total: {_signed(report['total'])} over {plural(len(report['rounds']), 'round')}")
    return lines
