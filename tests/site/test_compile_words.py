"""A version rejected for a compile error, as its pages show it: a one-line summary, and
the compiler's lines in a monospace block of their own whose lines stay whole (a caret stays
under the column it marks), focusable and named as the site's other logs are; those lines
quote the code, so only the version's owner sees them."""

from __future__ import annotations

import re
from html import escape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bots.models import Bot, BotVersion
from bots.pages.compiler import refusal

LINES = (
    "webbot.cpp: In function 'int score(int)':\n"
    "webbot.cpp:6:58: error: 'k' was not declared in this scope\n"
    "    6 |     for (unsigned long long l = 0; l < n; ++l) s += (i ^ j ^ l) * k;\n"
    "      |                                                          ^\n"
    "In file included from webbot.cpp:2,\n"
    "                 from /src/main.cpp:3:\n"
    "helper.h:1:10: fatal error: nothing.h: No such file or directory"
)
REASON = f"startup: C++ compile error\n{LINES}"


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="x" * 12)


@pytest.fixture
def rejected(alice) -> BotVersion:
    bot = Bot.objects.create(owner=alice, game="rps-poker", name="webbot", language="cpp")
    return BotVersion.objects.create(
        bot=bot,
        number=1,
        code="int main() {}\n",
        checksum=BotVersion.checksum_of("int main() {}\n"),
        status=BotVersion.REJECTED,
        reason=REASON,
        validation_log=f"validation of alice/webbot v1\nfault: {REASON}",
    )


def owner_client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_refusal_is_split_into_its_summary_and_the_compilers_lines():
    found = refusal(REASON)
    assert found.summary == "startup: C++ compile error (2 errors)"
    # the site's own file that includes the bot's is not the author's: its line is left out,
    # the include line before it ending as a last one does
    assert "/src/main.cpp" not in found.lines
    assert "In file included from webbot.cpp:2:\nhelper.h:1:10:" in found.lines
    assert found.hidden() == (
        "startup: C++ compile error (2 errors; the compiler's messages quote the code, so "
        "only the run's owner sees them)."
    )
    cut = refusal("Java compile error\nBot.java:3: error: x\n... (12 more lines)")
    assert cut.summary == "Java compile error (at least 1 error)"
    # a limit the compile went over, with no line of the compiler's: said as it is
    assert refusal("C++ compile error: compiling took over 60 s of CPU") is None
    assert refusal("exception: main_play raised ValueError: compile error") is None


def test_the_compilers_lines_left_out_are_counted_in_words():
    # "... (1 more lines)" under javac's first lines
    from bots.sandbox.compiling import _first_lines

    lines = "Bot.java:3: error: x\n  y;\n   ^\n1 error"
    assert _first_lines(lines, 3).endswith("\n   ^\n... (1 more line)")
    assert _first_lines(lines, 2).endswith("\n  y;\n... (2 more lines)")
    cut = refusal(f"Java compile error\n{_first_lines(lines, 3)}")
    assert cut is not None and cut.summary == "Java compile error (at least 1 error)"


def test_my_bots_shows_the_summary_and_the_compilers_lines_whole(alice, rejected):
    # the reason was one <p class="said"> in the page's font, wrapped: the caret of
    # "^" sat under the wrong column, the source line broken mid-expression
    page = owner_client(alice).get("/my/bots/").content.decode()
    assert (
        '<p class="reason said"><span class="sr-only">Reason: </span>startup: C++ compile '
        "error (2 errors)</p>"
    ) in page
    block = (
        '<pre class="log" tabindex="0" role="region" aria-label="The compiler\'s messages '
        f'for webbot v1">{escape(refusal(REASON).lines)}</pre>'
    )
    assert block in page
    # the live status (mybots.js draws its reason in the page's font, the log in a <pre>)
    status = owner_client(alice).get(f"/my/bots/versions/{rejected.pk}/status.json").json()
    assert status["reason"] == "startup: C++ compile error (2 errors)"
    assert "^ j ^ l) * k;\n" in status["log"]


def test_a_verdict_that_comes_live_is_drawn_as_a_reload_draws_it(alice, rejected):
    # the script drew the reason and the log only: no block of the compiler's messages, and
    # the card kept "not rated yet" for a bot whose only version was just rejected
    client = owner_client(alice)
    status = client.get(f"/my/bots/versions/{rejected.pk}/status.json").json()
    page = client.get("/my/bots/").content.decode()
    verdict = re.search(
        rf'<td colspan="4" headers="version-{rejected.pk}-number" id="verdict-{rejected.pk}" '
        r'data-role="verdict">(.*?)</td>',
        page,
        re.DOTALL,
    )
    assert verdict is not None and verdict.group(1) == status["verdict_html"]
    assert 'aria-label="The compiler\'s messages for webbot v1">' in status["verdict_html"]
    meta = re.search(r'<p class="bot-meta" data-role="meta">.*?</p>', page, re.DOTALL)
    assert meta is not None and meta.group(0) == status["meta_html"].strip()
    assert "not rated: no version of it competes" in status["meta_html"]


def test_the_bot_page_shows_them_to_its_owner_only(alice, rejected):
    url = f"/bots/{rejected.bot.pk}/"
    mine = owner_client(alice).get(url).content.decode()
    assert "startup: C++ compile error (2 errors)</p>" in mine
    assert 'aria-label="The compiler&#x27;s messages for v1">' in mine
    other = User.objects.create_user("bob", password="x" * 12)
    for client in (Client(), owner_client(other)):
        for page in (url, f"/bots/{rejected.bot.pk}/versions/", f"/api/bots/{rejected.bot.pk}/"):
            said = client.get(page).content.decode()
            assert "was not declared" not in said and "unsigned long long" not in said, page
