"""Write a Blackjack++ strategy as a directory tree, one folder per history, as the original
project did.

``DIR/strategy.txt`` is the first decision (player 0, nothing done yet). Each token of a
history is one more folder level: ``0s`` (player 0 stood), ``0h5`` (player 0 hit and drew a
5), ``1hT`` (player 1 hit and drew a ten-valued card), so ``DIR/0h5/1s/strategy.txt`` holds
what is played after player 0 hit a 5 and player 1 stood. Each ``strategy.txt`` has a short
header and one row per information set at that history: the player to act, its down card,
its total (``s`` after it when an ace counts 11), and the probabilities of hitting and
standing.
"""

from __future__ import annotations

from pathlib import Path

from games.blackjack_pp.tree import NAMES, BlackjackPP, soft, total

CARD_OF_NAME = {name: value for value, name in NAMES.items()}


def split_key(key: str) -> tuple[int, int, list[str]]:
    """``"1T:0h5,1s"`` -> (player 1, down card 10, ["0h5", "1s"])."""
    head, _, history = key.partition(":")
    return int(head[0]), CARD_OF_NAME[head[1:]], [t for t in history.split(",") if t]


def hand_of(game: BlackjackPP, player: int, down: int, tokens: list[str]) -> tuple[int, ...]:
    drawn = [CARD_OF_NAME[t[2:]] for t in tokens if t[0] == str(player) and t[1] == "h"]
    return (game.up[player], down, *drawn)


def describe(token: str) -> str:
    who = f"player {token[0]}"
    return f"{who} stood" if token[1] == "s" else f"{who} hit and drew {token[2:]}"


def write_strategy_tree(
    directory: Path,
    game: BlackjackPP,
    table: dict[str, dict[str, float]],
    algorithm: str,
    iterations: int,
) -> int:
    """Write every history's ``strategy.txt`` under ``directory``; returns how many files."""
    by_history: dict[tuple[str, ...], list[tuple[int, int, dict[str, float]]]] = {}
    for key, row in table.items():
        player, down, tokens = split_key(key)
        by_history.setdefault(tuple(tokens), []).append((player, down, row))
    up = " ".join(NAMES[c] for c in game.up)
    for tokens, rows in by_history.items():
        folder = directory.joinpath(*tokens)
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            f"# Blackjack++ up cards {up} (player 0, player 1, dealer), max hits "
            f"{game.max_hits}; {algorithm}, {iterations} iterations",
            "# history: " + ("; ".join(describe(t) for t in tokens) or "(start)"),
            "player down total  hit       stand",
        ]
        for player, down, row in sorted(rows, key=lambda r: (r[0], r[1])):
            hand = hand_of(game, player, down, list(tokens))
            shown = f"{total(hand)}{'s' if soft(hand) else ''}"
            lines.append(f"{player:<6} {NAMES[down]:<4} {shown:<5}  {row['h']:.6f}  {row['s']:.6f}")
        (folder / "strategy.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(by_history)
