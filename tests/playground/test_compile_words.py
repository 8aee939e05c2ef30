"""A playground run whose C++ bot the compiler refused: its page says so in one line, and
shows the compiler's lines (which quote the code) in a monospace block to the run's owner
only; anyone else with the address reads the summary, and no line of the code, on the page,
its parts, its status JSON and its matches' replays."""

from __future__ import annotations

import json

from django.test import Client
from django.urls import reverse

from bots.models import PlaygroundRun
from tests.playground.conftest import worker

SECRET = "alices-secret-move"
CODE = f'#include <vector>\n#error "{SECRET}"\nclass Bot {{}};\n'


def test_the_compilers_messages_are_shown_whole_to_the_runs_owner_only(db):
    owner = Client()
    started = owner.post(
        reverse("playground", args=["rps-poker"]),
        {"language": "cpp", "code": CODE, "opponents": ["builtin:simple"], "seed": "5",
         "match_count": "2"},
    )  # fmt: skip
    assert started.status_code == 302
    assert worker().step() is True
    run = PlaygroundRun.objects.get()
    assert run.status == PlaygroundRun.FAILED and SECRET in run.reason
    url = started["Location"]
    summary = "Your bot could not start: C++ compile error (1 error)"

    page = owner.get(url).content.decode()
    assert f'role="alert">{summary}</p>' in page
    # the compiler's lines whole, in a box that scrolls, reached by the keyboard, named
    opening = (
        '<pre class="log" id="run-compiler" tabindex="0" role="region" '
        'aria-label="The compiler\'s messages">'
    )
    block = page.split(opening, 1)[1].split("</pre>", 1)[0]
    assert block.splitlines() == [
        "bot.cpp:2:2: error: #error &quot;alices-secret-move&quot;",
        "    2 | #error &quot;alices-secret-move&quot;",
        "      |  ^~~~~",
    ]
    assert owner.get(reverse("playground_status", args=[run.key])).json()["message"] == summary

    # (to anyone else, the run's bot is not "your bot")
    hidden = (
        "The bot could not start: C++ compile error (1 error; the compiler&#x27;s messages "
        "quote the code, so only the run&#x27;s owner sees them)."
    )
    anyone = Client()
    page = anyone.get(url).content.decode()
    assert hidden in page and SECRET not in page and "run-compiler" not in page
    part = anyone.get(reverse("playground_results", args=[run.key])).content.decode()
    assert hidden in part and SECRET not in part
    status = anyone.get(reverse("playground_status", args=[run.key])).json()
    assert status["message"] == hidden.replace("&#x27;", "'")
    match = anyone.get(reverse("playground_match", args=[run.key, 1])).content.decode()
    assert SECRET not in match and "C++ compile error (1 error; " in match
    frames = anyone.get(reverse("playground_replay", args=[run.key, 1]) + "?from=0&count=50")
    assert SECRET not in json.dumps(frames.json())
    # its owner sees them on the match's page too
    match = owner.get(reverse("playground_match", args=[run.key, 1])).content.decode()
    assert "    2 | #error &quot;alices-secret-move&quot;\n" in match
