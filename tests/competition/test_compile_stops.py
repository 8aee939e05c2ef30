"""A C++ version whose compile the clock stops (the machine's load) is tried again, a few
times only, never refused for it in the compile cache; then rejected, with words that say
what happened (bots.competition.uploads.BUSY_STOPS)."""

from __future__ import annotations

import pytest

from bots.competition import uploads
from bots.languages import get_language
from bots.models import BotVersion
from bots.sandbox import compiling
from games.registry import get_game


@pytest.fixture
def stopped_by_the_clock(tmp_path, monkeypatch):
    """A compiler the clock stops every time, with 24.0, 22.9 and 28.4 s of CPU."""
    monkeypatch.setattr(compiling, "cache_dir", lambda: tmp_path / "compiled")
    monkeypatch.setattr(type(get_language("cpp")), "compile_tools", lambda self, c=None: [])
    cpus = iter([24.0, 22.9, 28.4])

    def busy(language, files, script, config, limits, *args):
        compiling._wall_clock_stop(next(cpus), limits)

    monkeypatch.setattr(compiling, "_compile", busy)
    return tmp_path / "compiled"


def test_a_version_whose_compile_the_clock_stops_waits_then_is_rejected_saying_why(
    alice, stopped_by_the_clock
):
    starter = get_game("rps-poker").starters["cpp"].read_bytes()
    version = uploads.upload(alice, "rps-poker", "mine", "mine.cpp", starter)
    for _ in range(2):  # the site's load: no verdict, the version waits
        with pytest.raises(compiling.CompileBusy):
            uploads.run_validation(version)
    result = uploads.run_validation(version)
    assert not result.ok and result.fault_kind == "startup"
    assert result.reason == (
        "startup: compiling was stopped by the clock 3 times before it finished, with 24 s, "
        "23 s and 28 s of CPU of its 60 s: the code may need more than 60 s of CPU (upload a "
        "lighter version), or the site was too busy (upload the same file again tomorrow)"
    )
    version = uploads.record_validation(version, result)
    assert version.status == BotVersion.REJECTED
    # never kept as the code's refusal: the same file uploaded again is compiled again
    assert not list(stopped_by_the_clock.glob("cpp/*.refused"))
