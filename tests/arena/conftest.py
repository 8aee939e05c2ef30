from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def bot_file(tmp_path: Path):
    """Write a bot file from source text: ``bot_file("name.py", source)``."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source))
        return path

    return write


FIRST_CARD_BOT = """
class Bot:
    name = "{name}"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
"""


def first_card_bot(name: str, method: str, line: str, imports: str = "") -> str:
    """FIRST_CARD_BOT named ``name``, its ``method`` running ``line`` first (after
    ``imports``, a module's import lines)."""
    head = f"    def {method}("
    source = FIRST_CARD_BOT.format(name=name)
    at = source.index("\n", source.index(head)) + 1
    return imports + source[:at] + f"        {line}\n" + source[at:]
