"""No secret leaves (issue 28, goal 2; goal 7 for the replays): a site filled with matches of
every game, played by the worker in the sandbox (tournaments over and one still running,
faults, a one-seat game's placement on shared deals, live tables, a playground run), then
every URL pattern the site serves (enumerated from Django's resolver, so a new endpoint is
walked without a change here; a path parameter this file cannot fill fails it) fetched as a
visitor with no session. It fails on any secret seed, or any card nobody was shown at the
table, found in what comes back.

What is secret is stated here on its own, not asked of the code under test:

- a **seed** (of a match, a job, a tournament's settings, a placement's shared deals, a live
  table) unless its game's seeds are public (RPS Poker, Last Card, Goofspiel) and it can
  never deal again: its tournament is over, or it is a finished live table's. A
  playground run's seed is its person's own choice, and not secret;
- a **hidden card**: of a folded UTH round, the player's and the dealer's; of a UTH round a
  fault cut short, those and the board not yet turned; the hole cards of a Kuhn or Leduc hand
  that never reached a showdown (and Leduc's board card not turned); the down cards of a
  Blackjack++ deal a fault cut short; the prizes of a Goofspiel deal never turned; the cards
  of a Last Card or RPS Poker match that no one ever saw (the deck still to draw). None may
  be face up, or named, in any step of its replay (the match page, its log and drawn table,
  ``replay.json``, a playground match), and none may be in a record (the API's, the
  download), whose shuffles may show only with a seed that may be shown.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver

from bots import competition
from bots.competition.uploads import activate
from bots.models import (
    Bot,
    BotVersion,
    Match,
    MatchJob,
    MatchSeat,
    PlaygroundMatch,
    PlaygroundRun,
    Tournament,
)
from bots.running.playing import Entry
from bots.running.playing import play as play_entries
from bots.worker import Options, Worker
from games import replays
from games.models import SolveJob, Table, TableSeat
from games.registry import game_slugs, get_game
from games.views import contract

#: the games whose rules keep no card secret once a match is over: their seeds may be shown
#: once they can never deal again
PUBLIC_SEEDS = {"rps-poker", "last-card", "goofspiel"}

#: every game's bots: (built-in, the call of a match it breaks down at, or None)
ENTRANTS: dict[str, list[tuple[str, int | None]]] = {
    "rps-poker": [("simple", None), ("strong", None), ("simple", 24)],
    "goofspiel": [("matching", None), ("random", None), ("matching", 20)],
    "last-card": [("naive", None), ("heuristic", None), ("naive", None), ("heuristic", 30)],
    "kuhn": [("simple", None), ("cfr", None), ("simple", 70)],
    "leduc": [("simple", None), ("cfr", None), ("simple", 70)],
    "blackjack-pp": [("simple", None), ("random", None), ("simple", 41)],
    "uth": [("basic", 130), ("basic", 200)],
}
#: tables of explicit seats (Last Card: all four at one table)
TABLES = {"last-card": True}

#: a built-in bot that raises at the given call of each match (a fault cuts a hand short)
BREAKS_DOWN = """

_Builtin = Bot


class Bot(_Builtin):
    pass


def _counted(name):
    method = getattr(_Builtin, name)

    def call(self, *args, **kwargs):
        self._scan_calls = getattr(self, "_scan_calls", 0) + 1
        if self._scan_calls >= {after}:
            raise RuntimeError("the scan's bot breaks down here")
        return method(self, *args, **kwargs)

    return call


for _name in {methods!r}:
    if hasattr(_Builtin, _name):
        setattr(Bot, _name, _counted(_name))
"""


# ---- the site ------------------------------------------------------------------------------
def enter(owner: str, game: str, name: str, code: str) -> BotVersion:
    """An active version (no validation, so no placement of its own)."""
    person, _ = get_user_model().objects.get_or_create(username=owner)
    bot = Bot.objects.create(owner=person, game=game, name=name, language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return version


def bot_code(game: str, builtin: str, after: int | None) -> str:
    code = get_game(game).builtin_path(builtin).read_text()
    if after is None:
        return code
    methods = list(contract(get_game(game))["methods"])
    return code + BREAKS_DOWN.format(after=after, methods=methods)


def play_all() -> None:
    Worker(Options(validate=False, solve=False, playground=False), name="scan").run(batch=True)


def play_one_job(tournament: Tournament, version: BotVersion) -> Match:
    """The tournament's first job that seats ``version``, claimed ahead of the queue, played
    and stored."""
    first = next(j for j in tournament.jobs.order_by("pk") if version.pk in j.seats)
    MatchJob.objects.filter(pk=first.pk).update(priority=100)
    held = competition.claim("scan-one", 60)
    assert held is not None and held.job.pk == first.pk
    match = competition.store_result(held, competition.play_job(held.job))
    assert match is not None
    return match


def fixed_seed(label: str) -> int:
    """A seed of 62 bits for ``label``: the same every run, so that a failure plays again as
    it was, and as unlikely as a random one to be on a page by chance."""
    return int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big") >> 2


def fill_the_site() -> None:
    """Finished tournaments of every game, a running one of every game whose seeds may be
    shown, a UTH placement, live tables (finished and in play) and a
    playground run."""
    people = ["alice", "bob", "carol", "dave"]
    entered: dict[str, list[BotVersion]] = {}
    for game, entrants in ENTRANTS.items():
        versions = [
            enter(people[n], game, f"{builtin}-{n}", bot_code(game, builtin, after))
            for n, (builtin, after) in enumerate(entrants)
        ]
        entered[game] = versions
        tables = [[v.pk for v in versions]] if TABLES.get(game) else None
        competition.start_round_robin(
            game, 1, seed=fixed_seed(f"finished {game}"), versions=versions, tables=tables
        )
    play_all()
    # a new UTH bot's placement: fresh deals, played by the others beside it
    newcomer = enter("erin", "uth", "basic-new", bot_code("uth", "basic", 100))
    with transaction.atomic():
        placement = competition.schedule_placement(newcomer)
    assert placement is not None and placement.settings["seed"]
    play_all()
    # a tournament still running, one seating of its first deal played
    for game in sorted(PUBLIC_SEEDS):
        versions = entered[game]
        tables = [[v.pk for v in versions]] if TABLES.get(game) else None
        running = competition.start_round_robin(
            game, 1, seed=fixed_seed(f"running {game}"), versions=versions, tables=tables
        )
        play_one_job(running, versions[-1])  # the one that breaks down: cards never seen
    live_tables()
    playground_run()


def live_tables() -> None:
    """Finished tables of a game whose seeds are secret and of one whose are public, and a
    table still in play (its seed deals the rest of its match)."""
    ann = get_user_model().objects.create_user("ann")
    for game, builtins in (("kuhn", ["simple", "cfr"]), ("rps-poker", ["simple", "strong"])):
        seed = fixed_seed(f"table {game}")
        entries = [Entry(name="ann", builtin=builtins[0]), Entry(name="bot", builtin=builtins[1])]
        played = play_entries(get_game(game), entries, seed=seed)
        record = json.loads(json.dumps(played.outcome.record))
        match = Match.objects.create(game=game, seed=seed, record=record)
        scores = record["result"]["scores"]
        MatchSeat.objects.create(match=match, seat=0, user=ann, name="ann", score=scores[0])
        MatchSeat.objects.create(match=match, seat=1, builtin=builtins[1], name=builtins[1],
                                 score=scores[1])  # fmt: skip
        table = Table.objects.create(game=game, seed=seed, state=Table.FINISHED, match=match)
        TableSeat.objects.create(table=table, seat=0, kind=TableSeat.PERSON, user=ann, name="ann")
        TableSeat.objects.create(table=table, seat=1, kind=TableSeat.BUILTIN,
                                 builtin=builtins[1], name=builtins[1])  # fmt: skip
    playing = Table.objects.create(
        game="rps-poker", seed=fixed_seed("playing"), state=Table.PLAYING
    )
    TableSeat.objects.create(table=playing, seat=0, kind=TableSeat.PERSON, user=ann, name="ann")
    TableSeat.objects.create(table=playing, seat=1, kind=TableSeat.BUILTIN, builtin="simple",
                             name="simple")  # fmt: skip


def playground_run() -> None:
    """A person's playground run of Kuhn poker: its seed is theirs, its folded hands not."""
    ann = get_user_model().objects.get(username="ann")
    code = get_game("kuhn").builtin_path("simple").read_text()
    run = PlaygroundRun.objects.create(
        key=secrets.token_urlsafe(16), user=ann, game="kuhn", language="python", code=code,
        opponents=[{"builtin": "cfr", "name": "cfr"}], seed=5, matches=1,
        status=PlaygroundRun.DONE, played=1,
    )  # fmt: skip
    seed = fixed_seed("playground")
    entries = [Entry(name="ann", builtin="simple"), Entry(name="cfr", builtin="cfr")]
    played = play_entries(get_game("kuhn"), entries, seed=seed)
    record = json.loads(json.dumps(played.outcome.record))
    seats = [
        {"name": name, "score": score, "fault_kind": "", "fault_reason": ""}
        for name, score in zip(["ann", "cfr"], record["result"]["scores"], strict=True)
    ]
    PlaygroundMatch.objects.create(run=run, number=0, seed=seed, seat=0, seats=seats,
                                   record=record)  # fmt: skip


# ---- what is secret ------------------------------------------------------------------------
@dataclass
class Hidden:
    """Cards of one part of a match (the replay's chapters; None: every one) that no one was
    shown: none may be face up there beyond the ``public`` cards (the same codes shown),
    nor named in its lines. ``shared``: only the table's shared zones can hold them (the
    seats' zones hold the same codes as other cards: Goofspiel's bids)."""

    chapters: set[str] | None
    cards: list[str]
    public: list[str] = field(default_factory=list)
    shared: bool = False


def final_and_steps(record: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The engine's state at the end of the stored record, and the cards seen at each step."""
    seen: list[Any] = []
    state = None
    for _event, state in replays.steps(record):
        seen.append(_snapshot(record["game"], state))
    return state, seen


def _snapshot(game: str, state: Any) -> set[str]:
    """The cards someone at the table sees at this step (the games that keep no card secret
    after the match: the cards dealt to anyone, or turned up)."""
    if game == "last-card":
        return {c for hand in state.hands for c in hand} | set(state.played)
    if game == "rps-poker":
        cards = {c for offer in state.offers for c in offer}
        cards |= {c for deck in state.decks for c in deck} | {c for h in state.hands for c in h}
        cards |= {c for g in state.games for c in [*g["played"], g["base"]]}
        return cards | ({state.base} if state.base else set())
    return set()


def hidden_of(record: dict[str, Any]) -> list[Hidden]:
    game = record["game"]
    state, snapshots = final_and_steps(record)
    found: list[Hidden] = []
    if game == "uth":
        for done in state.rounds:
            if done["folded"]:
                found.append(Hidden({f"Round {done['round']}"}, done["player"] + done["dealer"]))
        if state.outcome == "fault" and state.round_no not in {d["round"] for d in state.rounds}:
            turned = [0, 3, 5][min(len(state.taken), 2)]
            cards = state.player + state.dealer + state.board[turned:]
            found.append(Hidden({f"Round {state.round_no}"}, cards))
    elif game in ("kuhn", "leduc"):
        for number, done in enumerate(state.hands_played, 1):
            if not done["showdown"]:
                cards = [state.card_code(c) for c in done["cards"]]
                if game == "leduc" and "/" not in done["history"]:
                    cards.append(done["board"])
                found.append(Hidden({f"Hand {number}"}, cards))
        if state.faults and len(state.hands_played) < state.hands_total:
            cards = list(state.hole_cards())
            if game == "leduc" and state.public_card() is None:
                cards.append(state.deck[2])
            found.append(Hidden({f"Hand {len(state.hands_played) + 1}"}, cards))
    elif game == "blackjack-pp":
        if state.faults and len(state.hands_played) < state.hands_total:
            number = len(state.hands_played) + 1
            chapters = {f"Deal {number}"} | ({"The start"} if number == 1 else set())
            public = [*state.up, *(c for h in state.hits for c in h)]
            found.append(Hidden(chapters, list(state.down), public))
    elif game == "goofspiel":
        last = state.deals_played[-1] if state.deals_played else None
        if last is not None and last["forfeit"] is not None:  # a fault cut the deal short
            unturned = last["prizes"][len(last["turns"]) + 1 :]
            found.append(Hidden({f"Deal {len(state.deals_played)}"}, _texts(unturned), shared=True))
        elif state.faults:  # both seats at once: the deal was never finished
            unturned = state.prizes[state.turn + 1 :]
            found.append(Hidden({f"Deal {state.deal + 1}"}, _texts(unturned), shared=True))
    elif game in ("last-card", "rps-poker"):
        deck = get_game(game).card_codes
        ever = set().union(*snapshots)
        found.append(Hidden(None, sorted(set(deck) - ever)))
    return [h for h in found if h.cards]


def _texts(cards: list[Any]) -> list[str]:
    return [str(c) for c in cards]


# ---- the scan --------------------------------------------------------------------------------
@dataclass
class MatchFacts:
    game: str
    hidden: list[Hidden]
    #: its seed, and the outcomes of its shuffles, may be shown
    deals_public: bool


@dataclass
class Scan:
    secret_seeds: set[str]
    shown_seeds: set[str]
    matches: dict[int, MatchFacts]
    playground: dict[tuple[str, int], MatchFacts]
    fetched: list[str] = field(default_factory=list)
    seen_seeds: set[str] = field(default_factory=set)
    #: how many hidden cards the checks looked for, and face-up cards they saw in frames
    looked_for: int = 0
    face_up_seen: int = 0


def seed_may_show(game: str, tournament: Tournament | None) -> bool:
    return game in PUBLIC_SEEDS and (tournament is None or tournament.state == Tournament.DONE)


def survey() -> Scan:
    secret, shown = set(), set()

    def note(seed: int, may_show: bool) -> None:
        (shown if may_show else secret).add(str(seed))

    for tournament in Tournament.objects.all():
        may = seed_may_show(tournament.game, tournament)
        for key in Tournament.SEED_SETTINGS:
            value = tournament.settings.get(key)
            for seed in value if isinstance(value, list) else [value] if value else []:
                note(seed, may)
    for job in MatchJob.objects.select_related("tournament"):
        note(job.seed, seed_may_show(job.game, job.tournament))
    for table in Table.objects.all():
        note(table.seed, table.game in PUBLIC_SEEDS and table.state == Table.FINISHED)
    matches = {}
    for match in Match.objects.select_related("tournament"):
        may = seed_may_show(match.game, match.tournament)
        note(match.seed, may)
        matches[match.pk] = MatchFacts(match.game, hidden_of(match.record), may)
    playground = {
        (m.run.key, m.number + 1): MatchFacts(m.run.game, hidden_of(m.record), True)
        for m in PlaygroundMatch.objects.select_related("run")
    }
    assert not secret & shown, "a seed both secret and shown: the scan cannot tell"
    return Scan(secret, shown - secret, matches, playground)


# ---- the URLs --------------------------------------------------------------------------------
PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>|\(\?P<(?P<group>\w+)>[^)]*\)")


def routes() -> list[str]:
    """Every URL pattern of the site as one route (``matches/<int:pk>/replay.json``)."""
    found: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for entry in patterns:
            text = str(entry.pattern).lstrip("^").rstrip("$").replace("\\Z", "")
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + text)
            elif isinstance(entry, URLPattern):
                found.append(prefix + text)

    walk(get_resolver().url_patterns, "")
    return found


def values_for(route: str, name: str, chosen: dict[str, str]) -> list[str]:
    """The stored objects' values for a path parameter of ``route``."""
    plain = route.removeprefix("api/")
    if name == "slug":
        return list(game_slugs())
    if name == "language":
        return list(get_game(chosen["slug"]).starters)
    if name == "pk":
        for start, model in (
            ("my/bots/versions/", BotVersion), ("my/bots/", Bot), ("bots/", Bot),
            ("matches/", Match), ("tournaments/", Tournament),
        ):  # fmt: skip
            if plain.startswith(start):
                return [str(pk) for pk in model.objects.values_list("pk", flat=True)]
    if name == "token":
        return list(Table.objects.values_list("token", flat=True))
    if name == "seat":
        return ["0", "1"]
    if name == "key":
        return list(PlaygroundRun.objects.values_list("key", flat=True))
    if name == "number":
        run = PlaygroundRun.objects.get(key=chosen["key"])
        return [str(n + 1) for n in run.played_matches.values_list("number", flat=True)]
    if name == "username":
        return list(get_user_model().objects.values_list("username", flat=True))
    if name == "job_id":
        return [str(i) for i in SolveJob.objects.values_list("id", flat=True)[:3]] or ["none"]
    if name == "rest":
        return ["no-such-endpoint/"]
    raise AssertionError(f"{route}: the scan does not know how to fill <{name}>: teach it")


def urls_of(route: str) -> list[tuple[str, dict[str, str]]]:
    names = [m["name"] or m["group"] for m in PARAMETER.finditer(route)]
    combos: list[dict[str, str]] = [{}]
    for name in names:
        combos = [c | {name: v} for c in combos for v in values_for(route, name, c)]
    urls = []
    for combo in combos:
        filled = PARAMETER.sub(lambda m: combo[m["name"] or m["group"]], route)  # noqa: B023
        urls.append(("/" + filled, combo))
    return urls


# ---- the checks ------------------------------------------------------------------------------
def digits(body: str) -> str:
    """The body with digit groups joined (a number written 1,234,567 is found too)."""
    return re.sub(r"(?<=\d)[,.\u00a0\u202f ](?=\d{3})", "", body)


def check_seeds(scan: Scan, url: str, body: str) -> None:
    text = digits(body)
    leaked = [s for s in scan.secret_seeds if s in text]
    assert not leaked, f"{url} shows secret seed(s) {leaked}"
    scan.seen_seeds |= {s for s in scan.shown_seeds if s in text}


def labels(cards: list[str]) -> list[str]:
    """The cards' names as lines say them, where a name cannot be mistaken for a number."""
    names = [replays.card_view(c)["label"] for c in cards]
    return [n for n in names if " " in n]


def check_frames(scan: Scan, url: str, frames: list[dict], facts: MatchFacts) -> None:
    for frame in frames:
        shared = [c for z in frame["shared"] for c in z["cards"]]
        seated = [c for s in frame["seats"] for z in s["zones"] for c in z["cards"]]
        scan.face_up_seen += len(shared) + len(seated)
        text = "\n".join([frame["label"], frame.get("decision", ""), *frame["lines"]])
        for hidden in facts.hidden:
            if hidden.chapters is not None and frame["chapter"] not in hidden.chapters:
                continue
            scan.looked_for += len(hidden.cards)
            shown = Counter(shared if hidden.shared else shared + seated)
            beyond = shown - Counter(hidden.public)
            leaked = [c for c in hidden.cards if beyond[c]]
            assert not leaked, f"{url}: step {frame['step']} shows {leaked} face up"
            named = [n for n in labels(hidden.cards) if n in text]
            assert not named, f"{url}: step {frame['step']} names {named}"


def check_record(scan: Scan, url: str, record: dict[str, Any], facts: MatchFacts) -> None:
    outcomes = [e for e in record["events"] if e.get("type") == "chance" and "outcome" in e]
    if not facts.deals_public:
        assert record["seed"] is None and not outcomes, f"{url}: the record can deal again"
    if facts.game not in PUBLIC_SEEDS:
        assert not outcomes, f"{url}: the record has the shuffles of {facts.game}"
    log = record.get("result", {}).get("hand_log")
    for hidden in facts.hidden:
        for chapter in hidden.chapters or ():
            kind, _, number = chapter.partition(" ")
            if kind == "Hand" and isinstance(log, list) and int(number) <= len(log):
                done = log[int(number) - 1]
                assert done["cards"] == [None, None], f"{url}: {chapter}'s cards in the record"
    if facts.game == "goofspiel" and not facts.deals_public:
        for hidden in facts.hidden:
            (chapter,) = hidden.chapters or {""}
            number = int(chapter.removeprefix("Deal "))
            deals = record["result"]["deal_log"]
            prizes = _texts(deals[number - 1]["prizes"]) if number <= len(deals) else []
            leaked = [c for c in hidden.cards if c in prizes]
            assert not leaked, f"{url}: the record has the unturned prizes {leaked}"
    if facts.game == "uth":  # a UTH record names no card at all: only its actions and chips
        text = json.dumps({k: v for k, v in record.items() if k != "events"})
        text += json.dumps([e for e in record["events"] if e.get("type") != "chance"])
        leaked = [c for h in facts.hidden for c in h.cards if f'"{c}"' in text]
        assert not leaked, f"{url}: the record names {leaked}"


def page_frames(page: str) -> tuple[dict, int] | None:
    """A replay page's frames (the window it holds) and the step it draws."""
    if 'id="replay-frames"' not in page:
        return None
    held = page.split('<script id="replay-frames" type="application/json">')[1]
    current = re.search(r'data-current="(\d+)"', page)
    step = int(current.group(1)) if current else 0
    return json.loads(held.split("</script>")[0]), step


def check_page(scan: Scan, url: str, page: str, facts: MatchFacts) -> None:
    found = page_frames(page)
    if found is None:
        return
    held, step = found
    frames = held["frames"]
    check_frames(scan, url, frames, facts)
    by_step = {f["step"]: f for f in frames}
    window = page.split('<ol class="replay__log"')[1].split("</ol>")[0]
    items = re.split(r'<li id="step-(\d+)"', window)[1:]
    for number, item in zip(items[::2], items[1::2], strict=True):
        frame = by_step[int(number) - 1]
        text = re.sub(r"<[^>]+>", " ", item)
        shown = frame | {"lines": [re.sub(r"\s+", " ", text)], "shared": [], "seats": []}
        check_frames(scan, f"{url} (log)", [shown], facts)
    drawn = page.split('id="replay-frame"')[1].split('id="replay-decision"')[0]
    codes = re.findall(r'data-code="([^"]+)"', drawn)
    assert step in by_step, f"{url}: the step drawn is not in the window the page holds"
    as_frame = by_step[step] | {"shared": [{"cards": codes}], "seats": [], "lines": []}
    check_frames(scan, f"{url} (drawn)", [as_frame], facts)
    # the solver's review (where its solve is done): a hidden hand's decisions without the
    # information set, which holds the reviewed seat's card
    rows = re.findall(r'<tr data-key="([^"]*)">\s*<td class="num"[^>]*>(?:<a [^>]*>)?(\d+)', page)
    for key, hand in rows:
        for hidden in facts.hidden:
            if hidden.chapters and {f"Hand {hand}", f"Deal {hand}"} & hidden.chapters:
                assert not key, f"{url}: the review shows hand {hand}'s information set {key}"


def facts_for(scan: Scan, url: str, combo: dict[str, str]) -> MatchFacts | None:
    path = urlsplit(url).path
    if "key" in combo and "number" in combo:
        return scan.playground[(combo["key"], int(combo["number"]))]
    if "/matches/" in path and "pk" in combo:
        return scan.matches[int(combo["pk"])]
    return None


def check(scan: Scan, url: str, body: str, facts: MatchFacts | None) -> None:
    check_seeds(scan, url, body)
    data: Any = None
    if body.lstrip().startswith("{"):
        data = json.loads(body)
    frames = data.get("frames") if isinstance(data, dict) else None
    record = data.get("record") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(data.get("events"), list):
        record = data
    if facts is None:
        assert frames is None and record is None and 'id="replay-frames"' not in body, (
            f"{url} shows a match's replay or record, but the scan cannot tell which: teach it"
        )
        return
    if frames is not None:
        check_frames(scan, url, frames, facts)
    if record is not None:
        check_record(scan, url, record, facts)
    if data is None:
        check_page(scan, url, body, facts)


def fetch(client, scan: Scan, url: str) -> str:
    response = client.get(url)
    assert response.status_code < 500, f"{url}: {response.status_code}"
    scan.fetched.append(url)
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def hidden_windows(scan: Scan, pk: int, client) -> list[int]:
    """The first step of each window of the match's replay that holds a hidden chapter."""
    facts = scan.matches[pk]
    chapters = {c for h in facts.hidden for c in h.chapters or ()}
    if not chapters:
        return []
    frames = client.get(f"/matches/{pk}/replay.json").json()["frames"]
    steps = sorted({f["step"] // 100 * 100 for f in frames if f["chapter"] in chapters})
    return steps[:3]


@pytest.mark.django_db
def test_no_page_or_api_answer_shows_a_secret_seed_or_a_hidden_card(client):
    started = time.monotonic()
    fill_the_site()
    filled = time.monotonic() - started
    scan = survey()
    # every game has cards no one was shown (a Last Card game may have drawn its whole deck)
    hidden_games = {f.game for f in scan.matches.values() if f.hidden}
    assert hidden_games >= set(game_slugs()) - {"last-card"}, hidden_games
    all_routes = routes()
    walked = [r for r in all_routes if not r.startswith("admin/")]
    for route in walked:
        for url, combo in urls_of(route):
            check(scan, url, fetch(client, scan, url), facts_for(scan, url, combo))
            if route == "matches/<int:pk>/":
                for start in hidden_windows(scan, int(combo["pk"]), client):
                    more = f"{url}?step={start + 1}"
                    check(scan, more, fetch(client, scan, more), facts_for(scan, url, combo))
    api = [r for r in walked if r.startswith("api/")]
    fetched_api = sum(1 for url in scan.fetched if url.startswith("/api/"))
    # the scan would have seen them: seeds that may be shown are, and cards face up are
    assert scan.seen_seeds, "no seed that may be shown was seen: is the seed check blind?"
    assert scan.looked_for > 100 and scan.face_up_seen > 1000
    assert len(walked) >= 50 and len(scan.fetched) >= 400  # the site's endpoints, each object
    print(
        f"\nsecret scan: {len(walked)} URL patterns ({len(api)} of the API,"
        f" {len(walked) - len(api)} of pages; {len(all_routes) - len(walked)} admin ones left"
        " out: staff only),"
        f" {len(scan.fetched)} pages and answers fetched ({fetched_api} of the API);"
        f" {len(scan.matches)} matches, {len(scan.secret_seeds)} secret seeds,"
        f" {sum(len(h.cards) for f in scan.matches.values() for h in f.hidden)} hidden cards;"
        f" {filled:.1f} s to fill the site, {time.monotonic() - started - filled:.1f} s to scan it"
    )
