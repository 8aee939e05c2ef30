"""A standalone bot file that plays solved strategies (``manage.py solve --bot``).

A bot in the sandbox reads no file and imports only the standard library, so the strategy
travels inside the bot: every table (one per solve: a game solved whole has one, a game
solved for given settings one per setting) is packed as integer weights, compressed with
``zlib`` and written as Base85 text, and the bot unpacks the table of its deal when it first
meets it. The same tables always give the same file, byte for byte.

The packed document holds the *layouts* (the information set keys of a tree with their
action labels, in order: solves of one game with one tree shape share a layout) and, per
table, its layout and the weights: each probability times ``10**digits``, rounded, all but
the last action of each information set (the last is what is left of ``10**digits``).
"""

from __future__ import annotations

import base64
import json
import textwrap
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from games.engine.spec import SolverBot

#: how wide the lines of packed text are in the file
LINE = 76
DIGITS = 3
#: the written bot's seed: None draws a fresh one from the system at every match (a fixed
#: seed would draw the same "random" choices in every match, which an opponent's author
#: could read off its replays and play against)
SEED = None

#: the line every written bot holds: a file without it is not overwritten by ``--bot``
MARKER = "# The solved tables: zlib-compressed JSON in Base85 (see games/solver/botfile.py)."

HOW = (
    'The bot looks its move up by the solver\'s information set key, ``obs["infoset"]``, '
    "and draws it with the stored probabilities (rounded to {digits} digits) from its own "
    "random generator, seeded afresh from the system at every match (SEED = None; a number "
    "would make every match draw the same choices, which an opponent could learn). "
    "Where no table covers the deal it plays {fallback}. Standard library only: it runs in "
    "the sandbox as it is."
)

TEMPLATE = '''"""{title}: plays {what}.

Written by this command ({tables}):

    manage.py solve {command}

{how}
"""

import base64
import json
import random
import zlib

SEED = {seed}
SCALE = {scale}
#: the contract's answers for the solver's action labels that differ from them
ANSWERS = {answers}


{source}

{marker}
PACKED = (
{packed}
)
DOC = json.loads(zlib.decompress(base64.b85decode("".join(PACKED))))
TABLES = {{}}


def table(name):
    """The table ``name`` as {{infoset key: [(answer, weight), ...]}}, unpacked once."""
    if name not in TABLES:
        entry = DOC["tables"].get(name)
        if entry is None:
            TABLES[name] = None
        else:
            layout, weights = entry
            rows, at = {{}}, 0
            for key, labels in DOC["layouts"][layout]:
                own = weights[at : at + len(labels) - 1]
                at += len(labels) - 1
                last = max(SCALE - sum(own), 0)
                answers = [ANSWERS.get(label, label) for label in labels]
                rows[key] = list(zip(answers, own + [last]))
            TABLES[name] = rows
    return TABLES[name]


class Bot:
    name = {name}

    def __init__(self):
        self.rng = random.Random(SEED)

    def act(self, obs):
        rows = table(setting(obs))
        row = rows.get(obs["infoset"]) if rows else None
        legal = obs["legal"]
        if row:
            choices = [(answer, weight) for answer, weight in row if answer in legal]
            if choices and sum(weight for _, weight in choices) > 0:
                answers, weights = zip(*choices)
                return self.rng.choices(answers, weights)[0]
        return fallback(obs, self.rng)
'''


@dataclass(frozen=True)
class BotFile:
    text: str
    tables: int
    infosets: int
    packed_bytes: int

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def pack(
    tables: Mapping[str, Mapping[str, Mapping[str, float]]], digits: int = DIGITS
) -> tuple[str, int]:
    """``{table name: {infoset key: {action: probability}}}`` -> the Base85 text of the
    packed document, and the number of information sets in all."""
    scale = 10**digits
    layouts: list[list[list[object]]] = []
    index: dict[str, int] = {}
    packed: dict[str, list[object]] = {}
    count = 0
    for name in sorted(tables):
        strategy = tables[name]
        keys = sorted(strategy)
        layout: list[list[object]] = [[key, list(strategy[key])] for key in keys]
        signature = json.dumps(layout, separators=(",", ":"))
        if signature not in index:
            index[signature] = len(layouts)
            layouts.append(layout)
        weights = [round(p * scale) for key in keys for p in list(strategy[key].values())[:-1]]
        packed[name] = [index[signature], weights]
        count += len(keys)
    document = json.dumps(
        {"layouts": layouts, "tables": packed}, separators=(",", ":"), sort_keys=True
    )
    return base64.b85encode(zlib.compress(document.encode("ascii"), 9)).decode("ascii"), count


def literal_lines(text: str) -> str:
    """Packed text (:func:`pack`) as the lines of a parenthesised Python string, each
    :data:`LINE` characters of it, indented."""
    lines = [text[i : i + LINE] for i in range(0, len(text), LINE)] or [""]
    return "\n".join(f'    "{line}"' for line in lines)


def render(
    tables: Mapping[str, Mapping[str, Mapping[str, float]]],
    how: SolverBot,
    *,
    title: str,
    what: str,
    command: str,
    name: str,
    digits: int = DIGITS,
    seed: int | None = SEED,
) -> BotFile:
    """The bot file for ``tables`` (see :func:`pack`), as ``how`` (the game's
    ``SolverSpec.bot``) says a deal finds its table and what to do without one."""
    text, count = pack(tables, digits)
    if len(tables) == 1:
        described = "one solved table"
    else:
        described = f"{len(tables)} solved tables, one per setting"
    source = TEMPLATE.format(
        title=title,
        what=what,
        command=command,
        tables=described + f", {count:,} information sets",
        how=textwrap.fill(HOW.format(digits=digits, fallback=how.fallback_text), width=LINE + 12),
        seed=seed,
        scale=10**digits,
        answers=json.dumps(dict(sorted(how.answers.items()))),
        source=how.source.strip() + "\n",
        packed=literal_lines(text),
        name=json.dumps(name),
        marker=MARKER,
    )
    return BotFile(text=source, tables=len(tables), infosets=count, packed_bytes=len(text))


def written_here(text: str) -> bool:
    """Whether a file's text is a bot this module wrote (which ``--bot`` may replace)."""
    return MARKER in text.splitlines()
