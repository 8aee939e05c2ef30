"""Write ``games/leduc/bots/cfr.py`` (see ``games/chips/cfr_bot.py``).

.venv/bin/python -m games.leduc.make_cfr_bot
"""

from __future__ import annotations

from pathlib import Path

from games.chips.cfr_bot import write
from games.leduc.tree import Leduc


def main() -> None:
    write(Leduc(), "games.leduc.make_cfr_bot", Path(__file__).parent / "bots" / "cfr.py")


if __name__ == "__main__":
    main()
