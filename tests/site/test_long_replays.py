"""The match page of a long match holds one window of its steps, and ``replay.json`` gives
the others a window at a time: a 1000-round Ultimate Texas Hold'em session of the built-in
``basic`` bot (some 3,600 steps), played in this process as a live table plays it."""

from __future__ import annotations

import html
import json
import re
import time

import pytest
from django.conf import settings
from django.core.cache import caches
from django.utils.http import http_date

from bots.models import Match, MatchSeat
from bots.running.playing import Entry
from bots.running.playing import play as play_entries
from games import matchpages, replays
from games.registry import get_game

WINDOW = matchpages.WINDOW
#: the HTML of the page before it held one window: 880 KB for this session
PAGE_BYTES_AT_MOST = 200_000


@pytest.fixture(scope="module")
def long_record() -> dict:
    played = play_entries(get_game("uth"), [Entry(name="basic", builtin="basic")], seed=5)
    record = json.loads(json.dumps(played.outcome.record))  # as stored: JSON data
    assert record["result"]["rounds_played"] == 1000
    return record


@pytest.fixture(scope="module")
def long_replay(long_record) -> replays.Replay:
    return replays.build(long_record, ["a long session"])


@pytest.fixture
def long_match(db, long_record) -> Match:
    match = Match.objects.create(game="uth", seed=5, record=long_record)
    score = long_record["result"]["scores"][0]
    MatchSeat.objects.create(match=match, seat=0, name="a long session", score=score)
    return match


def page_of(client, match: Match, query: str = "") -> str:
    response = client.get(f"/matches/{match.pk}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def embedded(page: str) -> dict:
    """The frames the page gives its viewer (``json_script``)."""
    found = re.search(r'<script id="replay-frames" type="application/json">(.*?)</script>', page)
    assert found
    return json.loads(found.group(1))


def log_steps(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li id="step-(\d+)"', page)]


def options(page: str) -> list[tuple[int, str, bool]]:
    """The "jump to" list: (step counted from 1, label, selected)."""
    select = page.split('<select id="replay-chapter" name="step">')[1].split("</select>")[0]
    return [
        (int(value), html.unescape(label), bool(selected))
        for value, selected, label in re.findall(
            r'<option value="(\d+)"( selected)?>([^<]*)</option>', select
        )
    ]


def answer(client, match: Match, query: str = "", **headers):
    return client.get(f"/matches/{match.pk}/replay.json{query}", **headers)


# ---- the page -------------------------------------------------------------------------------
def test_the_page_of_a_long_match_holds_one_window_of_its_steps(client, long_match, long_replay):
    total = len(long_replay.frames)
    assert total > 3500
    page = page_of(client, long_match)
    assert len(page.encode()) < PAGE_BYTES_AT_MOST
    assert f'Step <span id="replay-number">1</span> of {total}' in page
    assert f'data-total="{total}" data-window="{WINDOW}"' in page
    # the log lists the first window, each step with its lines
    assert log_steps(page) == list(range(1, WINDOW + 1))
    for frame in long_replay.frames[:WINDOW]:
        assert html.escape(frame["label"]) in page
    assert f'id="step-{WINDOW + 1}"' not in page
    assert html.escape(long_replay.frames[-1]["label"]) not in page
    assert '<ol class="replay__log" id="replay-log" start="1"' in page
    assert 'id="replay-earlier" data-go="earlier" href="?step=1#replay" hidden' in page
    assert f'id="replay-later" data-go="later" href="?step={WINDOW + 1}#replay">' in page
    # the viewer gets the same window's frames, and asks for the others
    data = embedded(page)
    assert data["frames"] == long_replay.frames[:WINDOW]
    assert (data["from"], data["count"], data["total"]) == (0, WINDOW, total)
    assert data["cards"] == replays.cards_of(long_replay.frames[:WINDOW])
    assert data["format"] == replays.FORMAT_VERSION and "chapters" not in data
    # the "jump to" list: a round is a chapter
    listed = options(page)
    assert [label for _, label, _ in listed] == [f"Round {n}" for n in range(1, 1001)]
    assert [step - 1 for step, _, _ in listed] == [c["step"] for c in long_replay.chapters()]
    assert [selected for _, _, selected in listed] == [True] + [False] * 999


def test_a_late_step_brings_its_own_window(client, long_match, long_replay):
    total = len(long_replay.frames)
    page = page_of(client, long_match, "?step=2000")
    assert log_steps(page) == list(range(1901, 2001))
    assert 'id="step-2000" class="log-step is-current" aria-current="step"' in page
    assert 'id="replay-earlier" data-go="earlier" href="?step=1900#replay">' in page
    assert 'id="replay-later" data-go="later" href="?step=2001#replay">' in page
    frame = long_replay.frames[1999]
    table = page.split('id="replay-frame"')[1].split('id="replay-decision"')[0]
    assert f'<span id="replay-label">{html.escape(frame["label"])}</span>' in table
    data = embedded(page)
    assert data["from"] == 1900 and data["frames"] == long_replay.frames[1900:2000]
    (selected,) = [label for _, label, chosen in options(page) if chosen]
    assert selected == frame["chapter"]
    # the last window is short
    last = page_of(client, long_match, f"?step={total}")
    assert log_steps(last) == list(range(total // WINDOW * WINDOW + 1, total + 1))
    assert f'id="replay-later" data-go="later" href="?step={total}#replay" hidden' in last
    assert embedded(last)["count"] == total % WINDOW


def test_the_jump_list_opens_a_round_without_javascript(client, long_match, long_replay):
    page = page_of(client, long_match)
    assert '<form class="replay__jump" id="replay-jump" method="get" action="#replay">' in page
    assert '<label for="replay-chapter">Jump to</label>' in page
    (step,) = [step for step, label, _ in options(page) if label == "Round 900"]
    late = page_of(client, long_match, f"?step={step}")
    assert f'Step <span id="replay-number">{step}</span>' in late
    assert '<span id="replay-label">Round 900: the deal</span>' in late
    (selected,) = [label for _, label, chosen in options(late) if chosen]
    assert selected == "Round 900"


def test_a_short_match_is_one_window_without_page_links(client, db):
    played = play_entries(
        get_game("uth"), [Entry(name="basic", builtin="basic")], seed=5, config={"max_rounds": 3}
    )
    record = json.loads(json.dumps(played.outcome.record))
    match = Match.objects.create(game="uth", seed=5, record=record)
    MatchSeat.objects.create(match=match, seat=0, name="short", score=0)
    total = len(replays.build(record).frames)
    page = page_of(client, match)
    assert log_steps(page) == list(range(1, total + 1))
    assert 'data-go="earlier" href="?step=1#replay" hidden' in page
    assert f'data-go="later" href="?step={total}#replay" hidden' in page
    assert [label for _, label, _ in options(page)] == ["Round 1", "Round 2", "Round 3"]


# ---- replay.json ----------------------------------------------------------------------------
def test_replay_json_pages_through_every_frame(client, long_match, long_replay):
    total = len(long_replay.frames)
    chapters = long_replay.chapters()
    frames = []
    for start in range(0, total, WINDOW):
        data = answer(client, long_match, f"?from={start}&count={WINDOW}").json()
        assert (data["from"], data["total"]) == (start, total)
        assert data["count"] == min(WINDOW, total - start) == len(data["frames"])
        assert data["chapters"] == chapters
        assert data["cards"] == replays.cards_of(data["frames"])
        assert data["seats"] == ["a long session"] and data["supported"]
        frames += data["frames"]
    assert frames == long_replay.frames
    assert [f["step"] for f in frames] == list(range(total))
    # any window, not only the viewer's: count is cut at the end
    data = answer(client, long_match, "?from=1234&count=7").json()
    assert data["frames"] == long_replay.frames[1234:1241]
    data = answer(client, long_match, f"?from={total - 2}&count=500").json()
    assert data["count"] == 2 and data["frames"] == long_replay.frames[-2:]
    # a count of more steps than any replay has (it said "count must be a whole number, 0 or
    # more" of 99999999999999999999, beside "count must be 1 or more" of 0): to the end
    huge = answer(client, long_match, f"?from={total - 2}&count=99999999999999999999").json()
    assert huge["count"] == 2
    # from alone: to the end; nothing: the whole replay
    assert answer(client, long_match, f"?from={total - 5}").json()["count"] == 5
    whole = answer(client, long_match).json()
    assert whole["count"] == whole["total"] == total and whole["frames"] == long_replay.frames


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("?from=-1", "from must be a whole number, 0 or more, not '-1'"),
        ("?from=x", "from must be a whole number, 0 or more, not 'x'"),
        ("?from=1.5&count=2", "from must be a whole number, 0 or more, not '1.5'"),
        ("?from=", "from must be a whole number, 0 or more, not ''"),
        ("?from=9999999999", "from 9999999999 is past the last step: this replay has"),
        ("?count=0", "count must be a whole number, 1 or more, not '0'"),
        ("?from=3&count=-2", "count must be a whole number, 1 or more, not '-2'"),
        ("?count=ten", "count must be a whole number, 1 or more, not 'ten'"),
        ("?from=5000", "from 5000 is past the last step: this replay has"),
    ],
)
def test_replay_json_refuses_a_bad_window_with_a_clear_error(client, long_match, query, says):
    response = answer(client, long_match, query)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"].startswith(says)
    assert "Cache-Control" not in response


def test_replay_json_of_an_unknown_match_is_a_json_404(client, db):
    response = client.get("/matches/999/replay.json?from=0&count=10")
    assert response.status_code == 404
    assert response.json() == {"error": "no match 999"}


def test_replay_json_can_be_kept_and_asked_again(client, long_match):
    query = f"?from={WINDOW}&count={WINDOW}"
    first = answer(client, long_match, query)
    assert first.status_code == 200
    assert "public" in first["Cache-Control"] and "max-age=86400" in first["Cache-Control"]
    # only an ETag: a date would say the answer is unchanged when it is drawn anew (a new
    # format of the frames, a seat's new name) though the match was played before
    assert "Last-Modified" not in first
    etag = first["ETag"]
    again = answer(client, long_match, query, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag
    since = answer(client, long_match, query, HTTP_IF_MODIFIED_SINCE=http_date(time.time()))
    assert since.status_code == 200
    # another window is another answer
    other = answer(client, long_match, f"?from=0&count={WINDOW}")
    assert other["ETag"] != etag
    assert answer(client, long_match, "", HTTP_IF_NONE_MATCH=etag).status_code == 200
    gzipped = answer(client, long_match, query, HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped["Content-Encoding"] == "gzip"
    # gzip makes the ETag weak; asked again with it, the answer is still 304
    weak = answer(
        client, long_match, query, HTTP_IF_NONE_MATCH=gzipped["ETag"], HTTP_ACCEPT_ENCODING="gzip"
    )
    assert weak.status_code == 304


# ---- the built replay, kept where every web process finds it ---------------------------------
def test_the_built_replay_is_kept_outside_the_process(client, long_match, long_replay):
    assert "locmem" not in settings.CACHES["replays"]["BACKEND"].lower()
    page_of(client, long_match)
    key = matchpages.replay_key(long_match, ["a long session"])
    # a cache of another process: a connection of its own to the same store
    other = caches.create_connection("replays")
    kept = other.get(f"replay:{key}")
    assert kept["head"]["total"] == len(long_replay.frames)
    assert kept["chapters"] == long_replay.chapters()
    pieces = [other.get(f"replay:{key}:{n}") for n in range(0, len(long_replay.frames) // 100 + 1)]
    assert all(isinstance(piece, bytes) for piece in pieces)


def test_a_piece_gone_from_the_cache_is_built_again(client, long_match, long_replay):
    page_of(client, long_match)
    key = matchpages.replay_key(long_match, ["a long session"])
    built = caches["replays"].get(f"replay:{key}:20")
    assert isinstance(built, bytes)
    caches["replays"].delete(f"replay:{key}:20")
    data = answer(client, long_match, f"?from={20 * WINDOW + 5}&count=3").json()
    assert data["frames"] == long_replay.frames[20 * WINDOW + 5 : 20 * WINDOW + 8]
    assert caches["replays"].get(f"replay:{key}:20") == built  # kept again, the same piece
    # and with nothing kept at all, as on a process that never saw the match
    caches["replays"].delete_many([f"replay:{key}"] + [f"replay:{key}:{n}" for n in range(0, 37)])
    page = page_of(client, long_match, "?step=3000")
    assert embedded(page)["frames"] == long_replay.frames[2900:3000]


def test_a_renamed_seat_is_another_replay(client, long_match):
    before = embedded(page_of(client, long_match))["seats"]
    MatchSeat.objects.filter(match=long_match).update(name="renamed")
    after = embedded(page_of(client, long_match))["seats"]
    assert before == ["a long session"] and after == ["renamed"]


def test_a_cache_that_cannot_be_reached_costs_a_rebuild_not_the_page(
    client, long_match, long_replay, monkeypatch
):
    def down(*args, **kwargs):
        raise ConnectionError("the cache's server is down")

    for call in ("get", "set", "get_many", "set_many"):
        monkeypatch.setattr(caches["replays"], call, down)
    page = page_of(client, long_match, "?step=3000")
    assert embedded(page)["frames"] == long_replay.frames[2900:3000]
    data = answer(client, long_match, f"?from={20 * WINDOW}&count=2").json()
    assert data["frames"] == long_replay.frames[20 * WINDOW : 20 * WINDOW + 2]
