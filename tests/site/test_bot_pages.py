"""My bots (upload, versions, live validation, retire / reactivate) and the public bot page,
seen by three visitors: the owner, another logged-in user and an anonymous one."""

from __future__ import annotations

import re
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.html import escape

from bots import competition
from bots.competition import uploads
from bots.competition.uploads import activate
from bots.ladder import aggregates
from bots.ladder.ratings import NEW_VERSION_SIGMA
from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    OpponentResult,
    Rating,
    RatingHistory,
    Tournament,
)
from bots.pages.views import CHART_POINTS, rating_chart, request_limit
from bots.running.playing import Entry, play
from bots.worker import Options, Worker
from games.live import tables
from games.live.host import Finish
from games.registry import get_game


def builtin_code(name: str) -> str:
    return get_game("rps-poker").builtin_path(name).read_text()


#: a legal RPS Poker bot (always the first card) that runs ``{act}`` in main_play
TEMPLATE = """
import sys


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
{act}
        return 0

    def main_postprocess(self, card):
        pass
"""


def bot_code(act: str = "pass") -> str:
    return TEMPLATE.format(act=textwrap.indent(textwrap.dedent(act).strip(), " " * 8))


JS_BOT = """({
  draftPick: function (cards) { return 0; },
  draftReceive: function (card) {},
  mainPlay: function (hand, base) { return 0; },
  mainPostprocess: function (card) {},
})
"""


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="x" * 12)


@pytest.fixture
def other(bob) -> Client:
    client = Client()
    client.force_login(bob)
    return client


@pytest.fixture
def anonymous() -> Client:
    return Client()


def make_active(user: User, name: str, code: str) -> BotVersion:
    """An active version made directly (no validation), like an admin would."""
    bot, _ = Bot.objects.get_or_create(
        owner=user, game="rps-poker", name=name, defaults={"language": "python"}
    )
    version = BotVersion.objects.create(
        bot=bot,
        number=bot.versions.count() + 1,
        code=code,
        checksum=BotVersion.checksum_of(code),
    )
    with transaction.atomic():
        activate(version)
    return version


def paste(client: Client, name: str = "mine", code: str | None = None, **fields):
    data = {"game": "rps-poker", "name": name, "language": "python", "code": code or bot_code()}
    data.update(fields)
    return client.post("/my/bots/", data)


def page(response) -> str:
    return response.content.decode()


def errors(response) -> str:
    """The text of the upload form's error messages, unescaped enough to compare."""
    html = page(response)
    found = re.findall(r'<(?:div class="form-errors"|ul class="errorlist)[^>]*>(.*?)</(?:div|ul)>',
                       html, re.S)  # fmt: skip
    text = re.sub(r"<[^>]+>", " ", " ".join(found))
    return " ".join(text.replace("&#x27;", "'").replace("&quot;", '"').split())


def csrf_token(client: Client) -> str:
    client.get("/my/bots/")
    return client.cookies["csrftoken"].value


# ---- who may do what --------------------------------------------------------------------
def test_it_sends_anonymous_visitors_to_log_in_before_anything_private(anonymous, alice):
    version = make_active(alice, "counter", bot_code())
    for url in (
        "/my/bots/",
        f"/my/bots/versions/{version.pk}/status.json",
        f"/my/bots/versions/{version.pk}/code/",
    ):
        response = anonymous.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"
    response = paste(anonymous, name="sneaky")
    assert response["Location"] == "/accounts/login/?next=/my/bots/"
    response = anonymous.post(f"/my/bots/{version.bot_id}/retire/")
    assert response["Location"].startswith("/accounts/login/")
    assert not Bot.objects.filter(name="sneaky").exists()
    version.refresh_from_db()
    assert version.status == BotVersion.ACTIVE


def test_it_hides_code_logs_and_stderr_of_a_bot_from_everyone_but_its_owner(
    owner, other, anonymous, alice, bob
):
    version = make_active(alice, "chatty", bot_code("# CODE-MARKER-6173"))
    BotVersion.objects.filter(pk=version.pk).update(validation_log="LOG-MARKER-2291")
    opponent = make_active(bob, "steady", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 1, seed=11, versions=[version, opponent])
    assert Worker(Options(validate=False), name="test-worker").run(batch=True) == 2
    MatchSeat.objects.filter(bot=version.bot).update(
        stderr="STDERR-MARKER-5512", fault_kind="timeout", fault_reason="FAULT-MARKER-8830"
    )
    markers = ("CODE-MARKER-6173", "LOG-MARKER-2291", "STDERR-MARKER-5512", "FAULT-MARKER-8830")

    mine = page(owner.get(f"/bots/{version.bot_id}/"))
    for marker in markers:
        assert marker in mine
    assert f'href="/my/bots/versions/{version.pk}/code/"' in mine
    for visitor in (other, anonymous):
        response = visitor.get(f"/bots/{version.bot_id}/")
        assert response.status_code == 200
        for marker in markers:
            assert marker not in page(response)
        assert "/code/" not in page(response)
    for url in (f"/my/bots/versions/{version.pk}/status.json",
                f"/my/bots/versions/{version.pk}/code/"):  # fmt: skip
        assert other.get(url).status_code == 404
    download = owner.get(f"/my/bots/versions/{version.pk}/code/")
    assert download.status_code == 200
    assert download["Content-Disposition"] == 'attachment; filename="chatty-v1.py"'
    assert "CODE-MARKER-6173" in download.content.decode()
    # Someone else's bots are not listed among mine.
    assert "chatty" not in page(other.get("/my/bots/"))


def test_a_validation_log_that_scrolls_can_be_reached_and_is_named(owner, alice):
    """A long log scrolls in its box: a keyboard user can reach it (tabindex) and a screen
    reader says whose log it is."""
    version = make_active(alice, "scroller", bot_code())
    BotVersion.objects.filter(pk=version.pk).update(validation_log="a long line " * 40)
    listing = page(owner.get("/my/bots/"))
    assert (
        '<pre class="log" tabindex="0" role="region" aria-label="Validation log of scroller v1">'
        in listing
    )


def test_pages_showing_an_owner_their_code_logs_and_output_are_kept_by_no_cache(
    owner, other, anonymous, alice
):
    """What an owner sees of their bots (code, logs, its output) is neither kept by a shared
    cache nor by the browser, as status.json is not; what anyone may see of a bot may be."""
    version = make_active(alice, "chatty", bot_code())

    def kept(response) -> set[str]:
        return {part.strip() for part in response.get("Cache-Control", "").split(",") if part}

    for url in (
        f"/bots/{version.bot_id}/",
        f"/bots/{version.bot_id}/versions/",
        "/my/bots/",
        f"/my/bots/versions/{version.pk}/code/",
        f"/my/bots/versions/{version.pk}/status.json",
    ):
        response = owner.get(url)
        assert response.status_code == 200, url
        assert {"private", "no-store"} <= kept(response), url
    for visitor in (other, anonymous):
        for url in (f"/bots/{version.bot_id}/", f"/bots/{version.bot_id}/versions/"):
            response = visitor.get(url)
            assert response.status_code == 200 and "no-store" not in kept(response), url


def test_it_refuses_a_forged_retire_or_activation_of_someone_elses_bot(other, alice):
    first = make_active(alice, "counter", bot_code())
    second = make_active(alice, "counter", bot_code("# a second version"))
    first.refresh_from_db()
    assert first.status == BotVersion.RETIRED
    token = csrf_token(other)
    retire = other.post(
        f"/my/bots/{second.bot_id}/retire/", {"csrfmiddlewaretoken": token, "confirm": "yes"}
    )
    assert retire.status_code == 404
    back = other.post(f"/my/bots/versions/{first.pk}/activate/", {"csrfmiddlewaretoken": token})
    assert back.status_code == 404
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (BotVersion.RETIRED, BotVersion.ACTIVE)
    assert not Tournament.objects.exists()


def test_it_enforces_csrf_on_uploads_retiring_and_activating(alice, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    version = make_active(alice, "counter", bot_code())
    assert paste(client, name="forged").status_code == 403
    assert client.post(f"/my/bots/{version.bot_id}/retire/").status_code == 403
    assert not Bot.objects.filter(name="forged").exists()
    version.refresh_from_db()
    assert version.status == BotVersion.ACTIVE
    # With the token of the page's form, the same requests go through.
    token = csrf_token(client)
    response = paste(client, name="honest", csrfmiddlewaretoken=token)
    assert response.status_code == 302
    assert Bot.objects.filter(name="honest").exists()
    response = client.post(
        f"/my/bots/{version.bot_id}/retire/", {"csrfmiddlewaretoken": token, "confirm": "yes"}
    )
    assert response.status_code == 302
    version.refresh_from_db()
    assert version.status == BotVersion.RETIRED


# ---- uploading ----------------------------------------------------------------------------
def test_it_stores_pasted_code_as_a_validating_version_without_running_it(
    owner, alice, tmp_path: Path
):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('the web process ran me')\r\n" + bot_code()
    response = paste(owner, name="paster", code=code)
    assert response.status_code == 302
    version = BotVersion.objects.get(bot__owner=alice, bot__name="paster")
    assert response["Location"] == f"/my/bots/#version-{version.pk}"
    assert version.status == BotVersion.VALIDATING
    assert version.bot.language == "python"
    assert version.filename == "paster.py"
    assert "\r" not in version.code  # a textarea's CR LF line ends are stored as LF
    assert not marker.exists()  # stored, never executed by the web process
    listing = page(owner.get("/my/bots/"))
    assert f'data-status-url="/my/bots/versions/{version.pk}/status.json"' in listing
    assert "waiting for a worker" in listing
    assert "/static/js/mybots.js" in listing  # follows the validation live
    assert "waits for validation" in listing  # the message after the upload
    status = owner.get(f"/my/bots/versions/{version.pk}/status.json").json()
    assert status["status"] == "validating" and status["final"] is False


def waiting_version(user: User, name: str, **fields) -> BotVersion:
    """A version stored straight into the validation queue (a new bot, or a new version)."""
    bot, _ = Bot.objects.get_or_create(
        owner=user, game="rps-poker", name=name, defaults={"language": "python"}
    )
    code = bot_code()
    return BotVersion.objects.create(
        bot=bot,
        number=bot.versions.count() + 1,
        code=code,
        checksum=BotVersion.checksum_of(code),
        **fields,
    )


def test_a_waiting_version_says_how_many_uploads_the_workers_take_before_it(owner, alice, bob):
    carol = User.objects.create_user("carol", password="x" * 12)
    now = timezone.now()
    dave = User.objects.create_user("dave", password="x" * 12)
    waiting_version(dave, "held", validation_lease=now + timedelta(minutes=1))  # on a worker
    waiting_version(carol, "gone", status=BotVersion.REJECTED)
    first_of_bob = waiting_version(bob, "b1")
    first = waiting_version(alice, "a1")
    second = waiting_version(alice, "a1")  # alice's second waits behind everyone's first
    first_of_carol = waiting_version(carol, "c1")
    slow = waiting_version(bob, "b2", validation_slow=True)  # after all the quick ones
    queue = list(uploads.validation_queue(timezone.now()))
    assert [v.pk for v in queue] == [first_of_bob.pk, first.pk, first_of_carol.pk, second.pk,
                                     slow.pk]  # fmt: skip
    with CaptureQueriesContext(connection) as asked:
        counts = [uploads.validations_ahead(v, timezone.now()) for v in queue]
    assert counts == [0, 1, 2, 3, 4]
    assert len(asked) == len(queue)  # one query each

    listing = page(owner.get("/my/bots/"))
    assert "waiting for a worker: 1 upload ahead of it" in listing
    assert "waiting for a worker: 3 uploads ahead of it" in listing
    status = owner.get(f"/my/bots/versions/{second.pk}/status.json").json()
    assert status["detail"] == "waiting for a worker: 3 uploads ahead of it"
    assert {v["id"]: v["detail"] for v in status["versions"]} == {
        first.pk: "waiting for a worker: 1 upload ahead of it",
        second.pk: "waiting for a worker: 3 uploads ahead of it",
    }
    mine = Client()
    mine.force_login(bob)
    status = mine.get(f"/my/bots/versions/{first_of_bob.pk}/status.json").json()
    assert status["detail"] == "waiting for a worker: next in line"


def test_the_upload_banner_names_its_version_for_the_script_that_follows_the_verdict(owner, alice):
    response = paste(owner, name="banner")
    version = BotVersion.objects.get(bot__owner=alice, bot__name="banner")
    listing = page(owner.get(response["Location"]))
    # a list in a status region (a list with role="status" is no list to a screen reader);
    # the script writes the verdict in it, which #validation-live says: the banner is not
    # read out again (aria-live="off")
    banner = re.search(
        r'<div role="status"><ul class="messages"><li class="([^"]*)" aria-live="off">([^<]*)</li>',
        listing,
    )
    assert banner is not None
    assert '<div id="validation-live" class="sr-only" role="status" aria-live="polite">' in listing
    assert f"upload-of-version-{version.pk}" in banner.group(1).split()
    assert banner.group(2) == (
        f"Version {version.number} of banner is stored and waits for validation in the sandbox."
    )
    # what the script reads to find the banner and say the verdict in it
    script = (Path(__file__).parents[2] / "static/js/mybots.js").read_text()
    assert '".messages li.upload-of-version-" + id' in script
    assert "settleNotice(data.id, data.number, name, data.status)" in script
    # the verdict the script puts in place is the page's own (status.json's verdict_html)
    assert "box.innerHTML = data.verdict_html;" in script
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersion.REJECTED, reason="exception: it folds"
    )
    status = owner.get(f"/my/bots/versions/{version.pk}/status.json").json()
    assert (status["id"], status["number"], status["status"], status["final"]) == (
        version.pk,
        version.number,
        "rejected",
        True,
    )


def test_it_accepts_a_javascript_file_and_a_new_version_of_the_same_bot(owner, alice):
    first = SimpleUploadedFile("mine.js", JS_BOT.encode(), content_type="text/javascript")
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "jsbot", "language": "javascript", "file": first}
    )
    assert response.status_code == 302
    second = SimpleUploadedFile("v2.js", JS_BOT.replace("0;", "0; // v2", 1).encode())
    owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "jsbot", "language": "javascript",
                      "file": second}
    )  # fmt: skip
    bot = Bot.objects.get(owner=alice, name="jsbot")
    assert bot.language == "javascript"
    assert list(bot.versions.values_list("number", flat=True)) == [1, 2]
    assert bot.versions.get(number=2).filename == "jsbot.js"
    # The "new version" link starts the form from the bot's game, name and language.
    form = page(owner.get(f"/my/bots/?bot={bot.pk}"))
    assert 'name="name" value="jsbot"' in form
    assert re.search(r'value="javascript"[^>]*checked', form)


def test_it_refuses_a_file_whose_suffix_disagrees_with_the_language(owner):
    upload = SimpleUploadedFile("bot.js", JS_BOT.encode())
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "mixed", "language": "python", "file": upload}
    )
    assert response.status_code == 200
    assert "bot.js is a JavaScript file, but the language chosen is Python." in errors(response)
    rust = SimpleUploadedFile("bot.rs", b"fn main() {}")
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "rusty", "language": "python", "file": rust}
    )
    said = "bot.rs: unsupported file type (expected .cc, .cpp, .cxx, .jar, .java, .js, .py)"
    assert said in errors(response)
    assert not BotVersion.objects.exists()


def test_it_refuses_code_of_another_language_than_the_one_chosen_naming_both(owner, alice):
    starter = get_game("rps-poker").starters["javascript"].read_text(encoding="utf-8")
    response = paste(owner, name="rps-js", code=starter)  # Python chosen
    assert response.status_code == 200
    line = starter.splitlines().index("({") + 1
    assert errors(response) == (
        "The upload was refused "
        f"This looks like JavaScript (line {line}: “({{”), but the language chosen is Python: "
        "choose JavaScript, or give Python code."
    )
    assert not Bot.objects.filter(owner=alice).exists()
    assert paste(owner, name="rps-js", code=starter, language="javascript").status_code == 302


def test_it_refuses_an_oversized_file_with_the_limit(owner, settings):
    settings.BOT_MAX_CODE_BYTES = 100
    upload = SimpleUploadedFile("big.py", b"#" * 150)
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "big", "language": "python", "file": upload}
    )
    assert response.status_code == 200
    assert "Your file is 150 bytes; uploads take at most 100 bytes." in errors(response)
    response = paste(owner, name="big", code="#" * 101)
    assert "Your file is 101 bytes; uploads take at most 100 bytes." in errors(response)
    assert not BotVersion.objects.exists()


def test_it_refuses_an_oversized_request_before_reading_it(alice, settings):
    settings.BOT_MAX_CODE_BYTES = 100
    # No CSRF token: the size is checked first, before the body is parsed for the token.
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    upload = SimpleUploadedFile("huge.py", b"#" * (request_limit() + 1))
    response = client.post(
        "/my/bots/", {"game": "rps-poker", "name": "huge", "language": "python", "file": upload}
    )
    assert response.status_code == 413
    # the one message of a file too big (it said "The upload has ... bytes; a bot's code ...")
    said = r"Your file is \d+ KiB; uploads take at most 100 bytes\."
    assert re.search(said, errors(response))
    assert not BotVersion.objects.exists()


def test_it_refuses_both_a_file_and_pasted_code_and_neither(owner):
    upload = SimpleUploadedFile("both.py", bot_code().encode())
    response = paste(owner, name="both", code=bot_code("# pasted"), file=upload)
    assert "Choose a file or paste the code, not both." in errors(response)
    response = owner.post("/my/bots/", {"game": "rps-poker", "name": "n", "language": "python"})
    assert "Choose a file to upload or paste the code." in errors(response)
    response = paste(owner, name="neither", code="   ")  # blanks: said so
    assert "The pasted code is empty (only spaces and line ends)." in errors(response)
    assert not BotVersion.objects.exists()


def test_it_shows_the_reason_of_a_refused_upload_on_the_form(owner, alice):
    paste(owner, name="twice", code=bot_code())
    response = paste(owner, name="twice", code=bot_code())
    assert "This code is already version 1 of twice, being validated." in errors(response)
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "twice", "language": "javascript",
                      "code": JS_BOT}
    )  # fmt: skip
    assert (
        "twice is a Python bot and keeps its language: upload JavaScript code as a new bot "
        "(retire twice first)." in errors(response)
    )  # (it said "alice/twice is a python bot, not javascript")
    assert BotVersion.objects.count() == 1


def test_it_refuses_a_bot_name_with_a_right_to_left_override_naming_the_character(owner):
    response = paste(owner, name="evil\u202egnp.exe")
    assert response.status_code == 200
    said = errors(response)
    assert "The bot name holds U+202E RIGHT-TO-LEFT OVERRIDE; names are plain text." in said
    assert not BotVersion.objects.exists()


def test_it_limits_the_versions_a_user_uploads_in_an_hour(owner, other, alice, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    settings.BOT_UPLOADS_PER_HOUR = 2
    assert paste(owner, name="a", code=bot_code("# one")).status_code == 302
    assert paste(owner, name="b", code=bot_code("# two")).status_code == 302
    response = paste(owner, name="c", code=bot_code("# three"))
    assert response.status_code == 200
    message = errors(response)
    assert "You have uploaded 2 versions in the last hour, the most allowed (2 an hour)" in message
    assert "you can upload again in 60 minutes" in message
    assert not Bot.objects.filter(name="c").exists()
    # Another user has an allowance of their own.
    assert paste(other, name="c", code=bot_code("# three")).status_code == 302
    # An hour later the oldest upload no longer counts.
    first = BotVersion.objects.get(bot__owner=alice, bot__name="a")
    BotVersion.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(minutes=61))
    assert paste(owner, name="c", code=bot_code("# three")).status_code == 302


def test_it_limits_the_versions_the_accounts_of_one_address_upload_in_an_hour(
    owner, other, alice, settings
):
    """One address may make 10 accounts an hour, each with an hour of 10 uploads, and every
    upload is compiled and validated on a worker: the address has a limit of its own."""
    settings.BOT_UPLOADS_PER_ADDRESS_PER_HOUR = 2
    assert paste(owner, name="a", code=bot_code("# one")).status_code == 302
    # a refused upload (the same code again) is not counted
    assert paste(owner, name="a", code=bot_code("# one")).status_code == 200
    assert paste(other, name="b", code=bot_code("# two")).status_code == 302
    carol = User.objects.create_user("carol", password="x" * 12)
    third = Client()
    third.force_login(carol)
    response = paste(third, name="c", code=bot_code("# three"))
    assert response.status_code == 200
    said = (
        "People at your address have uploaded 2 versions in the last hour, the most allowed "
        "from one address (2 an hour, whatever the account); you can upload again in "
    )
    assert said + "60 minutes." in errors(response) or said + "61 minutes." in errors(response)
    assert not Bot.objects.filter(name="c").exists()
    # another address has its own hour (the client's address as every per-address limit of
    # the site finds it: a forwarded one only from a trusted proxy)
    settings.TRUSTED_PROXIES = 1
    elsewhere = third.post(
        "/my/bots/",
        {"game": "rps-poker", "name": "c", "language": "python", "code": bot_code("# three")},
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )
    assert elsewhere.status_code == 302


def test_a_file_for_another_game_is_refused_with_its_game_before_anything_counts(
    owner, alice, settings
):
    # the Kuhn starter chosen for RPS Poker, by a person with an RPS Poker bot: "You already
    # have a bot competing in RPS Poker ... upload your code as a new version of rps-mine";
    # so uploaded, it was stored, counted, and only its validation said what was wrong
    settings.BOT_UPLOADS_PER_ADDRESS_PER_HOUR = 1
    make_active(alice, "rps-mine", builtin_code("simple"))
    kuhn = get_game("kuhn").starters["python"].read_text()
    for name in ("kuhn-mine", "rps-mine"):
        response = paste(owner, name=name, code=kuhn)
        assert response.status_code == 200
        assert errors(response) == (
            "The upload was refused "
            "This file looks like a Kuhn poker bot, not an RPS Poker bot: it defines act (Kuhn "
            "poker's method), its text names Kuhn poker, and it has none of draft_pick, "
            "draft_receive, main_play and main_postprocess, the methods an RPS Poker bot needs. "
            "To enter it in Kuhn poker, choose Kuhn poker as its game."
        )
    assert BotVersion.objects.count() == 1
    # the address's one upload of the hour is still there, for the game the file is for
    assert paste(owner, name="kuhn-mine", code=kuhn, game="kuhn").status_code == 302
    # and a file for another game is told so before the hour's limits
    response = paste(owner, name="kuhn-two", code=kuhn + "# two\n")
    assert errors(response).startswith("The upload was refused This file looks like a Kuhn")


def test_the_upload_form_ignores_a_forged_bot_number(owner):
    for forged in ("\u00b2", "\u0663", "9" * 30, "x"):
        response = owner.get("/my/bots/", {"bot": forged})
        assert response.status_code == 200 and "Upload" in page(response)


def test_it_escapes_a_bot_name_everywhere(owner, anonymous, alice):
    assert paste(owner, name="<b>bold</b>").status_code == 302
    bot = Bot.objects.get(owner=alice)
    for html in (page(owner.get("/my/bots/")), page(anonymous.get(f"/bots/{bot.pk}/"))):
        assert "&lt;b&gt;bold&lt;/b&gt;" in html
        assert "<b>bold</b>" not in html


# ---- validation, followed live ------------------------------------------------------------
def validate_waiting() -> None:
    """What ``manage.py worker`` does first: claim a waiting version and validate it in the
    sandbox."""
    worker = Worker(Options(), name="test-validator")
    try:
        assert worker.validate_one()
    finally:
        worker.close()


def test_it_reports_a_version_that_passes_real_validation_as_active(owner, alice):
    paste(owner, name="simple", code=builtin_code("simple"))
    version = BotVersion.objects.get(bot__owner=alice)
    url = f"/my/bots/versions/{version.pk}/status.json"
    assert owner.get(url).json()["status"] == "validating"
    validate_waiting()
    status = owner.get(url).json()
    assert status["status"] == "active" and status["final"] is True
    assert status["reason"] == ""
    assert "passed" in status["log"]
    assert status["versions"] == [
        {"id": version.pk, "number": 1, "status": "active", "text": "active",
         "detail": "competing"}
    ]  # fmt: skip
    listing = page(owner.get("/my/bots/"))
    assert 'class="status status-active"' in listing
    assert "data-status-url" not in listing  # nothing left to follow
    assert re.search(r'action="/my/bots/\d+/retire/" data-role="retire">', listing)


def test_it_reports_a_version_that_fails_real_validation_with_reason_and_log(owner, alice):
    code = bot_code("""
        print("about to fail", file=sys.stderr)
        raise RuntimeError("boom in main_play")
    """)
    paste(owner, name="crasher", code=code)
    version = BotVersion.objects.get(bot__owner=alice)
    validate_waiting()
    status = owner.get(f"/my/bots/versions/{version.pk}/status.json").json()
    assert status["status"] == "rejected" and status["final"] is True
    assert status["reason"].startswith("exception:")
    assert "boom in main_play" in status["reason"]
    assert "about to fail" in status["log"]
    listing = page(owner.get("/my/bots/"))
    assert 'class="status status-rejected"' in listing
    assert "boom in main_play" in listing
    assert "<summary>Validation log</summary>" in listing
    assert "about to fail" in listing
    # Its page says when it was rejected, not that it was "validated".
    html = page(owner.get(f"/bots/{version.bot_id}/"))
    assert re.search(r"· rejected <time datetime=", html)
    assert not re.search(r"· validated <time datetime=", html)
    # A rejected version cannot be made active.
    token = csrf_token(owner)
    response = owner.post(
        f"/my/bots/versions/{version.pk}/activate/", {"csrfmiddlewaretoken": token}, follow=True
    )
    assert "only a retired version can be made active again" in page(response)
    version.refresh_from_db()
    assert version.status == BotVersion.REJECTED


def test_it_reports_a_bot_slow_on_every_move_as_stepping_aside_then_rejected(owner, alice):
    paste(owner, name="sluggish", code=bot_code("import time; time.sleep(1.5)"))
    version = BotVersion.objects.get(bot__owner=alice)
    url = f"/my/bots/versions/{version.pk}/status.json"
    validate_waiting()  # the quick pass: its first move runs over the 1 s per call
    status = owner.get(url).json()
    assert status["status"] == "validating" and status["final"] is False
    assert status["detail"] == (
        "slower than the per-call time: waiting to be validated again, with the time bank, "
        "after the uploads behind it"
    )
    assert "no answer to main_play within 1.00 s" in status["log"]
    assert "validated again in full, with the game's 10 s time bank" in status["log"]
    assert "waiting to be validated again" in page(owner.get("/my/bots/"))
    validate_waiting()  # the full pass: three slow moves in a row end it
    status = owner.get(url).json()
    assert status["status"] == "rejected" and status["final"] is True
    # (a call's time is its own less what a loaded machine kept the bot waiting for a CPU
    # once it woke: 1.36 s once, for a sleep of 1.5 s)
    assert re.match(
        r"timeout: 3 calls in a row over the 1 s per call \(main_play took 1\.\d\d s; ",
        status["reason"],
    )
    assert status["reason"].endswith(
        "the 10 s time bank pays for occasional slow calls, not for 3 in a row"
    )
    assert "at most 3 calls in a row over 1 s" in status["log"]


# ---- retiring and reactivating ------------------------------------------------------------
def test_it_retires_a_bot_and_withdraws_its_queued_matches(owner, alice, bob):
    mine = make_active(alice, "counter", bot_code())
    theirs = make_active(bob, "steady", builtin_code("simple"))
    third = make_active(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=3)
    assert tournament.jobs.count() == 6  # three pairs, both seatings
    response = owner.post(f"/my/bots/{mine.bot_id}/retire/", {"confirm": "yes"}, follow=True)
    assert "counter is retired: version 1 no longer competes." in page(response)
    mine.refresh_from_db()
    assert mine.status == BotVersion.RETIRED
    assert competition.active_versions("rps-poker") == [theirs, third]
    withdrawn = tournament.jobs.filter(status=MatchJob.FAILED)
    assert withdrawn.count() == 4
    assert all(mine.pk in job.seats for job in withdrawn)
    assert {job.error for job in withdrawn} == {"withdrawn: the bot was retired by its owner"}
    assert tournament.jobs.filter(status=MatchJob.QUEUED).count() == 2
    # Retiring again says there is nothing to retire.
    again = owner.post(f"/my/bots/{mine.bot_id}/retire/", {"confirm": "yes"}, follow=True)
    assert "counter has no active version to retire." in page(again)


def test_it_reactivates_a_retired_version_with_placement_matches(owner, alice, bob):
    first = make_active(alice, "counter", bot_code())
    second = make_active(alice, "counter", bot_code("# version two"))
    make_active(bob, "steady", builtin_code("simple"))
    make_active(bob, "strong", builtin_code("strong"))
    bot = first.bot
    bot.rating.sigma = 1.0
    bot.rating.save()
    response = owner.post(f"/my/bots/versions/{first.pk}/activate/", follow=True)
    assert "Version 1 of counter is active again" in page(response)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (BotVersion.ACTIVE, BotVersion.RETIRED)
    placement = Tournament.objects.get(format=Tournament.PLACEMENT)
    assert placement.settings["version"] == first.pk
    jobs = list(placement.jobs.all())
    assert len(jobs) == 2 * 2 * 2  # two opponents, PLACEMENT_DEALS deals, both seatings
    assert all(first.pk in job.seats for job in jobs)
    bot.rating.refresh_from_db()
    assert bot.rating.sigma == pytest.approx(NEW_VERSION_SIGMA)


# ---- the public page ----------------------------------------------------------------------
def test_it_shows_a_bots_rating_history_results_and_recent_matches(anonymous, alice, bob):
    mine = make_active(alice, "counter", builtin_code("strong"))
    theirs = make_active(bob, "steady", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 2, seed=5)
    assert Worker(Options(validate=False), name="test-worker").run(batch=True) == 4
    row = LeaderboardRow.objects.get(bot=mine.bot)
    rating = Rating.objects.get(bot=mine.bot)
    html = page(anonymous.get(f"/bots/{mine.bot_id}/"))
    assert '<h1>counter <span class="by">by alice</span></h1>' in html
    for fact in ("RPS Poker", "Python", "v1", f"<dd>{row.rank}</dd>", f"<dd>{row.matches}</dd>"):
        assert fact in html
    assert f"<strong>{rating.conservative:.2f}</strong>" in html
    assert f"{rating.mu:.2f} ± {rating.sigma:.2f}" in html
    # The game's own columns, from the leaderboard row.
    assert "score (games won)" in html and "games won % (95% CI)" in html
    # The chart: an SVG with a title and description, and its data as a table.
    assert 'role="img" aria-labelledby="chart-title chart-desc"' in html
    assert '<title id="chart-title">Rating history of counter</title>' in html
    assert "Over 4 rated matches the rating (mu - 3 sigma) went from" in html
    history = list(RatingHistory.objects.filter(bot=mine.bot))
    assert [entry.number for entry in history] == [1, 2, 3, 4]  # its place, as it was rated
    for entry in history:
        assert f'href="/matches/{entry.match_id}/"' in html
    # Results against the opponent, from the matches played.
    seats = MatchSeat.objects.filter(bot=mine.bot).select_related("match")
    wins = sum(
        1 for seat in seats if seat.score > seat.match.participants.exclude(pk=seat.pk)[0].score
    )
    opponent_row = re.search(
        rf'<a href="/bots/{theirs.bot_id}/">bob/steady</a></th>\s*<td>(\d+)</td><td>(\d+)</td>',
        html,
    )
    assert opponent_row is not None
    assert (int(opponent_row[1]), int(opponent_row[2])) == (4, wins)
    recent = html[html.index('id="recent-title"') : html.index('id="versions-title"')]
    assert recent.count('<td><a href="/matches/') == 4
    assert recent.count(f'<a href="/bots/{theirs.bot_id}/">bob/steady</a>') == 4


def test_it_says_when_a_bot_has_not_played_and_answers_404_for_no_bot(anonymous, alice):
    version = make_active(alice, "fresh", bot_code())
    html = page(anonymous.get(f"/bots/{version.bot_id}/"))
    assert "No rated matches yet." in html
    assert "No matches played yet." in html
    assert anonymous.get("/bots/999999/").status_code == 404


def test_it_draws_the_rating_chart_within_its_box_and_thins_a_long_history():
    entries = [
        RatingHistory(mu=25 + n * 0.01, sigma=8.33 - n * 0.001,
                      mu_before=25 + (n - 1) * 0.01, sigma_before=8.33 - (n - 1) * 0.001)
        for n in range(1, 1001)
    ]  # fmt: skip
    chart = rating_chart(entries)
    assert chart is not None
    points = chart["conservative"].split()
    assert len(points) == CHART_POINTS
    coordinates = [tuple(map(float, p[1:].split(","))) for p in points]
    box = chart["plot"]
    assert all(box["left"] <= x <= box["right"] for x, _ in coordinates)
    assert all(box["top"] <= y <= box["bottom"] for _, y in coordinates)
    assert coordinates[0][0] == box["left"] and coordinates[-1][0] == box["right"]
    # The conservative rating rises here, so the line ends higher (smaller y) than it starts.
    assert coordinates[-1][1] < coordinates[0][1]
    assert chart["band"].endswith("Z")
    assert rating_chart([]) is None


def test_it_counts_results_in_the_games_direction_at_a_table_of_three(anonymous, alice, bob):
    """Last Card scores points taken (lower is better); at a table of three each other bot is
    a meeting of its own."""
    carol = User.objects.create_user("carol", password="x" * 12)
    mine = Bot.objects.create(owner=alice, game="last-card", name="shedder", language="python")
    theirs = Bot.objects.create(owner=bob, game="last-card", name="hoarder", language="python")
    third = Bot.objects.create(owner=carol, game="last-card", name="middler", language="python")
    versions = {
        bot.pk: BotVersion.objects.create(bot=bot, number=1, code="x", checksum=bot.name)
        for bot in (mine, theirs, third)
    }
    cup = Tournament.objects.create(game="last-card", name="cup")
    for seed, points in enumerate([(0, 7, 5), (3, 3, 5), (9, 1, 5)]):
        match = Match.objects.create(tournament=cup, game="last-card", seed=seed, record={})
        seats = [
            MatchSeat(match=match, seat=seat, bot=bot, version=versions[bot.pk], score=score)
            for seat, (bot, score) in enumerate(zip((mine, theirs, third), points, strict=True))
        ]
        aggregates.record(match, MatchSeat.objects.bulk_create(seats))
    html = page(anonymous.get(f"/bots/{mine.pk}/"))
    against = html[html.index('id="opponents-title"') : html.index('id="recent-title"')]
    cells = r"\s*<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>"
    hoarder = re.search(rf'<a href="/bots/{theirs.pk}/">bob/hoarder</a></th>{cells}', against)
    assert hoarder is not None and hoarder.groups() == ("3", "1", "1", "1")
    middler = re.search(rf'<a href="/bots/{third.pk}/">carol/middler</a></th>{cells}', against)
    assert middler is not None and middler.groups() == ("3", "2", "0", "1")
    recent = html[html.index('id="recent-title"') : html.index('id="versions-title"')]
    assert "place 1 of 3" in recent and "place 3 of 3" in recent
    assert "live table" not in recent
    assert 'href="/bots/None/"' not in html


def store_at_a_table(
    game: str, person: User, versions: list[BotVersion], seed: int, builtins: tuple[str, ...] = ()
) -> None:
    """A live table of ``person`` against ``versions`` (and the built-in bots ``builtins``),
    played by built-in bots for speed and stored the way a table's host stores it."""
    choices = ["me", *(f"bot:{v.pk}" for v in versions), *(f"builtin:{b}" for b in builtins)]
    table = tables.create_table(game, tables.Person(person), choices)
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    builtins = get_game(game).builtin_names
    entries = [Entry(name=f"seat {n}", builtin=builtins[(seed + n) % len(builtins)])
               for n in range(len(choices))]  # fmt: skip
    tables.store_finish(facts, Finish(play(get_game(game), entries, seed=seed)))


def test_results_by_opponent_count_tournament_matches_and_never_a_live_table(alice, bob):
    """Matches stored by the worker (rated, between bots) and by live tables (a person with
    one bot, or with three at Last Card, where a lower score is better, or with one and a
    built-in bot): the kept totals are what counting every tournament's stored seat gives,
    the tables add nothing (friendly: anyone may open as many as they like against a bot),
    and the page shows them, the tables marked among the recent matches."""
    mine = make_active(alice, "counter", builtin_code("strong"))
    theirs = make_active(bob, "steady", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 2, seed=5)
    worker = Worker(Options(validate=False), name="test-worker")
    assert worker.step() is True
    carol = User.objects.create_user("carol", password="x" * 12)
    store_at_a_table("rps-poker", carol, [mine], seed=3)
    assert worker.run(batch=True) == 3
    store_at_a_table("rps-poker", carol, [theirs], seed=4)
    cards = get_game("last-card")
    players = []
    for owner, name in ((alice, "shedder"), (bob, "hoarder"), (carol, "middler")):
        bot = Bot.objects.create(owner=owner, game="last-card", name=name, language="python")
        code = cards.builtin_path(cards.builtin_names[0]).read_text() + f"# {name}\n"
        players.append(BotVersion.objects.create(
            bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code),
            status=BotVersion.ACTIVE))  # fmt: skip
    for seed in range(3):
        store_at_a_table("last-card", alice, players, seed=seed)
    store_at_a_table("last-card", carol, [players[0]], seed=7, builtins=("naive",))
    assert Match.objects.filter(tournament=None).count() == 6
    kept = aggregates.kept()
    assert kept == aggregates.recount()
    assert kept[(mine.bot_id, f"bot:{theirs.bot_id}")][0] == 4
    # nothing of the tables: no person, no built-in bot, no bot met only there
    assert all(key.startswith("bot:") for _, key in kept)
    assert not any(bot in {p.bot_id for p in players} for bot, _ in kept)
    assert kept == {
        key: value for key, value in aggregates.tally_rows(
            MatchSeat.objects.filter(match__tournament__isnull=False)
            .order_by("match_id", "seat")
            .values_list("match_id", "match__game", "bot_id", "name", "score")
        ).items()
    }  # fmt: skip
    html = page(Client().get(f"/bots/{mine.bot_id}/"))
    against = html[html.index('id="opponents-title"') : html.index('id="recent-title"')]
    assert re.search(rf'<a href="/bots/{theirs.bot_id}/">bob/steady</a></th>\s*<td>4</td>', against)
    assert "carol" not in against and "(a person)" not in html
    assert "Its tournament matches, rated or not." in against
    # each side's points as the cross tables write them: "7 \u2013 3", a minus sign for a loss
    assert re.search(r"<td>\u2212?[\d.]+ \u2013 \u2212?[\d.]+</td>", against), against
    recent = html[html.index('id="recent-title"') : html.index('id="versions-title"')]
    assert recent.count('<br><span class="muted">live table</span>') == 1  # carol's, of 5
    api = Client().get(f"/api/bots/{mine.bot_id}/").json()
    assert [m["live_table"] for m in api["recent_matches"]].count(True) == 1
    assert [r["player"] for r in api["opponents"]["results"]] == ["bob/steady"]
    # the bot met at a Last Card table with a built-in bot: no row, on its page or the API
    shedder = page(Client().get(f"/bots/{players[0].bot_id}/"))
    assert "house/naive" in shedder  # among its recent matches, not as a person
    assert "(a person)" not in shedder
    assert "No tournament matches against other bots yet." in shedder
    assert Client().get(f"/api/bots/{players[0].bot_id}/").json()["opponents"]["results"] == []


def test_the_fill_migration_counts_the_matches_stored_before_it(alice, bob):
    """The migration that brings the totals in fills them from the matches already stored,
    and numbers each bot's rating updates in the order they were written."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("bots.migrations.0008_fill_opponent_results")
    fill, number = migration.fill, migration.number
    make_active(alice, "counter", builtin_code("strong"))
    make_active(bob, "steady", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 2, seed=5)
    assert Worker(Options(validate=False), name="test-worker").run(batch=True) == 4
    before = aggregates.kept()
    OpponentResult.objects.all().delete()
    fill(apps, None)
    assert aggregates.kept() == before == aggregates.recount() != {}
    places = dict(RatingHistory.objects.values_list("id", "number"))
    assert sorted(places.values()) == [1, 1, 2, 2, 3, 3, 4, 4]
    RatingHistory.objects.update(number=0)

    class Editor:  # what the step uses of a schema editor (SQLite's opens no transaction)
        quote_name = staticmethod(connection.ops.quote_name)

        def execute(self, sql: str) -> None:
            with connection.cursor() as cursor:
                cursor.execute(sql)

    number(apps, Editor())
    assert dict(RatingHistory.objects.values_list("id", "number")) == places


def test_the_migration_takes_the_live_tables_out_of_results_stored_the_old_way(alice, bob):
    """Results by opponent stored before live tables were left out counted them (a person, a
    built-in bot and a bot met at a table each a row): the migration takes them out, working
    from the tables' matches (no query of it walks the matches or their seats), and going
    back puts them in again."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module(
        "bots.migrations.0021_results_by_opponent_without_live_tables"
    )
    mine = make_active(alice, "counter", builtin_code("strong"))
    make_active(bob, "steady", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 2, seed=5)
    assert Worker(Options(validate=False), name="test-worker").run(batch=True) == 4
    carol = User.objects.create_user("carol", password="x" * 12)
    store_at_a_table("rps-poker", carol, [mine], seed=3)
    cards = get_game("last-card")
    players = []
    for owner, name in ((alice, "shedder"), (bob, "hoarder")):
        bot = Bot.objects.create(owner=owner, game="last-card", name=name, language="python")
        code = cards.builtin_path(cards.builtin_names[0]).read_text() + f"# {name}\n"
        players.append(BotVersion.objects.create(
            bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code),
            status=BotVersion.ACTIVE))  # fmt: skip
    store_at_a_table("last-card", carol, players, seed=1, builtins=("naive",))
    store_at_a_table("last-card", carol, players[:1], seed=2, builtins=("naive",))
    # the two met in a tournament too: their rows keep that match alone
    cup = Tournament.objects.create(game="last-card", name="cup")
    match = Match.objects.create(tournament=cup, game="last-card", seed=9, record={})
    aggregates.record(match, MatchSeat.objects.bulk_create(
        MatchSeat(match=match, seat=n, bot=v.bot, version=v, score=n) for n, v in enumerate(players)
    ))  # fmt: skip
    tournaments = aggregates.kept()
    assert tournaments[(players[0].bot_id, f"bot:{players[1].bot_id}")][:2] == [1, 1]
    # the rows as they were kept before: every stored match, the tables' too
    OpponentResult.objects.all().delete()
    aggregates.add(
        aggregates.tally_rows(
            MatchSeat.objects.order_by("match_id", "seat").values_list(
                "match_id", "match__game", "bot_id", "name", "score"
            )
        )
    )
    old = aggregates.kept()
    assert old[(mine.bot_id, "name:carol")][0] == 1
    assert old[(players[0].bot_id, "name:house/naive")][0] == 2
    assert old[(players[0].bot_id, f"bot:{players[1].bot_id}")][0] == 2
    queries = []

    def keep(execute, sql, params, many, context):
        queries.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        migration.take_out(apps, None)
    assert aggregates.kept() == tournaments == aggregates.recount() != {}
    assert not OpponentResult.objects.filter(opponent=None).exists()
    assert "(a person)" not in page(Client().get(f"/bots/{players[0].bot_id}/"))
    assert any("bots_matchseat" in sql for sql, _ in queries)
    if connection.vendor == "sqlite":
        walked = []
        for sql, params in queries:
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
                plan = [row[-1] for row in cursor.fetchall()]
            walked += [step for step in plan if step.startswith("SCAN bots_match")]
        assert walked == []  # every match and seat read was found by an index
    migration.put_back(apps, None)
    assert aggregates.kept() == old


def seed_matches(bots: list[Bot], versions: list[BotVersion], count: int, start: int) -> None:
    """``count`` two-seat matches between the first bot and the others in turn, with rating
    updates, stored through the models and the totals' function, as a worker stores them."""
    cup = Tournament.objects.get_or_create(game="rps-poker", name="seeded")[0]
    for n in range(start, start + count):
        other = 1 + n % (len(bots) - 1)
        match = Match.objects.create(tournament=cup, game="rps-poker", seed=n, record={},
                                     rated=True)  # fmt: skip
        seats = MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=seat, bot=bots[k], version=versions[k], score=score)
            for seat, (k, score) in enumerate([(0, n % 3), (other, 1)])
        )
        aggregates.record(match, seats)
        for k in (0, other):
            number = RatingHistory.objects.filter(bot=bots[k]).count() + 1
            RatingHistory.objects.create(bot=bots[k], match=match, mu=25, sigma=8,
                                         mu_before=25, sigma_before=8, number=number)  # fmt: skip


def test_the_bot_page_and_its_api_ask_as_many_queries_at_a_hundred_matches_as_at_ten(
    anonymous, alice, bob
):
    versions = [make_active(alice if k == 0 else bob, f"b{k}", bot_code()) for k in range(4)]
    bots = [v.bot for v in versions]
    counts = []
    for start, size in ((0, 10), (10, 100)):
        seed_matches(bots, versions, size - start, start=start)
        assert Match.objects.count() == size
        sizes = []
        older = Match.objects.order_by("-pk")[3].pk
        pages = [
            f"/bots/{bots[0].pk}/",
            f"/api/bots/{bots[0].pk}/",
            f"/bots/{bots[0].pk}/?before={older}",
        ]
        for url in pages:
            queries = []

            def count(execute, sql, params, many, context, seen=queries):
                seen.append(sql)
                return execute(sql, params, many, context)

            with connection.execute_wrapper(count):
                assert anonymous.get(url).status_code == 200
            sizes.append(len(queries))
        counts.append(sizes)
    assert counts[0] == counts[1] and min(counts[0]) > 3


def test_the_bot_page_pages_back_through_older_matches_and_opponents(anonymous, alice, bob):
    from bots.pages.views import OPPONENTS_PER_PAGE, RECENT_MATCHES

    versions = [make_active(alice if k == 0 else bob, f"b{k}", bot_code()) for k in range(3)]
    seed_matches([v.bot for v in versions], versions, RECENT_MATCHES + 5, start=0)
    ids = list(Match.objects.order_by("-pk").values_list("pk", flat=True))
    html = page(anonymous.get(f"/bots/{versions[0].bot_id}/"))
    recent = html[html.index('id="recent-title"') : html.index('id="versions-title"')]
    assert re.findall(r'<td><a href="/matches/(\d+)/">', recent) == [
        str(pk) for pk in ids[:RECENT_MATCHES]
    ]
    older = re.search(r'href="\?before=(\d+)#recent-title"', recent)
    assert older is not None and int(older[1]) == ids[RECENT_MATCHES - 1]
    html = page(anonymous.get(f"/bots/{versions[0].bot_id}/?before={older[1]}"))
    recent = html[html.index('id="recent-title"') : html.index('id="versions-title"')]
    assert re.findall(r'<td><a href="/matches/(\d+)/">', recent) == [
        str(pk) for pk in ids[RECENT_MATCHES:]
    ]
    assert "?before=" not in recent
    data = anonymous.get(f"/api/bots/{versions[0].bot_id}/").json()
    assert [m["id"] for m in data["recent_matches"]] == ids[:20]
    data = anonymous.get(data["older_matches"]).json()
    assert [m["id"] for m in data["recent_matches"]] == ids[20:] and data["older_matches"] is None
    # a position that is not one is a 400, as for every other list (docs/api.md)
    assert anonymous.get(f"/api/bots/{versions[0].bot_id}/?before=x").status_code == 400
    # numbers a browser may forge: other scripts' digits, a superscript, more than a bigint
    for forged in ("\u00b2", "\u0663", "9" * 30):
        assert (
            anonymous.get(f"/api/bots/{versions[0].bot_id}/", {"before": forged}).status_code == 400
        )
        html = page(anonymous.get(f"/bots/{versions[0].bot_id}/", {"before": forged}))
        assert "?before=" in html  # the newest matches, as without the parameter
    # more opponents than a page holds: a second page lists the rest
    carol = User.objects.create_user("carol", password="x" * 12)
    extra = [
        make_active(carol, f"c{k}", bot_code()) for k in range(OPPONENTS_PER_PAGE)
    ]  # fmt: skip
    seed_matches([versions[0].bot, *(v.bot for v in extra)], [versions[0], *extra], 50, start=99)
    bot_id = versions[0].bot_id
    expected = list(
        OpponentResult.objects.filter(bot_id=bot_id)
        .order_by("-matches", "pk")
        .values_list("opponent_id", flat=True)
    )
    first = page(anonymous.get(f"/bots/{bot_id}/"))
    after = re.search(r'href="\?opponents_after=(\d+_\d+)#opponents-title" rel="next"', first)
    assert after is not None
    second = page(anonymous.get(f"/bots/{bot_id}/", {"opponents_after": after[1]}))

    def opponents_on(html: str) -> list[int]:
        section = html.split('id="recent-title"')[0].split('id="opponents-title"')[1]
        return [
            int(pk) for pk in re.findall(r'<tr>\s*<th scope="row"><a href="/bots/(\d+)/', section)
        ]

    assert opponents_on(first) + opponents_on(second) == expected  # none twice, none missing
    assert len(opponents_on(second)) == 2
    back = re.search(r'href="\?opponents_before=(\d+_\d+)#opponents-title" rel="prev"', second)
    assert back is not None
    assert opponents_on(page(anonymous.get(f"/bots/{bot_id}/?opponents_before={back[1]}"))) == (
        opponents_on(first)
    )
    data = anonymous.get(f"/api/bots/{bot_id}/").json()["opponents"]
    assert "count" not in data and len(data["results"]) == 50 and data["previous"] is None
    assert data["results"][0]["matches"] >= data["results"][-1]["matches"]
    rest = anonymous.get(data["next"]).json()["opponents"]
    assert [r["opponent"]["id"] for r in data["results"] + rest["results"]] == expected
    assert rest["next"] is None and "opponents_before=" in rest["previous"]
    for forged in ("2", "x_1", "\u00b2_1", "1_2_3"):
        for side in ("opponents_after", "opponents_before"):
            response = anonymous.get(f"/bots/{bot_id}/", {side: forged})
            assert response.status_code == 400
            assert "is not a position in this list" in response.content.decode()
            response = anonymous.get(f"/api/bots/{bot_id}/", {side: forged})
            assert response.status_code == 400
            assert response.json()["error"].startswith("opponents: ")


def test_the_bot_page_reads_a_bounded_part_of_a_long_rating_history(anonymous, alice):
    """A bot with thousands of rated matches: the page loads the rows its chart and table
    draw (a few hundred), and draws the same chart as from the whole history."""
    from bots.pages.views import CHART_TABLE_ROWS, page_history

    version = make_active(alice, "counter", bot_code())
    RatingHistory.objects.bulk_create(
        RatingHistory(bot=version.bot, mu=25 + n * 0.01, sigma=8 - n * 0.001,
                      mu_before=25 + (n - 1) * 0.01, sigma_before=8 - (n - 1) * 0.001, number=n)
        for n in range(1, 3001)
    )  # fmt: skip
    whole = list(RatingHistory.objects.filter(bot=version.bot).order_by("id"))
    history = page_history(version.bot)
    loaded = len(history.rows)
    assert loaded <= CHART_POINTS + CHART_TABLE_ROWS + 1
    assert rating_chart(history) == rating_chart(whole)
    assert len(history.rows) == loaded  # drawing it read nothing more
    # the table's rows carry their times, the chart's others need none
    latest = range(len(whole) - CHART_TABLE_ROWS, len(whole))
    assert [history[n].created for n in latest] == [whole[n].created for n in latest]
    assert history.rows[1].created is None and history.rows[1].mu == whole[0].mu
    html = page(anonymous.get(f"/bots/{version.bot_id}/"))
    assert "the latest 100 of 3000 updates" in html


def test_a_new_versions_wider_uncertainty_shows_in_the_chart_its_caption_and_the_history(
    anonymous, alice
):
    """A new version widens sigma with no rated match, so no history row: the page showed
    the rating 18.24 above a chart and caption ending at 21.06, and after the version's first
    match a history change of "+0.54" across the widening's drop, shown nowhere."""
    version = make_active(alice, "counter", bot_code())
    bot = version.bot
    RatingHistory.objects.bulk_create(
        [
            RatingHistory(bot=bot, number=1, mu=30.0, sigma=5.0, mu_before=25.0,
                          sigma_before=25 / 3),
            RatingHistory(bot=bot, number=2, mu=32.2027, sigma=3.66, mu_before=30.0,
                          sigma_before=5.0),
        ]
    )  # fmt: skip
    Rating.objects.filter(bot=bot).update(mu=32.2027, sigma=3.66, matches=2)
    make_active(alice, "counter", bot_code("# version two"))  # sigma back up to 25/6
    assert Rating.objects.get(bot=bot).sigma == pytest.approx(NEW_VERSION_SIGMA)
    html = " ".join(page(anonymous.get(f"/bots/{bot.pk}/")).split())
    assert "<strong>19.70</strong>" in html
    assert (
        "Over 2 rated matches the rating (mu - 3 sigma) went from 0.00 to 21.22; then a new "
        "version widened its uncertainty: the rating is now 19.70, mu 32.20 with sigma 4.17."
    ) in html
    assert html.count('<line class="widened"') == 1
    assert "</span> new version: uncertainty widened</span>" in html  # the chart's key
    widened = (
        '<tr class="widened"><td></td><td>new version: uncertainty widened</td>'
        "<td>19.70</td><td>\u22121.52</td><td>32.20 ± 4.17</td></tr>"
    )
    assert widened in html
    assert html.index(widened) < html.index("<tr><td>2</td>")  # newest first
    # its first rated match: the change is that match's, the widening's row under it
    RatingHistory.objects.create(
        bot=bot, number=3, mu=32.61, sigma=4.12, mu_before=32.2027, sigma_before=NEW_VERSION_SIGMA
    )
    Rating.objects.filter(bot=bot).update(mu=32.61, sigma=4.12, matches=3)
    html = " ".join(page(anonymous.get(f"/bots/{bot.pk}/")).split())
    assert (
        "Over 3 rated matches the rating (mu - 3 sigma) went from 0.00 to 20.25; a new version "
        "widened its uncertainty after rated match 2; mu is now 32.61 with sigma 4.12."
    ) in html
    third = "<tr><td>3</td>"
    assert html.index(third) < html.index(widened) < html.index("<tr><td>2</td>")
    assert "<td>20.25</td><td>+0.55</td><td>32.61 ± 4.12</td></tr>" in html
    assert html.count('<tr class="widened">') == 1
    # the history stays one row per rated match, numbered as the rating counts them
    assert RatingHistory.objects.filter(bot=bot).count() == 3


def test_the_upload_form_tells_the_rule_of_one_bot_a_game_and_refuses_a_second(owner, alice):
    listing = page(owner.get("/my/bots/"))
    assert "you may have 1 bot competing in each game (retire one to enter another)" in listing
    make_active(alice, "counter", bot_code())
    response = paste(owner, name="second", code=bot_code("# second"))
    assert response.status_code == 200
    assert errors(response) == (
        "The upload was refused You already have a bot competing in RPS Poker: counter. A person "
        "may enter 1 bot in a game, so that no one's bots can play into each other's hands; "
        "upload your code as a new version of counter, or retire it on My bots first."
    )
    assert not Bot.objects.filter(name="second").exists()
    assert paste(owner, name="counter", code=bot_code("# v2")).status_code == 302


def test_an_empty_file_or_a_blank_paste_is_refused_with_one_true_reason(owner):
    empty = SimpleUploadedFile("empty.py", b"", content_type="text/x-python")
    response = owner.post(
        "/my/bots/", {"game": "rps-poker", "name": "e", "language": "python", "file": empty}
    )
    assert response.status_code == 200
    # (it said "Choose a file to upload or paste the code." too, to someone who had)
    assert errors(response) == "The submitted file is empty."
    response = paste(owner, name="blank", code="  \r\n\t\r\n")
    assert errors(response) == (
        "The upload was refused The pasted code is empty (only spaces and line ends)."
    )
    assert not Bot.objects.exists()


def test_the_language_field_names_every_suffix_the_language_takes():
    from bots.pages.forms import language_choices

    labels = dict(language_choices())
    assert labels["cpp"] == "C++ (.cpp, .cc, .cxx)"  # (it said "C++ (.cpp)" alone)
    assert labels["java"] == "Java (.java, .jar)" and labels["python"] == "Python (.py)"


def test_a_bot_whose_only_version_was_rejected_is_not_said_to_await_a_rating(owner, alice):
    """A bot none of whose versions competes gets no rating: "not rated yet" would promise
    one."""
    version = waiting_version(alice, "refused", status=BotVersion.REJECTED, reason="startup: x")
    for url in ("/my/bots/", f"/bots/{version.bot.pk}/"):
        page = owner.get(url).content.decode()
        assert "not rated: no version of it competes" in page and "not rated yet" not in page
    waiting_version(alice, "refused")  # a new version, validating
    for url in ("/my/bots/", f"/bots/{version.bot.pk}/"):
        assert "not rated yet" in owner.get(url).content.decode()


#: a rejected Java version's validation log: javac's lines name the file as stored (the bot's
#: name), a stack trace as its public class (MyBot.java)
JAVA_LOG = {
    "compile": "web-java.java:23: error: ';' expected\n  return 0\n          ^\n1 error",
    "throw": "stderr of the bot:\njava.lang.IllegalStateException: oops\n"
    "\tat MyBot.mainPlay(MyBot.java:32)\n"
    "fault: exception: mainPlay raised java.lang.IllegalStateException: oops "
    "(web-java.java, line 32)",
}


@pytest.mark.parametrize("kind", ["compile", "throw"])
def test_the_validation_log_says_the_file_is_stored_under_the_bots_name(alice, owner, kind):
    # "web-java.java:23: error ..." on My bots, with no word of where that name came from
    # (upload_bot said it: "(your MyBot.java is stored as web-java.java, ...)")
    code = "public class MyBot {\n  public int draftPick(int[] cards) { return 0; }\n}\n"
    bot = Bot.objects.create(owner=alice, game="rps-poker", name="web-java", language="java")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code),
        status=BotVersion.REJECTED, reason="exception: oops", validation_log=JAVA_LOG[kind],
    )  # fmt: skip
    note = "(your file is stored as web-java.java, the name in the lines below"
    traced = (
        " but for its stack traces, which name it MyBot.java, after its public class: the same "
        "file, the same line numbers"
    )
    # said above the log (whose box keeps its lines whole: a line that long was cut off)
    said = f"{note}{traced if kind == 'throw' else ''})"
    mine = owner.get("/my/bots/").content.decode()
    assert f'<p class="muted small-print" data-role="log-note">{escape(said)}</p>' in mine
    assert f'v1">{escape(JAVA_LOG[kind])}</pre>' in mine
    state = owner.get(f"/my/bots/versions/{version.pk}/status.json").json()
    assert (state["log_note"], state["log"]) == (said, JAVA_LOG[kind])
    assert (
        f'<p class="muted small-print">{escape(said)}</p>'
        in owner.get(f"/bots/{bot.pk}/versions/").content.decode()
    )
    # a log that does not name the stored file has no note
    BotVersion.objects.filter(pk=version.pk).update(validation_log="match 1: crashed")
    assert "is stored as" not in owner.get("/my/bots/").content.decode()


def test_the_upload_forms_file_help_lists_every_suffix_the_languages_take(owner):
    # "A .py, .js, .cpp, .java or .jar file": the C++ choice takes .cc and .cxx too
    mine = owner.get("/my/bots/").content.decode()
    assert "A .py, .js, .cpp, .cc, .cxx, .java or .jar file whose suffix matches the language." in (
        mine
    )
