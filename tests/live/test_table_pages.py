"""The pages of live tables: each game's lobby and its create form, one-click play against a
bot, joining (guests too), "play again", the table page before and after its match, CSRF."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import Bot, BotVersion, LeaderboardRow, Match, MatchSeat
from bots.running.playing import Entry, play
from games.engine.table import signed
from games.live import tables, views
from games.live.consumers import lobby_group
from games.live.host import Finish
from games.models import Table, TableSeat
from games.registry import games, get_game

pytestmark = pytest.mark.django_db


def make_user(name: str) -> User:
    return User.objects.create_user(name, password=f"pw-{name}-long-enough")


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def version(
    owner: User, game: str, name: str, status: str = BotVersion.ACTIVE, *, copy: bool = False
) -> BotVersion:
    """An uploaded version: a built-in bot's code, changed by a comment unless ``copy``."""
    code = get_game(game).builtin_path(get_game(game).builtin_names[0]).read_text()
    code += "" if copy else f"\n# {name}\n"
    bot = Bot.objects.create(owner=owner, game=game, name=name, language="python")
    return BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code), status=status
    )


def form_data(game: str, seats: list[str], **extra) -> dict[str, str]:
    data = {"players": str(len(seats)), "turn_timer": "30"}
    data |= {f"seat_{n}": choice for n, choice in enumerate(seats)}
    return data | {k: str(v) for k, v in extra.items()}


def text_of(response) -> str:
    return response.content.decode()


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# ---- the lobby -----------------------------------------------------------------------------
def test_it_lists_open_tables_and_games_being_played_in_the_lobby():
    ann, bob = make_user("ann"), make_user("bob")
    waiting = tables.create_table("rps-poker", tables.Person(ann), ["me", "open"])
    full = tables.create_table("rps-poker", tables.Person(bob), ["me", "builtin:simple"])
    playing = tables.create_table("rps-poker", tables.Person(bob), ["me", "builtin:strong"])
    now = timezone.now()
    Table.objects.filter(pk=playing.pk).update(state=Table.PLAYING, started=now, host_heartbeat=now)
    # a table whose host process died long ago is not offered to watch
    dead = tables.create_table("rps-poker", tables.Person(bob), ["me", "builtin:minimal"])
    Table.objects.filter(pk=dead.pk).update(
        state=Table.PLAYING,
        started=now - timedelta(hours=2),
        host_heartbeat=now - timedelta(hours=2),
    )
    other_game = tables.create_table("last-card", tables.Person(ann), ["me", "open"])

    response = Client().get("/games/rps-poker/tables/")
    assert response.status_code == 200
    page = text_of(response)
    waiting_part = page.split('id="waiting-title"')[1].split('id="playing-title"')[0]
    assert f"/tables/{waiting.token}/join/1/" in waiting_part
    assert "Join table" in waiting_part
    assert full.token not in page  # no seat to take: not listed as waiting
    assert other_game.token not in page
    playing_part = page.split('id="playing-title"')[1].split('id="create-title"')[0]
    assert f'href="/tables/{playing.token}/"' in playing_part
    assert "Watch" in playing_part
    assert dead.token not in page


def test_the_create_form_offers_me_open_seats_builtins_and_active_uploaded_bots():
    alice = make_user("alice")
    version(alice, "rps-poker", "sharp")
    version(alice, "rps-poker", "broken", status=BotVersion.REJECTED)
    version(alice, "last-card", "shedder")
    page = text_of(Client().get("/games/rps-poker/tables/"))
    for value in ("me", "open", "builtin:minimal", "builtin:simple", "builtin:strong"):
        assert f'value="{value}"' in page
    # a built-in bot is named as the leaderboards and the playground name it
    assert '<option value="builtin:strong">house/strong</option>' in page
    assert ">builtin:strong<" not in page
    # an uploaded bot: one choice in each seat's menu, named in the field beside it, which
    # suggests the game's active ones
    assert '<option value="bot">Uploaded bot (not rated)</option>' in page
    assert '<option value="alice/sharp"></option>' in page
    assert "alice/broken" not in page and "alice/shedder" not in page
    assert '<input type="text" name="seat_1_bot"' in page
    # the site's own copy of a built-in bot (entered to be ranked) is offered once, as built-in
    version(make_user("house"), "rps-poker", "minimal", copy=True)
    page = text_of(Client().get("/games/rps-poker/tables/"))
    assert '<option value="house/minimal">' not in page
    assert '<option value="alice/sharp"></option>' in page
    # timers, and for Last Card the number of players; UTH has rounds and pay tables
    assert page.count('name="turn_timer"') == 1
    for seconds in tables.TURN_TIMERS:
        assert f'value="{seconds:g}"' in page or f'value="{seconds}"' in page
    last_card = text_of(Client().get("/games/last-card/tables/"))
    assert re.search(r'<select name="players"[^>]*>', last_card)
    assert all(f'<option value="{n}"' in last_card for n in (2, 3, 4))
    uth = text_of(Client().get("/games/uth/tables/"))
    assert 'name="max_rounds"' in uth and 'name="variant"' in uth
    assert Client().get("/games/chess/tables/").status_code == 404


def test_the_lobby_suggests_the_best_ranked_bots_once_and_takes_any_other_by_its_name():
    """With hundreds of uploaded bots, each seat's menu listed every one and the page read
    every one's code: the menus now offer one choice for them, a single list suggests the
    best ranked as a person types, and any other active bot is taken by its name."""
    owner = make_user("dev")
    count = views.SUGGESTED_BOTS + 5
    bots = Bot.objects.bulk_create(
        Bot(owner=owner, game="rps-poker", name=f"b{n:03}", language="python") for n in range(count)
    )
    BotVersion.objects.bulk_create(
        BotVersion(bot=b, number=1, code=f"# {b.name}\n" + "x = 1\n" * 1000,
                   checksum=BotVersion.checksum_of(b.name), status=BotVersion.ACTIVE)
        for b in bots
    )  # fmt: skip
    # ranked from the last made to the first: b054 is the best, b000 the worst
    LeaderboardRow.objects.bulk_create(
        LeaderboardRow(bot=b, game="rps-poker", rank=count - n, mu=25, sigma=1, conservative=22)
        for n, b in enumerate(bots)
    )
    with CaptureQueriesContext(connection) as queries:
        page = text_of(Client().get("/games/rps-poker/tables/"))
    assert not [q["sql"] for q in queries if '"bots_botversion"."code"' in q["sql"]]
    [suggested] = re.findall(r'<datalist id="uploaded-bots">(.*?)</datalist>', page, re.S)
    names = re.findall(r'<option value="([^"]*)">', suggested)
    assert names == [f"dev/b{n:03}" for n in range(count - 1, 4, -1)]  # the best 50, in order
    assert "dev/b004" not in page
    for seat in (0, 1):
        [menu] = re.findall(rf'<select name="seat_{seat}".*?</select>', page, re.S)
        assert re.findall(r'<option value="([^"]*)"', menu) == [
            "me", "open", "builtin:minimal", "builtin:simple", "builtin:strong", "bot"
        ]  # fmt: skip
        assert f'name="seat_{seat}_bot" list="uploaded-bots"' in page
    # a bot left out of the suggestions, typed by its name
    client = Client()
    posted = form_data("rps-poker", ["me", "bot"], seat_1_bot=" dev/b000 ")
    assert client.post("/games/rps-poker/tables/", posted).status_code == 302
    seat = Table.objects.get().seats.get(seat=1)
    assert (seat.kind, seat.version) == (TableSeat.BOT, BotVersion.objects.get(bot=bots[0]))
    Table.objects.all().delete()
    # a built-in bot by its leaderboard name is that built-in bot
    posted = form_data("rps-poker", ["me", "bot"], seat_1_bot="house/strong")
    assert Client().post("/games/rps-poker/tables/", posted).status_code == 302
    assert Table.objects.get().seats.get(seat=1).builtin == "strong"
    Table.objects.all().delete()
    # a name of no active bot is refused beside its field, and nothing is made
    for typed, said in [
        ("dev/nobody", "No active RPS Poker bot is named \u201cdev/nobody\u201d. Type its name as "
                       "the leaderboard shows it: owner/name."),
        ("", "Type the name of the uploaded bot, as the leaderboard shows it: owner/name."),
    ]:  # fmt: skip
        response = Client().post(
            "/games/rps-poker/tables/", form_data("rps-poker", ["me", "bot"], seat_1_bot=typed)
        )
        assert response.status_code == 400
        page = html.unescape(text_of(response))
        assert f'<ul class="field-errors" id="id_seat_1_bot_error"><li>{said}</li></ul>' in page
        assert f'value="{typed}"' in page or not typed  # what was typed stays in its field
    assert not Table.objects.exists()


def test_it_creates_a_table_with_each_kind_of_seat():
    ann, alice = make_user("ann"), make_user("alice")
    bot = version(alice, "last-card", "shedder")
    client = logged_in(ann)
    response = client.post(
        "/games/last-card/tables/",
        form_data("last-card", ["open", "me", "builtin:heuristic", f"bot:{bot.pk}"], turn_timer=60),
    )
    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.token}/"
    assert table.turn_timer == 60 and table.game == "last-card"
    seats = [(s.kind, s.user_id, s.builtin, s.version_id) for s in table.seats.order_by("seat")]
    assert seats == [
        (TableSeat.OPEN, None, "", None),
        (TableSeat.PERSON, ann.pk, "", None),
        (TableSeat.BUILTIN, None, "heuristic", None),
        (TableSeat.BOT, None, "", bot.pk),
    ]


def test_a_one_seat_game_offers_no_open_seat_nor_bot_for_its_seat():
    """Ultimate Texas Hold'em is played alone: its one seat is the person's, so the form
    offers neither an open seat nor a bot for it (either would be refused), and says why."""
    page = text_of(Client().get("/games/uth/tables/"))
    assert 'value="open"' not in page and "Open: another person joins" not in page
    assert 'value="builtin:' not in page and '<select name="seat_0"' not in page
    assert '<input type="hidden" name="seat_0" value="me">' in page
    assert "has one seat, and it is yours" in page
    # the form as drawn creates the table
    data = form_data("uth", ["me"], max_rounds=5, variant="default")
    response = Client().post("/games/uth/tables/", data)
    assert response.status_code == 302


def test_a_guest_creates_an_uth_table_with_rounds_and_a_pay_table():
    guest = Client()
    response = guest.post(
        "/games/uth/tables/", form_data("uth", ["me"], max_rounds=5, variant="standard")
    )
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.config == {"max_rounds": 5, "variant": "standard"}
    seat = table.seats.get()
    assert seat.kind == TableSeat.PERSON and seat.user is None
    assert seat.guest == guest.session["guest_token"]


def lobby_menu(slug: str, name: str) -> tuple[str, list[str]]:
    """The text of a game's lobby, and the options of its menu ``name``."""
    page = text_of(Client().get(f"/games/{slug}/tables/"))
    [menu] = re.findall(rf'<select name="{name}".*?</select>', page, re.S)
    return page, re.findall(r"<option [^>]*>([^<]*)</option>", menu)


def test_the_uth_pay_tables_fit_a_phones_menu_and_the_help_says_them_in_full():
    """At 390 px the menu shows about 30 characters of the option chosen: "default: a flush
    pays 3 to 1 on the…" was cut off; the whole sentence is the field's help."""
    page, options = lobby_menu("uth", "variant")
    assert options == ["default: a flush pays 3 to 1", "standard: a flush pays 3 to 2"]
    assert (
        "What the blind pays on a winning flush: 3 to 1 in the default pay table (as in "
        "TextArena's game), 3 to 2 in the standard casino one." in page
    )


def test_what_a_goofspiel_deal_pays_fits_a_phones_menu_and_the_help_says_it_in_full():
    """The menu's "+1 to its winner, -1 to the other (0 each for a tie)" was cut off at
    390 px."""
    page, options = lobby_menu("goofspiel", "returns_type")
    assert options == ["+1 win, \u22121 loss, 0 tie", "half the difference in points"]
    assert (
        "What a deal adds to the match's score: +1 to the player who took more prize "
        "points and \u22121 to the other (0 each for a tie), or half the difference of their "
        "prize points (7 to 2: +2.5 and \u22122.5)." in page
    )


@pytest.mark.parametrize("game", [spec.slug for spec in games() if spec.table is not None])
def test_every_lobby_menu_of_a_tables_settings_is_read_whole_on_a_phone(game):
    """At 390 px a menu shows about 30 characters of the option chosen (measured in Chromium:
    "at most 1 card drawn in a deal", 30 of them, fits with 24 px to spare); a longer
    option's words go in the field's help."""
    for option in get_game(game).table().options:
        for _, words in option.choices:
            assert len(words) <= 30, (option.name, words)


@pytest.mark.parametrize(
    ("game", "seats", "extra", "message"),
    [
        (
            "last-card",
            ["me", "open", "open", "open", "open"],
            {},
            "played by 2 to 4 players, not 5",
        ),
        ("rps-poker", ["me", "bot:987654"], {}, "no active RPS Poker bot &#x27;bot:987654&#x27;"),
        ("rps-poker", ["me", "builtin:nobody"], {}, "has no built-in bot"),
        ("rps-poker", ["me", "me"], {}, "choose exactly one seat for yourself"),
        ("rps-poker", ["me", "open"], {"turn_timer": 7}, "the turn timer must be one of"),
        ("rps-poker", ["me", "open"], {"turn_timer": "soon"}, "Enter a number"),
        (
            "uth",
            ["me"],
            {"max_rounds": 7, "variant": "default"},
            "rounds: choose one of 5, 10, 20, 50",
        ),
        (
            "uth",
            ["me"],
            {"max_rounds": 5, "variant": "vegas"},
            "pay table: choose one of default, standard",
        ),
    ],
)
def test_bad_tables_are_refused_with_the_reason(game, seats, extra, message):
    response = Client().post(f"/games/{game}/tables/", form_data(game, seats, **extra))
    assert response.status_code == 400
    assert message in text_of(response)
    assert not Table.objects.exists()


def test_a_rejected_bot_version_cannot_be_seated():
    alice = make_user("alice")
    rejected = version(alice, "rps-poker", "broken", status=BotVersion.REJECTED)
    response = Client().post(
        "/games/rps-poker/tables/", form_data("rps-poker", ["me", f"bot:{rejected.pk}"])
    )
    assert response.status_code == 400
    assert f"no active RPS Poker bot &#x27;bot:{rejected.pk}&#x27;" in text_of(response)
    assert not Table.objects.exists()


# ---- one click -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "opponents"),
    [
        ("rps-poker", ["house/strong"]),
        ("last-card", ["house/heuristic"] * 3),
        ("uth", []),
    ],
)
def test_play_against_a_bot_creates_you_against_the_strongest_builtin(game, opponents):
    guest = Client()
    page = text_of(guest.get(f"/games/{game}/tables/"))
    assert f'action="/games/{game}/tables/quick/"' in page
    response = guest.post(f"/games/{game}/tables/quick/")
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.token}/"
    seats = list(table.seats.order_by("seat"))
    assert seats[0].kind == TableSeat.PERSON
    assert seats[0].guest == guest.session["guest_token"]
    assert [s.name for s in seats[1:]] == opponents
    # the guest's page knows the seat is theirs
    page = text_of(guest.get(f"/tables/{table.token}/"))
    assert "you sit in seat 1" in page
    assert Client().get(f"/games/{game}/tables/quick/").status_code == 405


# ---- joining -------------------------------------------------------------------------------
def test_a_guest_and_a_user_join_open_seats_and_the_table_hears_of_it():
    ann, bob = make_user("ann"), make_user("bob")
    table = tables.create_table("last-card", tables.Person(ann), ["me", "open", "open"])
    layer = get_channel_layer()
    listener = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(lobby_group(table.pk), listener)

    page = text_of(Client().get(f"/tables/{table.token}/"))
    assert "Waiting for players" in page
    assert f'action="/tables/{table.token}/join/1/"' in page
    assert 'id="invite-link"' in page and f"/tables/{table.token}/" in page

    guest = Client()
    response = guest.post(f"/tables/{table.token}/join/1/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.token}/"
    # a guest made ann's rated table unrated: every page at it is told why, in its log
    note = async_to_sync(layer.receive)(listener)
    assert note["type"] == "table.message"
    assert json.loads(note["text"]) == {
        "type": "note",
        "key": "guest-unrated",
        "text": "Unrated: a guest sat down, and a table with a guest at it is not rated.",
    }
    assert async_to_sync(layer.receive)(listener) == {"type": "table.lobby"}
    seat = table.seats.get(seat=1)
    assert seat.kind == TableSeat.PERSON and seat.guest == guest.session["guest_token"]
    assert seat.name.startswith("guest-")

    response = logged_in(bob).post(f"/tables/{table.token}/join/2/", follow=True)
    assert "You sit in seat 3." in messages_of(response)
    assert async_to_sync(layer.receive)(listener) == {"type": "table.lobby"}
    assert table.seats.get(seat=2).user == bob
    assert tables.is_full(table)


def test_joining_a_taken_seat_or_a_second_seat_is_refused():
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    table = tables.create_table("last-card", tables.Person(ann), ["me", "open", "open"])
    logged_in(bob).post(f"/tables/{table.token}/join/1/")
    response = logged_in(cy).post(f"/tables/{table.token}/join/1/", follow=True)
    assert "You could not sit down: seat 2 is not open." in messages_of(response)
    response = logged_in(bob).post(f"/tables/{table.token}/join/2/", follow=True)
    assert "You could not sit down: you already have a seat at this table." in messages_of(response)
    assert table.seats.get(seat=2).kind == TableSeat.OPEN
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING)
    response = logged_in(cy).post(f"/tables/{table.token}/join/2/", follow=True)
    assert any("no longer waiting" in m for m in messages_of(response))
    assert Client().post("/tables/nosuchtable/join/0/").status_code == 404


# ---- the end of a table --------------------------------------------------------------------
@pytest.fixture
def finished():
    """Ann (seat 0) and bob (seat 1) played RPS Poker; the match is stored like a live
    table's (here their moves came from built-in bots)."""
    ann, bob = make_user("ann"), make_user("bob")
    table = tables.create_table("rps-poker", tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(bob))
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING)
    played = play(
        get_game("rps-poker"),
        [Entry(name="ann", builtin="simple"), Entry(name="bob", builtin="strong")],
        seed=table.seed,
    )
    tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    return table, ann, bob


def test_a_finished_table_is_stored_with_who_sat_where_from_the_facts_kept_at_its_start(
    django_assert_max_num_queries,
):
    ann, alice = make_user("ann"), make_user("alice")
    bot = version(alice, "rps-poker", "drafter")
    # unrated: what rating adds is counted in tests/people
    table = tables.create_table(
        "rps-poker", tables.Person(ann), ["me", f"bot:{bot.pk}"], rated=False
    )
    loaded = tables.load(pk=table.pk)
    plans, facts = tables.claim_and_plan(loaded, "host-channel")
    assert [plan.kind for plan in plans] == ["human", "bot"]
    played = play(
        get_game("rps-poker"),
        [Entry(name="ann", builtin="simple"), Entry(name="x", builtin="strong")],
        seed=table.seed,
    )
    # the match, its seats, the bot's results against the person, the table (and a savepoint
    # around them): nothing is read again
    with django_assert_max_num_queries(6):
        link = tables.store_finish(facts, Finish(played))
    table.refresh_from_db()
    assert table.state == Table.FINISHED and link["match"] == table.match_id
    seats = [(s.seat, s.user_id, s.bot_id, s.version_id, s.name)
             for s in table.match.participants.order_by("seat")]  # fmt: skip
    assert seats == [
        (0, ann.pk, None, None, ann.username),
        (1, None, bot.bot_id, bot.pk, bot.bot.label),
    ]


def test_the_page_of_a_finished_table_sums_it_up_and_links_the_replay(finished):
    table, ann, _ = finished
    assert table.state == Table.FINISHED and table.match is not None
    scores = table.match.record["result"]["scores"]
    response = logged_in(ann).get(f"/tables/{table.token}/")
    page = text_of(response)
    assert f'href="/matches/{table.match_id}/"' in page
    assert "Watch the replay" in page
    assert "Match over" in page
    high, low = sorted(scores, reverse=True)  # the winner's score first
    assert f"{high:g} to {low:g}" in page
    assert f'action="/tables/{table.token}/again/"' in page
    # the three ways on sit together in one block: the "Play again" form in a <p> would close
    # it, leaving the replay's link on a line of its own
    [ways_on] = re.findall(r'<div class="end-links">(.*?)</div>', page, re.S)
    for way in ("Watch the replay", 'id="again-form"', "Back to the RPS Poker tables"):
        assert way in ways_on
    assert '<p class="end-links">' not in page
    # a spectator sees the result, but may not ask for a rematch
    watcher = text_of(Client().get(f"/tables/{table.token}/"))
    assert f'href="/matches/{table.match_id}/"' in watcher
    assert f'action="/tables/{table.token}/again/"' not in watcher
    assert Client().get(f"/matches/{table.match_id}/").status_code == 200


def test_a_finished_chip_table_lists_each_score_signed_as_its_end_line_says_it():
    ann, bob = make_user("ann"), make_user("bob")
    table = tables.create_table("kuhn", tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(bob))
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING)
    spec = get_game("kuhn")
    entries = [Entry(name="ann", builtin=name) for name in spec.builtin_names[:2]]
    # a deal that ends in a gain and a loss (a draw has no sign to write): the table's own
    # seed is drawn at random, and some of its deals end level
    for seed in range(1, 100):
        played = play(spec, entries, seed=seed)
        if played.outcome.result["scores"][0]:
            break
    Table.objects.filter(pk=table.pk).update(seed=seed)
    table.refresh_from_db()
    tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    scores = table.match.record["result"]["scores"]
    assert scores[0] == -scores[1] != 0, scores  # a gain and a loss to write
    page = text_of(logged_in(ann).get(f"/tables/{table.token}/"))
    [summary] = re.findall(r'<p id="end-summary"[^>]*>(.*?)</p>', page, re.S)
    [end_scores] = re.findall(r'<table class="board end-scores".*?</table>', page, re.S)
    listed = re.findall(r'<td class="num">([^<]*)</td>', end_scores)
    assert listed == [signed(score) for score in scores]
    for text in listed:  # "+7" beside "ann +7", never "7"
        assert f" {text}" in summary, (text, summary)
    assert '"signedScores": true' in page  # the script writes them so too


def test_a_table_everyone_left_before_its_match_says_it_closed_not_that_a_match_is_over():
    ann = make_user("ann")
    table = tables.create_table("rps-poker", tables.Person(ann), ["me", "open"])
    assert tables.leave_table(table, tables.Person(ann))
    table.refresh_from_db()
    page = text_of(Client().get(f"/tables/{table.token}/"))
    assert '<h2 id="end-title">Table closed</h2>' in page
    assert f"The table stopped: {tables.EVERYONE_LEFT}" in page
    # a page that watched it wait is told the same way (static/js/table.js finish())
    assert tables.end_of(table, None) == [
        {"type": "over", "error": tables.EVERYONE_LEFT, "rated": False, "started": False}
    ]
    # a match that began and then stopped without a result is a match that is over
    Table.objects.filter(pk=table.pk).update(started=timezone.now())
    table.refresh_from_db()
    assert '<h2 id="end-title">Match over</h2>' in text_of(Client().get(f"/tables/{table.token}/"))
    assert tables.end_of(table, None)[0]["started"] is True


def test_play_again_keeps_the_requesters_seat_and_opens_the_others(finished):
    table, ann, bob = finished
    response = logged_in(bob).post(f"/tables/{table.token}/again/")
    rematch = Table.objects.exclude(pk=table.pk).get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{rematch.token}/"
    assert rematch.previous == table and rematch.state == Table.OPEN
    assert rematch.turn_timer == table.turn_timer
    seats = [(s.kind, s.user_id) for s in rematch.seats.order_by("seat")]
    assert seats == [(TableSeat.OPEN, None), (TableSeat.PERSON, bob.pk)]
    # ann follows the invite and takes her old seat back
    logged_in(ann).post(f"/tables/{rematch.token}/join/0/")
    assert rematch.seats.get(seat=0).user == ann


def test_play_again_by_both_people_makes_one_rematch_and_the_other_is_told(finished):
    """Bob asks for a rematch: ann's page (its socket) and ann's page drawn again say so,
    with the link; ann's own "Play again" seats her at it, not at a table of her own."""
    table, ann, bob = finished
    layer = get_channel_layer()
    listener = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(lobby_group(table.pk), listener)
    logged_in(bob).post(f"/tables/{table.token}/again/")
    rematch = Table.objects.exclude(pk=table.pk).get()
    told = async_to_sync(layer.receive)(listener)
    assert told["type"] == "table.message"
    assert json.loads(told["text"]) == {
        "type": "rematch", "text": "bob opened a rematch:", "url": f"/tables/{rematch.token}/",
        "seat": 1,
    }  # fmt: skip
    page = text_of(logged_in(ann).get(f"/tables/{table.token}/"))
    assert f'bob opened a rematch: <a href="/tables/{rematch.token}/">Join it</a>' in page
    # to bob, who opened it, and to a spectator, the page says nothing of it
    for client in (logged_in(bob), Client()):
        assert "opened a rematch" not in text_of(client.get(f"/tables/{table.token}/"))

    response = logged_in(ann).post(f"/tables/{table.token}/again/")
    assert response["Location"] == f"/tables/{rematch.token}/"
    assert Table.objects.exclude(pk=table.pk).count() == 1  # one rematch, not two
    seats = [(s.kind, s.user_id) for s in rematch.seats.order_by("seat")]
    assert seats == [(TableSeat.PERSON, ann.pk), (TableSeat.PERSON, bob.pk)]
    # asked again: the same table, no third
    logged_in(ann).post(f"/tables/{table.token}/again/")
    assert Table.objects.exclude(pk=table.pk).count() == 1
    assert "opened a rematch" not in text_of(logged_in(ann).get(f"/tables/{table.token}/"))


def test_a_rated_table_s_end_links_a_signed_in_player_to_their_rating(finished):
    table, ann, _ = finished
    assert table.rated
    rated = 'Rated: see your rating on <a href="/people/ann/" id="end-profile">your profile</a>.'
    page = text_of(logged_in(ann).get(f"/tables/{table.token}/"))
    assert re.search(r'<p id="end-rated" class="end-rated">', page)
    assert rated in page
    assert '"profile": "/people/ann/"' in page  # the live page shows it at the end too
    # a spectator is told nothing of it, nor a player at an unrated table
    watcher = text_of(Client().get(f"/tables/{table.token}/"))
    assert '<p id="end-rated" class="end-rated" hidden>' in watcher
    Table.objects.filter(pk=table.pk).update(rated=False)
    page = text_of(logged_in(ann).get(f"/tables/{table.token}/"))
    assert '<p id="end-rated" class="end-rated" hidden>' in page


def test_play_again_keeps_the_bots_and_refuses_spectators_and_running_tables():
    ann = make_user("ann")
    table = tables.create_table("last-card", tables.Person(ann), ["builtin:naive", "me", "open"])
    response = logged_in(ann).post(f"/tables/{table.token}/again/", follow=True)
    assert "No rematch: this match is still being played." in messages_of(response)
    Table.objects.filter(pk=table.pk).update(state=Table.ABANDONED)
    response = Client().post(f"/tables/{table.token}/again/", follow=True)
    assert "No rematch: only a player of this table can ask for a rematch." in messages_of(response)
    assert Table.objects.count() == 1
    logged_in(ann).post(f"/tables/{table.token}/again/")
    rematch = Table.objects.exclude(pk=table.pk).get()
    seats = [(s.kind, s.builtin, s.user_id) for s in rematch.seats.order_by("seat")]
    assert seats == [
        (TableSeat.BUILTIN, "naive", None),
        (TableSeat.PERSON, "", ann.pk),
        (TableSeat.OPEN, "", None),
    ]


def test_the_table_page_gives_the_script_what_it_needs_and_escapes_names():
    mallory = make_user("<b>mallory</b>")
    table = tables.create_table("rps-poker", tables.Person(mallory), ["me", "builtin:simple"])
    page = text_of(Client().get(f"/tables/{table.token}/"))
    assert "<b>mallory</b>" not in page
    assert "&lt;b&gt;mallory&lt;/b&gt;" in page or "\\u003Cb\\u003Emallory" in page
    assert 'id="table-setup"' in page
    assert f'"ws": "/ws/tables/{table.token}/"' in page
    assert '"R3": {"code": "R3"' in page  # RPS Poker's cards, described for drawing
    assert "js/table.js" in page
    assert Client().get("/tables/nosuchtable/").status_code == 404


def test_the_table_page_has_a_quiet_status_for_screen_readers_and_a_log_reached_by_tab():
    table = tables.create_table(
        "rps-poker", tables.Person(make_user("ada")), ["me", "builtin:simple"]
    )
    page = text_of(Client().get(f"/tables/{table.token}/"))
    # the clock is silent; the time to move and the card a key chose are said in a status
    assert re.search(r'<p id="countdown"[^>]*aria-live="off"', page)
    assert '<p id="live-status" class="sr-only" role="status"></p>' in page
    # the log scrolls: it takes the keyboard's focus, named by its heading
    log = re.search(r'<ol id="live-log"[^>]*>', page).group(0)
    assert 'tabindex="0"' in log and 'aria-labelledby="log-title"' in log


# ---- CSRF ----------------------------------------------------------------------------------
def test_every_table_post_needs_the_csrf_token():
    ann = make_user("ann")
    table = tables.create_table("rps-poker", tables.Person(ann), ["me", "open"])
    Table.objects.filter(pk=table.pk).update(state=Table.OPEN)
    strict = Client(enforce_csrf_checks=True)
    posts = [
        ("/games/rps-poker/tables/", form_data("rps-poker", ["me", "builtin:simple"])),
        ("/games/rps-poker/tables/quick/", {}),
        (f"/tables/{table.token}/join/1/", {}),
        (f"/tables/{table.token}/again/", {}),
    ]
    for url, data in posts:
        assert strict.post(url, data).status_code == 403, url
    assert Table.objects.count() == 1
    assert table.seats.get(seat=1).kind == TableSeat.OPEN
    # with the token from the page, the same request goes through
    page = text_of(strict.get("/games/rps-poker/tables/"))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = strict.post("/games/rps-poker/tables/quick/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Table.objects.count() == 2
    assert Match.objects.count() == 0


def test_the_home_page_and_the_game_pages_lead_to_the_tables():
    home = text_of(Client().get("/"))
    assert '<a class="button primary" href="/games/rps-poker/tables/">Play now</a>' in home
    for slug in ("rps-poker", "last-card", "uth"):
        assert f'<a href="/games/{slug}/tables/">Play in the browser</a>' in home
        rules = text_of(Client().get(f"/games/{slug}/"))
        assert f'href="/games/{slug}/tables/">Play ' in rules


def finished_against_strong() -> tuple[Table, dict]:
    """ann's table against the built-in strong bot, played and stored: (table, its link)."""
    ann = make_user("ann")
    table = tables.create_table("rps-poker", tables.Person(ann), ["me", "builtin:strong"])
    played = play(
        get_game("rps-poker"),
        [Entry(name="ann", builtin="simple"), Entry(name="house/strong", builtin="strong")],
        seed=table.seed,
    )
    return table, tables.store_finish(tables.facts_of(table), Finish(played))


def test_a_built_in_bot_at_a_table_is_shown_as_built_in_on_the_match_page(client):
    _, link = finished_against_strong()
    seat = MatchSeat.objects.get(match_id=link["match"], seat=1)
    assert (seat.builtin, seat.bot_id, seat.user_id) == ("strong", None, None)
    html = client.get(f"/matches/{link['match']}/").content.decode()
    row = html[html.index('<th scope="row">house/strong') :].split("</tr>")[0]
    assert "built in" in row and "a guest" not in row
    data = client.get(f"/api/matches/{link['match']}/").json()
    assert [p["builtin"] for p in data["participants"]] == [None, "strong"]


def test_the_migration_names_built_in_seats_stored_before_it_as_the_house_names_them():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("games.migrations.0013_builtin_seats_named_as_the_house")
    table, link = finished_against_strong()
    # as they were stored before: the built-in's seat named builtin:NAME; a person whose
    # name merely looks like one is left alone
    TableSeat.objects.filter(builtin="strong").update(name="builtin:strong")
    MatchSeat.objects.filter(builtin="strong").update(name="builtin:strong")
    MatchSeat.objects.filter(seat=0).update(name="builtin:ann")
    migration.forwards(apps, None)
    names = {s.seat: s.name for s in MatchSeat.objects.filter(match_id=link["match"])}
    assert names == {0: "builtin:ann", 1: "house/strong"}
    assert TableSeat.objects.get(table=table, seat=1).name == "house/strong"
    migration.backwards(apps, None)
    assert MatchSeat.objects.get(match_id=link["match"], seat=1).name == "builtin:strong"
    assert TableSeat.objects.get(table=table, seat=1).name == "builtin:strong"
