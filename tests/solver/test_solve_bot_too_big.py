"""``manage.py solve --bot`` over the bot-file limit advises the rounding that brings the
file under it, and none that cannot: a 3-hit Blackjack++ table of 1.79 MB was told to
round to 2 digits (1.76 MB), then to 1 (1.73 MB, "solve fewer settings"), two runs of
twenty seconds for nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

LEDUC = ("leduc", "--iterations", "50")


def solve(tmp_path, *args: str) -> None:
    call_command(*args, "--no-progress", stdout=StringIO(), stderr=StringIO())


def size(tmp_path, digits: int) -> int:
    """The size of Leduc's bot, rounded to ``digits``, as the refused one would be named."""
    bot = tmp_path / f"d{digits}" / "big.py"
    solve(tmp_path, "solve", *LEDUC, "--bot", str(bot), "--bot-digits", str(digits))
    return bot.stat().st_size


def refused(tmp_path, *args: str) -> str:
    bot = tmp_path / "big.py"
    with pytest.raises(CommandError) as caught:
        solve(tmp_path, "solve", *args, "--bot", str(bot))
    assert not bot.exists()
    return str(caught.value)


def test_the_advice_names_the_most_digits_that_fit(tmp_path, settings):
    one, two = size(tmp_path, 1), size(tmp_path, 2)
    assert one < two
    settings.BOT_MAX_CODE_BYTES = two - 1  # 2 digits do not fit, 1 does
    message = refused(tmp_path, *LEDUC)
    assert message.endswith(": round the probabilities to fewer digits (--bot-digits 1)")


def test_no_rounding_is_advised_when_none_fits(tmp_path, settings):
    one = size(tmp_path, 1)
    settings.BOT_MAX_CODE_BYTES = one - 1
    message = refused(tmp_path, *LEDUC)
    assert "(1 table, 288 information sets); the limit for a bot file is" in message
    assert f"and {one:,} bytes with --bot-digits 1" in message
    assert "round the probabilities" not in message
    # Leduc is solved whole: no setting of it is smaller
    assert message.endswith(": it cannot be written")


def test_several_settings_are_told_to_solve_fewer(tmp_path, settings):
    settings.BOT_MAX_CODE_BYTES = 2000
    args = ("blackjack-pp", "--iterations", "5", "--every", "max-hits", "--values", "1", "2")
    message = refused(tmp_path, *args, "--bot-digits", "1")
    assert "(2 tables, " in message and message.endswith(": solve fewer settings (--values)")
    assert "with --bot-digits 1" not in message  # (it is what was asked)
