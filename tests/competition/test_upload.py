"""Uploading a version: limits, validation in the sandbox, one active version per bot."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from bots.competition.uploads import (
    ForAnotherGame,
    UploadError,
    checked_upload,
    reactivate,
    retire,
    upload,
    validate,
)
from bots.models import HOUSE, Bot, BotVersion, MatchJob, Tournament
from games.engine.files import safe_filename
from games.registry import games, get_game
from tests.competition.conftest import builtin_code, misbehaving


def test_it_activates_a_version_that_passes_validation(alice):
    version = upload(alice, "rps-poker", "simple", "simple.py", builtin_code("simple").encode())
    assert version.status == BotVersion.VALIDATING
    version = validate(version)
    assert version.status == BotVersion.ACTIVE
    assert "passed" in version.validation_log
    assert version.bot.language == "python"
    assert version.checksum == BotVersion.checksum_of(builtin_code("simple"))


def test_it_rejects_a_crashing_version_with_the_reason_and_the_log(alice):
    code = misbehaving("""
        import sys
        print("about to fail", file=sys.stderr)
        raise RuntimeError("boom in main_play")
    """)
    version = validate(upload(alice, "rps-poker", "crasher", "crasher.py", code.encode()))
    assert version.status == BotVersion.REJECTED
    assert version.reason.startswith("exception:")
    assert "boom in main_play" in version.reason
    assert "about to fail" in version.validation_log
    assert not MatchJob.objects.exists()


def test_it_rejects_a_bot_that_cannot_load(alice):
    version = validate(upload(alice, "rps-poker", "broken", "broken.py", b"def (:\n"))
    assert version.status == BotVersion.REJECTED
    assert "SyntaxError" in version.reason + version.validation_log


def test_a_cpp_bot_is_compiled_in_the_sandbox_validated_and_plays_the_worker_s_matches(
    transactional_db, alice, bob
):
    # (committed rows: a compile that outlasts a third of the lease is renewed by a heartbeat
    # on a connection of its own, which sees no row of an open test transaction)
    from bots.worker import Options, Worker
    from games.registry import get_game

    starter = get_game("rps-poker").starters["cpp"].read_bytes()
    version = validate(upload(alice, "rps-poker", "mine", "mine.cpp", starter))
    assert version.status == BotVersion.ACTIVE, version.reason
    assert version.bot.language == "cpp"
    validate(upload(bob, "rps-poker", "simple", "simple.py", builtin_code("simple").encode()))
    Worker(Options(validate=False, process_cache=4), name="w1").run(batch=True)
    seats = version.seats.all()
    assert seats.count() >= 4  # its placement matches
    assert not seats.exclude(fault_kind="").exists()
    # a compile error rejects the version, with the compiler's first lines
    broken = starter.replace(b"return first ? 0 : 1;", b"return first ? 0 : undefined_name;")
    rejected = validate(upload(alice, "rps-poker", "mine", "mine.cpp", broken))
    assert rejected.status == BotVersion.REJECTED
    assert rejected.reason.startswith("startup: C++ compile error")
    assert "\nmine.cpp:" in rejected.reason and "undefined_name" in rejected.reason
    assert "/bot/" not in rejected.reason  # named as the file was given, not the sandbox's path


def test_a_kit_built_jar_is_uploaded_validated_and_given_back_to_its_owner_as_a_jar(
    alice, client, tmp_path
):
    from django.urls import reverse

    from tests.sandbox.jars import naive_jar

    jar = naive_jar(tmp_path).read_bytes()
    version = validate(upload(alice, "last-card", "kit", "Naive.jar", jar))
    assert version.status == BotVersion.ACTIVE, version.reason
    assert version.bot.language == "java"
    client.force_login(alice)
    got = client.get(reverse("version_download", kwargs={"pk": version.pk}))
    assert got.content == jar
    assert got["Content-Disposition"] == 'attachment; filename="kit-v1.jar"'


def test_it_refuses_oversized_empty_and_unknown_files(alice, settings):
    settings.BOT_MAX_CODE_BYTES = 100
    with pytest.raises(UploadError, match="uploads take at most 100 bytes"):
        upload(alice, "rps-poker", "big", "big.py", b"#" * 101)
    with pytest.raises(UploadError, match="empty"):
        upload(alice, "rps-poker", "empty", "empty.py", b"  \n")
    with pytest.raises(UploadError, match="unsupported"):
        upload(alice, "rps-poker", "rusty", "bot.rs", b"fn main() {}")
    with pytest.raises(UploadError, match="UTF-8"):
        upload(alice, "rps-poker", "latin", "latin.py", b"# \xff\n")
    assert not BotVersion.objects.exists()


def test_it_keeps_the_previous_version_until_the_new_one_is_active(alice):
    first = validate(upload(alice, "rps-poker", "mine", "mine.py", builtin_code("simple").encode()))
    second = upload(alice, "rps-poker", "mine", "mine.py", builtin_code("strong").encode())
    first.refresh_from_db()
    assert (first.status, second.status) == (BotVersion.ACTIVE, BotVersion.VALIDATING)
    assert first.bot.active_version() == first
    second = validate(second)
    first.refresh_from_db()
    assert (first.status, second.status) == (BotVersion.RETIRED, BotVersion.ACTIVE)
    assert second.number == 2
    # A rejected newer version leaves the active one in place.
    third = validate(upload(alice, "rps-poker", "mine", "mine.py", misbehaving("1 / 0").encode()))
    assert third.status == BotVersion.REJECTED
    assert second.bot.active_version() == second


def test_it_refuses_the_same_code_twice_for_one_bot(alice):
    upload(alice, "rps-poker", "twice", "twice.py", builtin_code("simple").encode())
    with pytest.raises(UploadError, match="already version 1"):
        upload(alice, "rps-poker", "twice", "twice.py", builtin_code("simple").encode())


def test_it_never_allows_two_active_versions_of_one_bot(alice, active_bot):
    version = active_bot(alice, "solo", builtin_code("simple"))
    with pytest.raises(IntegrityError), transaction.atomic():
        BotVersion.objects.create(
            bot=version.bot, number=2, code="x", checksum="x", status=BotVersion.ACTIVE
        )


def test_it_schedules_placement_against_every_other_active_bot(alice, bob, carol, active_bot):
    active_bot(bob, "b1", builtin_code("minimal"))
    active_bot(carol, "c1", builtin_code("strong"))
    version = validate(upload(alice, "rps-poker", "new", "new.py", builtin_code("simple").encode()))
    placement = Tournament.objects.get(format=Tournament.PLACEMENT)
    jobs = list(placement.jobs.all())
    # 2 opponents x 2 deals x both seatings
    assert len(jobs) == 8
    assert all(version.pk in job.seats for job in jobs)
    assert all(job.priority > 0 for job in jobs)
    by_seed: dict[int, list[list[int]]] = {}
    for job in jobs:
        by_seed.setdefault(job.seed, []).append(job.seats)
    assert all(len(seats) == 2 and seats[0] == seats[1][::-1] for seats in by_seed.values())


def test_it_uploads_through_the_command(db, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "cmdbot.py"
    path.write_text(builtin_code("simple"))
    call_command("upload_bot", str(path), "--user", "dave", "--create-user")
    assert "active" in capsys.readouterr().out
    bad = tmp_path / "bad.py"
    bad.write_text(misbehaving("raise ValueError('nope')"))
    with pytest.raises(CommandError, match="v2 rejected at validation"):  # (its next version)
        call_command("upload_bot", str(bad), "--user", "dave", "--name", "simple")
    assert "\nfault: exception: main_play raised ValueError: nope" in capsys.readouterr().err
    with pytest.raises(CommandError, match="no user"):
        call_command("upload_bot", str(path), "--user", "nobody")


def test_it_refuses_a_bot_name_with_a_control_or_format_character(alice):
    code = builtin_code("simple").encode()
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "evil\u202egnp", "simple.py", code)
    assert str(refused.value) == (
        "the bot name holds U+202E RIGHT-TO-LEFT OVERRIDE; names are plain text"
    )
    with pytest.raises(UploadError, match=r"U\+200B ZERO WIDTH SPACE"):
        upload(alice, "rps-poker", "a\u200bb", "simple.py", code)
    assert not BotVersion.objects.exists()


def test_the_command_refuses_a_bot_name_or_a_new_username_that_is_not_plain(
    db, tmp_path, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "80")  # (a reason over a line: said above a short error)
    path = tmp_path / "cmdbot.py"
    path.write_text(builtin_code("simple"))
    call_command("upload_bot", str(path), "--user", "dave", "--create-user", "--defer")
    # (a reason longer than a line of 80 columns is said above a short error)
    err = io.StringIO()
    with pytest.raises(CommandError, match="the file was not uploaded"):
        call_command("upload_bot", str(path), "--user", "dave", "--name", "x\u202ey", stderr=err)
    assert "U+202E RIGHT-TO-LEFT OVERRIDE; names are plain" in " ".join(err.getvalue().split())
    err = io.StringIO()
    with pytest.raises(CommandError, match="the user was not created"):
        call_command("upload_bot", str(path), "--user", "eve\u202e", "--create-user", stderr=err)
    assert " ".join(err.getvalue().split()).startswith(
        "cannot create user 'eve\\u202e': The username holds U+202E RIGHT-TO-LEFT OVERRIDE; "
        "names are plain text."
    )
    assert not User.objects.filter(username__startswith="eve").exists()
    assert BotVersion.objects.count() == 1


def test_the_command_names_a_bot_as_the_arena_does(db, tmp_path, capsys):
    path = tmp_path / "rps_mine.py"
    path.write_text(builtin_code("simple").replace('name = "simple"', 'name = "rps-mine"'))
    assert 'name = "rps-mine"' in path.read_text()
    call_command("upload_bot", str(path), "--user", "dave", "--create-user", "--defer")
    assert BotVersion.objects.get().bot.name == "rps-mine"  # once the file's stem, rps_mine
    out = io.StringIO()
    call_command("arena", "--game", "rps-poker", str(path), "builtin:minimal", "--rounds", "1",
                 "--no-progress", "--no-sandbox", stdout=out)  # fmt: skip
    assert "rps-mine" in out.getvalue() and "rps_mine" not in out.getvalue()


# ---- one bot per person in a game -----------------------------------------------------------
GOOFSPIEL_BOT = get_game("goofspiel").builtin_path("random").read_bytes()


def code_of(tag: str) -> bytes:
    return f"{builtin_code('simple')}\n# {tag}\n".encode()


def test_a_person_enters_one_bot_in_a_game_and_may_always_renew_it(alice, bob, active_bot):
    first = active_bot(alice, "first", builtin_code("simple"))
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "second", "second.py", code_of("second"))
    assert str(refused.value) == (
        "You already have a bot competing in RPS Poker: first. A person may enter 1 bot in a "
        "game, so that no one's bots can play into each other's hands; upload your code as a "
        "new version of first, or retire it on My bots first."
    )
    assert not Bot.objects.filter(name="second").exists()  # nothing kept of the refusal
    # its own new versions, a bot in another game, and another person's bot are all welcome
    assert upload(alice, "rps-poker", "first", "first.py", code_of("v2")).bot_id == first.bot_id
    assert upload(alice, "rps-poker", "first", "first.py", code_of("v3")).number == 3
    assert upload(alice, "goofspiel", "other", "other.py", GOOFSPIEL_BOT).bot.game == "goofspiel"
    assert upload(bob, "rps-poker", "second", "second.py", code_of("bob")).bot.owner == bob


def test_a_bot_out_of_the_competition_leaves_room_and_comes_back_only_into_room(alice):
    broken = upload(alice, "rps-poker", "broken", "broken.py", b"class Bot:\n    pass\n")
    with pytest.raises(UploadError, match="entered in RPS Poker: broken, whose v1 is being"):
        upload(alice, "rps-poker", "next", "next.py", code_of("next"))
    assert validate(broken).status == BotVersion.REJECTED  # rejected: it competes no more
    kept = validate(upload(alice, "rps-poker", "kept", "kept.py", code_of("kept")))
    assert kept.status == BotVersion.ACTIVE
    assert retire(kept.bot) is not None  # retired: room again
    later = validate(upload(alice, "rps-poker", "later", "later.py", code_of("later")))
    assert later.status == BotVersion.ACTIVE
    # the retired bot is made active again only where there is room
    with pytest.raises(UploadError, match="competing in RPS Poker: later. A person may enter"):
        reactivate(kept)
    kept.refresh_from_db()
    assert kept.status == BotVersion.RETIRED
    retire(later.bot)
    assert reactivate(kept).status == BotVersion.ACTIVE


def test_a_bot_only_being_validated_is_waited_for_not_retired(alice):
    # web-js v2 waits for its verdict and web-cpp's only version was rejected: the refusal
    # said "web-js ... competing ... retire web-js on My bots first, then upload it under a
    # new name", while web-js had no Retire button and web-cpp needed no new name
    js = get_game("rps-poker").starters["javascript"].read_bytes()
    web_js = upload(alice, "rps-poker", "web-js", "web-js.js", js)
    web_js.status = BotVersion.REJECTED
    web_js.save()
    web_js = upload(alice, "rps-poker", "web-js", "web-js.js", js + b"// v2\n")
    cpp = get_game("rps-poker").starters["cpp"].read_bytes()
    web_cpp = BotVersion.objects.create(
        bot=Bot.objects.create(owner=alice, game="rps-poker", name="web-cpp", language="cpp"),
        number=1, code="int main() {}", checksum="x", status=BotVersion.REJECTED,
    )  # fmt: skip
    waiting = (
        "You already have a bot entered in RPS Poker: web-js, whose v2 is being validated. A "
        "person may enter 1 bot in a game, so that no one's bots can play into each other's "
        "hands; "
    )
    verdict = (
        "wait for the verdict on web-js v2 (My bots shows it, usually within a few minutes), "
        "and retire web-js on My bots if it passes"
    )
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "web-cpp", "web-cpp.cpp", cpp)  # a new version of web-cpp
    assert str(refused.value) == (
        f"{waiting}web-js is a JavaScript bot; to enter a C++ bot, {verdict}, then upload it "
        "again as a new version of web-cpp."
    )
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "fresh", "fresh.cpp", cpp)  # a new bot
    assert str(refused.value).endswith(f"{verdict}, then upload it again as the new bot fresh.")
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "other-js", "other-js.js", js + b"// other\n")
    assert (
        str(refused.value) == f"{waiting}upload your code as a new version of web-js, or {verdict}."
    )
    # active with a version being validated: whatever the verdict, an active one is left
    web_js.status = BotVersion.ACTIVE
    web_js.save()
    v3 = upload(alice, "rps-poker", "web-js", "web-js.js", js + b"// v3\n")
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "web-cpp", "web-cpp.cpp", cpp)
    assert str(refused.value) == (
        "You already have a bot competing in RPS Poker: web-js. A person may enter 1 bot in a "
        "game, so that no one's bots can play into each other's hands; web-js is a JavaScript "
        "bot; to enter a C++ bot, wait for the verdict on web-js v3, which is being validated "
        "(My bots shows it, usually within a few minutes), and retire web-js on My bots after "
        "it, then upload it again as a new version of web-cpp."
    )
    # the verdict is in and web-js retired: the same upload goes in
    BotVersion.objects.filter(pk=v3.pk).update(status=BotVersion.REJECTED)
    assert retire(web_js.bot) is not None
    assert upload(alice, "rps-poker", "web-cpp", "web-cpp.cpp", cpp).bot_id == web_cpp.bot_id


def test_the_limit_is_a_setting_and_the_house_is_not_counted(alice, active_bot, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 2
    active_bot(alice, "b", builtin_code("simple"))
    active_bot(alice, "a", builtin_code("strong"))
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "c", "c.py", code_of("c"))
    assert str(refused.value).startswith(
        "You already have 2 bots competing in RPS Poker: a and b. A person may enter 2 bots in "
        "a game, so that no one's bots can play into each other's hands; upload your code as a "
        "new version of one of them, or retire one on My bots first."
    )
    settings.BOTS_PER_PERSON_PER_GAME = 0  # no limit
    assert upload(alice, "rps-poker", "c", "c.py", code_of("c")).status == BotVersion.VALIDATING
    settings.BOTS_PER_PERSON_PER_GAME = 1
    house = User.objects.create_user(HOUSE)
    active_bot(house, "simple", builtin_code("simple"))
    assert upload(house, "rps-poker", "strong", "strong.py", code_of("house")).bot.owner == house


def test_a_bot_of_the_longest_name_keeps_its_suffix_and_validates(alice):
    name = "Supercalifragilisticexpialidocious_RPS_destroyer_v2_final_XY"
    assert len(name) == 60  # the most a name may have
    version = validate(upload(alice, "rps-poker", name, f"{name}.py", code_of("long")))
    assert version.status == BotVersion.ACTIVE, version.reason  # was: "unsupported bot file
    # type '(none)'": its file's name was cut to 60 characters, the ".py" with it
    assert safe_filename(f"{name}.py") == name[:57] + ".py"
    assert safe_filename("x" * 80) == "x" * 60  # no suffix: cut as before
    assert safe_filename("../.hidden") == "_.hidden" and safe_filename("") == "bot"


def test_the_longest_username_and_bot_name_are_kept_whole_where_names_are_stored(bob, active_bot):
    """A username may have 150 characters (Django's), a bot's name 60: each column that
    keeps a person's name holds the longest, and a placement's name is cut to its column (the
    worker stopped on PostgreSQL, "value too long for type character varying(120)", when a
    person of a 42-character name placed a bot of 60)."""
    from bots.models import MatchSeat, OpponentResult
    from games.models import TableSeat

    longest = User._meta.get_field("username").max_length
    assert longest == 150
    for model, field, more in (
        (MatchSeat, "name", 0),
        (TableSeat, "name", 0),
        (OpponentResult, "name", 0),
        (OpponentResult, "key", len("name:")),
    ):
        assert model._meta.get_field(field).max_length >= longest + more, (model, field)
    active_bot(bob, "opponent", builtin_code("simple"))  # (a placement needs another bot)
    owner = User.objects.create_user("o" * longest)
    name = "n" * 60
    placed = validate(upload(owner, "rps-poker", name, f"{name}.py", code_of("placed")))
    assert placed.status == BotVersion.ACTIVE
    tournament = Tournament.objects.get(format=Tournament.PLACEMENT)
    most = Tournament._meta.get_field("name").max_length
    assert len(tournament.name) == most and tournament.name.endswith("\u2026")
    assert tournament.name.startswith("placement of " + "o" * 50)


RPS_STARTERS = get_game("rps-poker").starters


@pytest.mark.parametrize(
    ("language", "shape", "defines"),
    [
        ("python", "class Bot", "draft_pick, draft_receive, main_play, main_postprocess"),
        ("javascript", "the bot object", "draftPick, draftReceive, mainPlay, mainPostprocess"),
    ],
)
def test_a_bot_for_another_game_is_rejected_before_any_match(alice, language, shape, defines):
    # (a file that names the game's method, here in a comment, is not refused at its upload)
    starter = RPS_STARTERS[language]
    code = starter.read_bytes() + (b"# not act()" if language == "python" else b"// not act()")
    version = validate(upload(alice, "goofspiel", "rps", starter.name, code))
    assert version.status == BotVersion.REJECTED
    assert version.reason == (
        f"startup: {shape} has no method act. A Goofspiel bot needs act(obs); this file "
        f"defines {defines} (RPS Poker's methods): is it for another game?"
    )
    assert "match 1" not in version.validation_log  # told before any match was played
    assert version.validation_log.endswith(f"fault: {version.reason}")


RPS_METHODS = {
    "python": "draft_pick, draft_receive, main_play and main_postprocess",
    "cpp": "draft_pick, draft_receive, main_play and main_postprocess",
    "javascript": "draftPick, draftReceive, mainPlay and mainPostprocess",
    "java": "draftPick, draftReceive, mainPlay and mainPostprocess",
}


@pytest.mark.parametrize("language", sorted(RPS_METHODS))
def test_a_file_for_another_game_is_refused_before_it_is_stored(alice, active_bot, language):
    # the Kuhn starter for RPS Poker, by a person with an RPS Poker bot, was told to upload it
    # as a new version of that bot; it was stored, counted, then rejected at validation
    active_bot(alice, "rps-mine", builtin_code("simple"))
    starter = get_game("kuhn").starters[language]
    for name in ("kuhn-mine", "rps-mine"):
        with pytest.raises(ForAnotherGame) as refused:
            upload(alice, "rps-poker", name, starter.name, starter.read_bytes())
        assert str(refused.value) == (
            "This file looks like a Kuhn poker bot, not an RPS Poker bot: it defines act (Kuhn "
            f"poker's method), its text names Kuhn poker, and it has none of "
            f"{RPS_METHODS[language]}, the methods an RPS Poker bot needs. To enter it in Kuhn "
            "poker, choose Kuhn poker as its game."
        )
    assert BotVersion.objects.count() == 1  # rps-mine's own
    assert upload(alice, "kuhn", "kuhn-mine", starter.name, starter.read_bytes())


def test_a_file_for_one_of_the_games_of_its_methods_names_them_all_unless_its_text_says():
    said = str(
        checked_upload_refusal(
            "rps-poker", "x.py", b"class Bot:\n    def act(self, obs):\n        return 0\n"
        )
    )
    assert said == (
        "This file looks like a bot for another game, not an RPS Poker bot: it defines act (the "
        "method of Ultimate Texas Hold'em, Kuhn poker, Leduc hold'em, Blackjack++ and Goofspiel "
        "bots), and it has none of draft_pick, draft_receive, main_play and main_postprocess, "
        "the methods an RPS Poker bot needs. To enter it, choose the game it is for: Ultimate "
        "Texas Hold'em, Kuhn poker, Leduc hold'em, Blackjack++ or Goofspiel."
    )
    strategy = get_game("last-card").starters["java"]  # the kit's interface, no play()
    assert str(checked_upload_refusal("kuhn", strategy.name, strategy.read_bytes())) == (
        "This file looks like a Last Card bot, not a Kuhn poker bot: it is written with Last "
        "Card's kit, its text names Last Card, and it has no act, the method a Kuhn poker bot "
        "needs. To enter it in Last Card, choose Last Card as its game."
    )
    jar = io.BytesIO()
    with zipfile.ZipFile(jar, "w") as built:
        built.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    assert str(checked_upload_refusal("rps-poker", "bot.jar", jar.getvalue())) == (
        "This file looks like a Last Card bot, not an RPS Poker bot: it is a jar built with "
        "Last Card's kit, and jars are for Last Card only. To enter it in Last Card, choose "
        "Last Card as its game."
    )
    assert checked_upload("last-card", "bot.jar", jar.getvalue())[0] == "java"


def checked_upload_refusal(game: str, filename: str, data: bytes) -> ForAnotherGame:
    with pytest.raises(ForAnotherGame) as refused:
        checked_upload(game, filename, data)
    return refused.value


def own_bots():
    """Every starter in every language, every built-in bot and the original JavaScript RPS
    Poker bots, each with its game."""
    for game in games():
        yield from ((game, path) for path in game.starters.values())
        yield from ((game, game.builtin_path(name)) for name in game.builtin_names)
    root = get_game("rps-poker").starters["python"].parents[2]
    yield from ((get_game("rps-poker"), p) for p in sorted(root.glob("bench/rps_js_bots/*.js")))


def test_no_starter_or_built_in_bot_is_refused_for_its_own_game():
    bots = list(own_bots())
    assert len(bots) > 7 * 4 + 15
    for game, path in bots:
        _, code = checked_upload(game.slug, path.name, path.read_bytes())
        assert code == path.read_text(), (game.slug, path)
    # and each is refused for a game of other methods (RPS Poker, Last Card, the act games),
    # but where its text names that game's method as code would define it: RPS Poker's
    # strong bot has a variable play (play = {}), as a Last Card bot could define play
    for game, path in bots:
        for other in ("rps-poker", "last-card", "kuhn"):
            named = path.name == "strong.py" and other == "last-card"
            if set(get_game(other).methods) != set(game.methods) and not named:
                checked_upload_refusal(other, path.name, path.read_bytes())


ILLEGAL_LAST_CARD = b"""
class Bot:
    def play(self, state):
        return {"cards": ["Zz"], "suit": None, "last_card": False}
"""


def test_illegal_moves_refused_as_passes_are_counted_in_the_validation_log(alice):
    version = validate(upload(alice, "last-card", "wild", "wild.py", ILLEGAL_LAST_CARD))
    assert version.status == BotVersion.ACTIVE  # by the game's rules, not a fault
    lines = [line for line in version.validation_log.splitlines() if line.startswith("match ")]
    assert len(lines) == 2
    for line in lines:
        counted = re.search(
            r"; (\d+) illegal moves \(an illegal move is refused and counts as a pass\); the "
            r"first: 'Zz' is not a card in your hand$",
            line,
        )
        assert counted and int(counted[1]) > 1, line


def test_refusals_about_languages_and_known_code_say_what_to_do(alice, active_bot):
    js = get_game("rps-poker").starters["javascript"].read_bytes()
    rps_js = validate(upload(alice, "rps-poker", "rps-js", "rps-js.js", js))
    assert rps_js.status == BotVersion.ACTIVE
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "rps-py", "rps-py.py", code_of("py"))
    # (it offered "upload your code as a new version of rps-js", which its language refuses)
    assert str(refused.value).endswith(
        "can play into each other's hands; rps-js is a JavaScript bot; to enter a Python bot, "
        "retire rps-js on My bots first, then upload it again as the new bot rps-py."
    )
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "rps-js", "rps-js.py", code_of("py"))
    # (it said "alice/rps-js is a javascript bot, not python")
    assert str(refused.value) == (
        "rps-js is a JavaScript bot and keeps its language: upload Python code as a new bot "
        "(retire rps-js first)."
    )
    retire(rps_js.bot)
    py = validate(upload(alice, "rps-poker", "rps-py", "rps-py.py", code_of("py")))
    assert py.status == BotVersion.ACTIVE
    retire(py.bot)
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "rps-py", "rps-py.py", code_of("py"))
    # (it said "this code is already version 1 of alice/rps-py")
    assert str(refused.value) == (
        "This code is already version 1 of rps-py (retired): make it active again on My bots "
        "(Make v1 active)."
    )


def test_a_file_too_big_is_told_its_size_and_the_limit_in_kib(alice, settings):
    settings.BOT_MAX_CODE_BYTES = 256 * 1024
    with pytest.raises(UploadError) as refused:
        upload(alice, "rps-poker", "big", "big.py", b"#" * 334150)
    # (it said "the file has 334150 bytes; the limit is 262144")
    assert str(refused.value) == "Your file is 326 KiB; uploads take at most 256 KiB."
    with pytest.raises(UploadError) as refused:  # just over: its bytes, not "256 KiB"
        upload(alice, "rps-poker", "big", "big.py", b"#" * (256 * 1024 + 1))
    assert str(refused.value) == (
        "Your file is 262145 bytes; uploads take at most 262144 bytes (256 KiB)."
    )


def test_a_bot_that_never_started_is_not_said_to_have_played_its_validation(alice):
    """A bot that fails at its start (here at import; a compile error likewise) forfeits its
    validation matches: the log says they were not played, not a score as if they were."""
    code = b"raise ImportError('my own import failed')\n"
    version = validate(upload(alice, "rps-poker", "unstarted", "unstarted.py", code))
    assert version.status == BotVersion.REJECTED
    assert version.reason.startswith("startup: ")
    log = version.validation_log
    assert "match 1: your bot in seat 1 did not start, so the match was not played" in log, log
    assert "scores" not in log, log


def test_making_versions_active_in_turn_queues_one_placement_and_is_limited(
    alice, bob, active_bot, settings
):
    """An auditor made two versions active in turn 20 times in 1.6 s: 22 placements, 264
    jobs ahead of every regular round, the replaced version's all played. The version a new
    one replaces has its queued matches withdrawn, and a bot has its versions made active
    again at most BOT_REACTIVATIONS_PER_HOUR times an hour."""
    settings.BOT_REACTIVATIONS_PER_HOUR = 2
    active_bot(bob, "other", builtin_code("minimal"))
    first = validate(upload(alice, "rps-poker", "turns", "turns.py", code_of("one")))
    second = validate(upload(alice, "rps-poker", "turns", "turns.py", code_of("two")))
    assert second.status == BotVersion.ACTIVE

    def queued(version: BotVersion) -> int:
        return sum(
            version.pk in job.seats for job in MatchJob.objects.filter(status=MatchJob.QUEUED)
        )

    assert queued(first) == 0 and queued(second) == 4  # (1 opponent, 2 deals, both seatings)
    failed = MatchJob.objects.filter(status=MatchJob.FAILED)
    assert {job.error for job in failed if first.pk in job.seats} == {
        "withdrawn: version 2 of the bot took its place"
    }
    assert reactivate(first).status == BotVersion.ACTIVE
    assert queued(second) == 0 and queued(first) == 4
    assert reactivate(second).status == BotVersion.ACTIVE
    with pytest.raises(UploadError) as refused:
        reactivate(first)
    assert re.fullmatch(
        r"turns has had 2 versions made active again in the last hour, the most allowed \(2 an "
        r"hour: each queues placement matches ahead of everyone's rounds\); you can make one "
        r"active again in (60|59) minutes\.",
        str(refused.value),
    )
    first.refresh_from_db()
    assert first.status == BotVersion.RETIRED and queued(second) == 4


def test_a_validation_is_bounded_by_the_worker_time_a_bot_has_in_a_tournament(alice, settings):
    """A bot within the per-call time on each of its 1,450 calls held the only worker 21
    minutes in one validation match (an auditor's UTH bot): its matches now have the worker
    time a bot has in a tournament, together, and one past it is rejected."""
    settings.WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = 1.5
    slow = misbehaving("import time\ntime.sleep(0.25)")  # 10 calls a match: 2.5 s
    version = validate(upload(alice, "rps-poker", "patient", "patient.py", slow.encode()))
    assert version.status == BotVersion.REJECTED
    assert version.reason == (
        "time: the validation matches took over 1.5 s of the bot's own time, the worker time "
        "a bot may use in a tournament (match 1 was cut off there): a bot this slow would "
        "forfeit its tournament matches"
    )
    settings.WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = 60
    fast = misbehaving("import time\ntime.sleep(0.01)")
    assert validate(upload(alice, "rps-poker", "patient", "p.py", fast.encode())).status == (
        BotVersion.ACTIVE
    )
