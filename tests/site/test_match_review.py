"""The solver's review on the match page (``?review=<seat>``, games/reviews.py): the solve it
needs is queued, never run in the web process, and run by the worker; then each decision's
numbers are the review module's, the folded hands' cards stay secret, a forged seat is a 400
and the page's queries do not grow with the match."""

from __future__ import annotations

import html
import json
import random
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import Match, MatchSeat
from bots.worker import Options, Worker
from games import reviews, solves
from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.models import SolveJob
from games.registry import get_game
from games.solver.review import shown_values

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("keep_the_test_connection")]


def stored(hands: int = 10, seed: int = 3, user=None) -> Match:
    """A Kuhn match of scripted random play (p and b are always legal), stored with its
    record; seat 0 a person (``user``), seat 1 a built-in bot."""
    game = get_game("kuhn")
    rng = random.Random(seed)
    agents = [ScriptedAgent([rng.choice("pb") for _ in range(3 * hands)], n) for n in "ab"]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(seed, config={"hands": hands}), agents, seed=seed
    )
    record = json.loads(json.dumps(outcome.record))
    match = Match.objects.create(game="kuhn", seed=seed, record=record)
    scores = record["result"]["scores"]
    MatchSeat.objects.create(match=match, seat=0, name="ann", user=user, score=scores[0])
    MatchSeat.objects.create(match=match, seat=1, name="cfr", builtin="cfr", score=scores[1])
    return match


def opened_and_solved(client, match) -> None:
    """Open the match page once (which queues its review solve), then let the worker solve."""
    client.get(f"/matches/{match.pk}/")
    solved()


def solved() -> None:
    """The worker runs the queued review solve (``manage.py worker --batch``)."""
    Worker(Options(validate=False), name="w1").run(batch=True)
    assert SolveJob.objects.get().status == SolveJob.DONE


def numbers(page: str, name: str) -> list[float]:
    """The figures of the cells ``data-<name>``, a negative one's minus sign (U+2212) read."""
    found = re.findall(rf"data-{name}>(?:<strong>)?([\u2212-]?[0-9.]+)", page)
    return [float(x.replace("\u2212", "-")) for x in found]


def taken_shown(rows) -> list[float]:
    """The values of the actions taken as the rows show them: each within the last place of
    the solve's, and as far from the best shown as the loss shown."""
    shown = [float(shown_values(r.taken_value, r.best_value, r.charged)[0]) for r in rows]
    assert shown == pytest.approx([r.taken_value for r in rows], abs=1.5e-4)
    return shown


def test_the_page_queues_the_solve_says_so_and_never_solves_itself(client):
    match = stored()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    job = SolveJob.objects.get()
    assert (
        job.status == SolveJob.QUEUED
        and job.key == reviews.review_settings("kuhn", match.record).key
    )
    assert 'data-solve-state="waiting"' in page and "number 1 in the queue" in page
    assert "This page updates itself" in page and "js/review.js" in page
    # asked again: the same job, still waiting (the web process ran nothing)
    client.get(f"/matches/{match.pk}/")
    assert SolveJob.objects.get().status == SolveJob.QUEUED


def test_the_reviews_numbers_are_the_review_modules_and_the_total_adds_up(client):
    match = stored(hands=20)
    opened_and_solved(client, match)
    for seat in (0, 1):
        page = client.get(f"/matches/{match.pk}/?review={seat}").content.decode()
        record = get_game("kuhn").state_class.public_record(match.record)
        expected = reviews.match_review("kuhn", record, seat)
        assert expected.state == "done"
        rows = [row for row in expected.review.rows if row.reviewed]
        assert rows  # random play in 20 hands: decisions at showdowns
        assert numbers(page, "lost") == pytest.approx([round(r.charged, 4) for r in rows], abs=1e-4)
        assert numbers(page, "taken-value") == taken_shown(rows)
        assert numbers(page, "best-value") == pytest.approx(
            [round(r.best_value, 4) for r in rows], abs=1e-4
        )
        # the mistakes (losses over 0.01, or the solve's exploitability if larger) stand out,
        # and the total is theirs alone
        document = json.loads(SolveJob.objects.get().result)
        threshold = max(0.01, document["exploitability"])
        assert expected.review.threshold == threshold == 0.01
        mistakes = [r for r in rows if r.lost > threshold]
        assert page.count("data-lost><strong>") == len(mistakes) == expected.review.mistakes
        total = numbers(page, "total-lost")
        # (the sum of the losses the rows show: a reader adding them up gets the total)
        shown = numbers(page, "lost")
        assert total == [round(sum(n for n in shown if n > threshold), 4)]
        assert f"<strong data-mistakes>{len(mistakes)}</strong> mistake" in page
        assert f'<option value="{seat}" selected>' in page


def test_the_reviews_negative_values_have_the_minus_sign_as_every_figure_of_the_page(client):
    """Kuhn match 59's review read "-1.0000" and "-2.0000" (a hyphen) beside the match's
    score "\u221231" and the replay's "guest \u22121" (the minus sign)."""
    match = stored(hands=20)
    opened_and_solved(client, match)
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    cells = re.findall(r"data-(?:taken|best)-value>([^<]*)<", page)
    assert cells and all(re.fullmatch(r"\u2212?[0-9]+\.[0-9]{4}", cell) for cell in cells)
    assert any(cell.startswith("\u2212") for cell in cells)  # Kuhn's jack: worth -1 and less


def test_a_folded_hand_is_reviewed_for_its_own_player_alone(client):
    user = get_user_model().objects.create_user("ann", password="pw-for-ann")
    match = stored(hands=20, user=user)
    opened_and_solved(client, match)
    hands = match.record["result"]["hand_log"]
    folded = [n for n, h in enumerate(hands) if not h["showdown"]]
    assert folded
    public = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    hidden = public.count("The cards of this hand are not shown to you.")
    moves = get_game("kuhn").solver.review_moves(match.record)
    assert hidden == sum(1 for m in moves if m.seat == 0 and m.hand in folded) > 0
    client.force_login(user)
    own = client.get(f"/matches/{match.pk}/").content.decode()  # their own seat by default
    assert '<option value="0" selected>' in own
    assert "not shown to you" not in own
    # the other seat's folded cards stay hidden from them
    assert "not shown to you" in client.get(f"/matches/{match.pk}/?review=1").content.decode()


def test_a_seat_whose_every_hand_ended_in_a_fold_is_said_so_not_counted_as_no_mistakes(client):
    """Two hands, each ended by a fold (bet, fold): nobody but seat 0's player sees its cards."""
    user = get_user_model().objects.create_user("ann", password="pw-for-ann")
    game = get_game("kuhn")
    agents = [ScriptedAgent(["b", "p"], "a"), ScriptedAgent(["p", "b"], "b")]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(5, config={"hands": 2}), agents, seed=5
    )
    record = json.loads(json.dumps(outcome.record))
    assert not any(hand["showdown"] for hand in record["result"]["hand_log"])
    match = Match.objects.create(game="kuhn", seed=5, record=record)
    MatchSeat.objects.create(match=match, seat=0, name="ann", user=user, score=0)
    MatchSeat.objects.create(match=match, seat=1, name="cfr", builtin="cfr", score=0)
    said = "None of this seat's decisions can be shown to you: every hand they played ended"
    public = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    assert said in public
    assert "mistakes in 0 decisions" not in public and "0 were fine" not in public
    assert public.count("The cards of this hand are not shown to you.") == 2
    # their own player sees their cards, and the review is made of them
    client.force_login(user)
    own = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    assert said not in own and "not shown to you" not in own


def test_the_review_says_you_to_its_own_player_alone_and_names_them_to_anyone_else(client):
    """Every decision's words, reviewed or not (a folded hand's, for the public), are of one
    person: "ann" and "they" to everyone else, "you" to ann (the reasons address whoever
    looks: "not shown to you")."""
    user = get_user_model().objects.create_user("ann", password="pw-for-ann")
    match = stored(hands=20, user=user)
    opened_and_solved(client, match)

    def decisions(page: str) -> list[str]:
        found = re.findall(r'<td data-label="decision"[^>]*>(.*?)</td>', page)
        assert found
        return [html.unescape(cell) for cell in found]

    public = decisions(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    assert not [cell for cell in public if re.search(r"\b[Yy]ou", cell)]
    # a folded hand's, not reviewed: what was done, and what had been seen
    assert "ann folded, after ann checked and the opponent bet" in public
    assert any(cell.startswith("ann ") for cell in public)  # a reviewed one's sentence
    client.force_login(user)
    own = decisions(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    assert not [cell for cell in own if "ann" in cell or "they" in cell]
    assert any(cell.startswith("You ") for cell in own)


@pytest.mark.parametrize("forged", ["2", "-1", "x", "0 ", "1e0", "9" * 50])
def test_a_forged_seat_is_a_clear_400(client, forged):
    match = stored(hands=2)
    response = client.get(f"/matches/{match.pk}/", {"review": forged})
    assert response.status_code == 400
    # the page's seats are 1 and 2, the address's 0 and 1: the error names both
    assert (
        "Review must be seat 1 (review=0) or seat 2 (review=1) of this match"
        in response.content.decode()
    )
    assert not SolveJob.objects.exists()


def test_a_game_the_solver_does_not_review_refuses_the_parameter(client):
    game = next(
        slug
        for slug in ("rps-poker", "goofspiel", "uth")
        if get_game(slug).solver is None or get_game(slug).solver.review_moves is None
    )
    match = Match.objects.create(game=game, seed=1, record={"seats": [], "events": []})
    response = client.get(f"/matches/{match.pk}/?review=0")
    assert response.status_code == 400 and "does not review" in response.content.decode()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="review"' not in page


def test_the_pages_queries_do_not_grow_with_the_match(client):
    small, large = stored(hands=2, seed=1), stored(hands=60, seed=2)
    opened_and_solved(client, small)
    counts = []
    for match in (small, large, small):
        client.get(f"/matches/{match.pk}/")  # the replay cached, the solve touched
        with CaptureQueriesContext(connection) as queries:
            page = client.get(f"/matches/{match.pk}/").content.decode()
        assert "data-review-summary" in page
        counts.append(len(queries))
    # the match, its seats, the solve's row: as many for 2 hands as for 60
    assert counts[0] == counts[1] == counts[2] <= 3, counts
    assert html.unescape(page).count("hand") > 0


def finished_kuhn_table(mark: Any = None) -> tuple[Any, Any, Any, dict]:
    """A Kuhn table of two people, ann and bob, played to its end by built-in bots and
    stored (its record first passed through ``mark``, if given): (ann, bob, the table, what
    the table's end told its pages)."""
    from bots.running.playing import Entry, play
    from games.live import tables
    from games.live.host import Finish
    from games.models import Table

    ann, bob = (get_user_model().objects.create_user(n, password=f"pw-{n}") for n in "ab")
    table = tables.create_table("kuhn", tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(bob))
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING)
    entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="cfr")]
    played = play(get_game("kuhn"), entries, seed=table.seed)
    if mark is not None:
        played.outcome.record = mark(played.outcome.record)
    told = tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    return ann, bob, table, told


def test_a_finished_kuhn_table_links_each_player_to_the_review_of_their_own_seat():
    from django.test import Client

    ann, bob, table, _ = finished_kuhn_table()
    for seat, person in enumerate((ann, bob)):
        client = Client()
        client.force_login(person)
        page = client.get(f"/tables/{table.token}/").content.decode()
        link = f"/matches/{table.match_id}/?review={seat}#review"
        assert f'id="end-review" class="button" href="{link}"' in page
        assert client.get(link.split("#")[0]).status_code == 200
    # a spectator has no seat to review
    assert 'id="end-review"' not in Client().get(f"/tables/{table.token}/").content.decode()


def blackjack_match(max_hits: int) -> Match:
    game = get_game("blackjack-pp")
    agents = [ScriptedAgent(["hit", "stand"] * 20, n) for n in "ab"]
    config = {"hands": 4, "max_hits": max_hits}
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(9, config=config), agents, seed=9
    )
    record = json.loads(json.dumps(outcome.record))
    match = Match.objects.create(game="blackjack-pp", seed=9, record=record)
    for seat, name in enumerate("ab"):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(match=match, seat=seat, name=name, score=score)
    return match


def test_a_blackjack_match_of_more_hits_than_reviewed_says_why(client):
    match = blackjack_match(max_hits=2)
    page = html.unescape(client.get(f"/matches/{match.pk}/").content.decode())
    said = re.search(r'<p data-review-state="refused">([^<]*)</p>', page).group(1)
    assert said == (
        "The solver reviews Blackjack++ matches of 1 hit per deal only; this match allowed 2."
    )
    assert not SolveJob.objects.exists()


def test_a_blackjack_table_offers_the_review_only_for_a_match_the_solver_reviews():
    """At the end of a 2-hit table, "Review your play with the solver" led to a page saying the
    match cannot be reviewed: the button is there for 1 hit only."""
    from django.test import Client

    from games.live import tables

    ann = get_user_model().objects.create_user("ann", password="pw-for-ann")
    client = Client()
    client.force_login(ann)
    for hits, offered in ((1, True), (2, False), (3, False)):
        table = tables.create_table(
            "blackjack-pp", tables.Person(ann), ["me", "open"], config={"max_hits": hits}
        )
        page = client.get(f"/tables/{table.token}/").content.decode()
        assert ('id="end-review"' in page) is offered, hits
        assert ("Review your play with the solver" in page) is offered, hits


def test_a_reviews_words_name_blackjacks_deals_as_its_table_and_replay_do(client):
    match = blackjack_match(max_hits=1)
    client.get(f"/matches/{match.pk}/?review=0")
    solved_all()
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    assert '<th scope="col">deal</th>' in page and '<th scope="col">hand</th>' not in page
    assert 'data-label="deal"' in page and 'data-label="hand"' not in page
    assert 'title="this deal in the replay"' in page and "this hand" not in page
    assert "over the deals that could have led to that point" in page
    # a value is the seat's points minus the opponent's, never the 2, 1 or 0 of its place
    assert "in points over the opponent (the seat's points in the deal, 2, 1 or 0" in page
    assert "equilibrium" not in page
    # Kuhn poker's are hands
    kuhn = stored(hands=4)
    opened = client.get(f"/matches/{kuhn.pk}/")
    assert opened.status_code == 200
    solved_all()
    page = client.get(f"/matches/{kuhn.pk}/").content.decode()
    assert '<th scope="col">hand</th>' in page and 'title="this hand in the replay"' in page


def stalled_review(client, match: Match) -> str:
    """The match page's review while its solves wait, past ``SOLVE_STALLED_S``, none running."""
    client.get(f"/matches/{match.pk}/?review=0")
    SolveJob.objects.update(created=timezone.now() - timedelta(seconds=45))
    return html.unescape(client.get(f"/matches/{match.pk}/?review=0").content.decode())


def busy_worker() -> None:
    """A worker playing a long match: its job's lease not run out (its heartbeat renews it)."""
    from bots.models import MatchJob, Tournament

    tournament = Tournament.objects.create(game="kuhn")
    MatchJob.objects.create(
        tournament=tournament, game="kuhn", seats=[1, 2], seed=1, status=MatchJob.RUNNING,
        worker="w1", attempts=1, lease_until=timezone.now() + timedelta(minutes=1),
    )  # fmt: skip


@pytest.mark.parametrize("game", ["kuhn", "blackjack-pp"])
def test_a_waiting_review_says_the_workers_are_busy_or_that_none_is_at_work(client, settings, game):
    """A worker runs one solve between two pieces of other work: while it plays a long match
    the solve waits, and the page said "No worker seems to be running"."""
    settings.SOLVE_STALLED_S = 30
    match = stored() if game == "kuhn" else blackjack_match(max_hits=1)
    idle = stalled_review(client, match)
    assert "No worker is at work on the site now:" in idle
    assert "busy" not in idle and "manage.py" not in idle
    busy_worker()
    busy = stalled_review(client, match)
    assert "No worker" not in busy and "manage.py" not in busy
    if game == "kuhn":  # one solve, first in the queue
        assert "The site's workers are busy with other matches; this solve is next." in busy
    else:
        assert "The site's workers are busy with other matches; these solves are next." in busy
    # a worker whose lease ran out (it died) is at work no more
    from bots.models import MatchJob

    MatchJob.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    assert "No worker is at work on the site now:" in stalled_review(client, match)


def up_cards(match: Match) -> list[str]:
    """Each deal's up cards as the solver names them (ten-valued cards are T)."""
    return [
        ",".join("T" if c[0] in "TJQK" else c[0] for c in hand["up"])
        for hand in match.record["result"]["hand_log"]
    ]


def test_each_blackjack_deal_is_reviewed_with_a_solve_of_its_own_up_cards(client, settings):
    settings.SOLVE_MAX_OPEN_PER_GUEST_ADDRESS = 8  # the viewer's share: every deal at once
    match = blackjack_match(max_hits=1)
    moves = [m for m in get_game("blackjack-pp").solver.review_moves(match.record) if m.seat == 0]
    ups = up_cards(match)
    wanted = {ups[m.hand] for m in moves}
    assert len(wanted) > 1  # deals of different up cards
    page = html.unescape(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    # one solve queued per up-card set, none run by the web process
    jobs = SolveJob.objects.all()
    assert sorted(dict(map(tuple, j.options))["up"] for j in jobs) == sorted(wanted)
    assert all(j.status == SolveJob.QUEUED and j.iterations == 200 for j in jobs)
    assert f"0 of the {len(wanted)} solves this review needs are done" in page
    assert page.count('data-solve-state="waiting"') == len(wanted)
    assert "number 1 in the queue" in page and "data-review-pending" in page
    # one solve taken by a worker shows its progress
    first = SolveJob.objects.order_by("id").first()
    SolveJob.objects.filter(pk=first.pk).update(
        status=SolveJob.RUNNING,
        lease_until=timezone.now() + timedelta(minutes=1),
        iteration=50,
    )
    page = html.unescape(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    assert "solving, 25% done" in page
    SolveJob.objects.filter(pk=first.pk).update(status=SolveJob.QUEUED, lease_until=None)
    solved_all()
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    assert "data-review-pending" not in page and "Not solved" not in page
    record = get_game("blackjack-pp").state_class.public_record(match.record)
    expected = reviews.match_review("blackjack-pp", record, 0)
    rows = expected.review.rows
    assert len(rows) == len(moves) and all(row.reviewed for row in rows)
    # each row's numbers are those of its own deal's solve
    for row in rows:
        settings = reviews.SolveSettings("blackjack-pp", "cfr+", 200, row.move.options)
        job = SolveJob.objects.get(digest=settings.job_id)
        values = reviews.values_of(settings, solves.document_of(job))
        assert row.taken_value == pytest.approx(values.at(row.move.key).values[row.move.taken])
    assert numbers(page, "taken-value") == taken_shown(rows)
    text = html.unescape(page)
    assert "points" in text and " down and " in text and "the dealer " in text
    # another match whose deals share up cards asks for no new solve
    count = SolveJob.objects.count()
    again = blackjack_match(max_hits=1)
    assert set(up_cards(again)) <= {dict(map(tuple, j.options))["up"] for j in jobs}
    assert "data-review-summary" in client.get(f"/matches/{again.pk}/?review=1").content.decode()
    assert SolveJob.objects.count() == count


def solved_all() -> None:
    Worker(Options(validate=False), name="w1").run(batch=True)
    assert set(SolveJob.objects.values_list("status", flat=True)) == {SolveJob.DONE}


def test_a_full_solve_queue_leaves_the_rest_for_the_next_view(client, settings):
    settings.SOLVE_MAX_OPEN = 4
    settings.SOLVE_MAX_OPEN_PER_GUEST_ADDRESS = 8  # the viewer's share is not what stops it
    match = blackjack_match(max_hits=1)
    page = html.unescape(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    # two places are left to the strategy explorer
    assert SolveJob.objects.count() == 4 - reviews.EXPLORER_ROOM == 2
    assert "waiting for room in the solver's queue" in page
    explorer = solves.submit(solves.SolveSettings("kuhn", "cfr+", 10))
    assert explorer.status == SolveJob.QUEUED
    solved_all()
    client.get(f"/matches/{match.pk}/?review=0")  # asks for the next ones
    assert SolveJob.objects.filter(status=SolveJob.QUEUED).count() > 0


def test_the_values_are_computed_once_for_every_page_and_without_a_cache_too(client, monkeypatch):
    first, second = stored(hands=4, seed=1), stored(hands=4, seed=2)
    opened_and_solved(client, first)
    computed = []
    values_of = reviews.values_of
    monkeypatch.setattr(reviews, "values_of", lambda *a: computed.append(1) or values_of(*a))
    pages = [client.get(f"/matches/{m.pk}/").content.decode() for m in (first, second, first)]
    assert len(computed) == 1 and all("data-review-summary" in page for page in pages)

    # a cache that cannot be reached costs the computation, never the page
    def away(*args, **kwargs):
        raise ConnectionError("the cache is away")

    cache = caches["replays"]
    for call in ("get", "set", "get_many", "set_many"):
        monkeypatch.setattr(cache, call, away)
    again = client.get(f"/matches/{first.pk}/").content.decode()
    assert len(computed) == 2
    assert numbers(again, "lost") == numbers(pages[0], "lost")


def test_each_decision_links_to_its_hand_in_the_replay(client):
    match = stored(hands=6)
    opened_and_solved(client, match)
    page = client.get(f"/matches/{match.pk}/?review=1").content.decode()
    links = re.findall(r'href="\?step=(\d+)&amp;review=1#replay"[^>]*>(\d+)<', page)
    moves = [m for m in get_game("kuhn").solver.review_moves(match.record) if m.seat == 1]
    assert [int(hand) for _, hand in links] == [m.hand + 1 for m in moves]
    frames = client.get(f"/matches/{match.pk}/replay.json").json()["frames"]
    for step, hand in links:
        assert frames[int(step) - 1]["chapter"] == f"Hand {hand}"
        assert frames[int(step) - 2]["chapter"] != f"Hand {hand}"  # its first step


def test_a_leduc_match_is_reviewed_with_the_leduc_solve(client):
    game = get_game("leduc")
    agents = [ScriptedAgent(["c"] * 80, n) for n in "ab"]  # check or call: always legal
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(4, config={"hands": 6}), agents, seed=4
    )
    record = json.loads(json.dumps(outcome.record))
    match = Match.objects.create(game="leduc", seed=4, record=record)
    for seat, name in enumerate("ab"):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(match=match, seat=seat, name=name, score=score)
    opened_and_solved(client, match)
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    expected = reviews.match_review("leduc", game.state_class.public_record(record), 0)
    rows = expected.review.rows
    # every hand goes to the showdown: 6 hands, 2 rounds, one check (or call) each
    assert len(rows) == 12 and all(row.reviewed for row in rows)
    assert numbers(page, "taken-value") == taken_shown(rows)
    # a second round's decision in words: the board, and the first round's betting
    assert "on the board, in the second round" in html.unescape(page)
    assert "(in the first round they checked and the opponent checked)" in html.unescape(page)


def test_a_guest_sees_the_numbers_of_their_own_folded_hands_and_no_one_else_does():
    from django.test import Client

    from bots.running.playing import Entry, play
    from games.live import tables
    from games.live.host import Finish
    from games.models import Table

    guest = tables.Person(None, "a-guest-token")
    table = tables.create_table("kuhn", guest, ["me", "open"])
    tables.take_seat(table, 1, tables.Person(None, "another-token"))
    # a seed whose hands include folds of seat 0 (the table's own is random)
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING, seed=5)
    table.refresh_from_db()
    entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="cfr")]
    played = play(get_game("kuhn"), entries, seed=table.seed)
    tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    match = table.match
    opened_and_solved(Client(), match)
    moves = get_game("kuhn").solver.review_moves(match.record)
    folded = {n for n, h in enumerate(match.record["result"]["hand_log"]) if not h["showdown"]}
    assert any(m.seat == 0 and m.hand in folded for m in moves)
    client = Client()
    session = client.session
    session["guest_token"] = "a-guest-token"
    session.save()
    own = client.get(f"/matches/{match.pk}/").content.decode()
    assert '<option value="0" selected>' in own and "not shown to you" not in own
    assert "not shown to you" in client.get(f"/matches/{match.pk}/?review=1").content.decode()
    assert "not shown to you" in Client().get(f"/matches/{match.pk}/?review=0").content.decode()


def test_a_person_who_signed_in_during_their_table_is_reviewed_in_the_seat_they_held():
    from django.test import Client

    from bots.running.playing import Entry, play
    from games.live import tables
    from games.live.host import Finish
    from games.models import Table

    table = tables.create_table("kuhn", tables.Person(None, "a-guest-token"), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(None, "another-token"))
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING, seed=5)
    table.refresh_from_db()
    entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="cfr")]
    played = play(get_game("kuhn"), entries, seed=table.seed)
    tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    opened_and_solved(Client(), table.match)
    client = Client()
    client.force_login(get_user_model().objects.create_user("late"))
    session = client.session
    session["guest_token"] = "a-guest-token"  # signed in, the guest's token kept
    session.save()
    # their own seat: the numbers of their own folded hands shown to them (seed 5 folds some)
    page = client.get(f"/matches/{table.match_id}/").content.decode()
    assert '<option value="0" selected>' in page and "not shown to you" not in page


def test_a_failed_solve_is_shown_with_its_reason_and_not_queued_again_by_views(client):
    match = stored(hands=20)
    client.get(f"/matches/{match.pk}/")
    assert SolveJob.objects.count() == 1
    SolveJob.objects.update(status=SolveJob.FAILED, error="The solve ran out of memory.")
    for _ in range(2):
        page = html.unescape(client.get(f"/matches/{match.pk}/").content.decode())
        assert 'data-solve-state="failed"' in page
        assert "failed: The solve ran out of memory." in page
        query = reviews.review_settings("kuhn", match.record).query()
        assert f'href="/solver/?{query}">Ask for it again in the strategy explorer' in page
    assert SolveJob.objects.get().status == SolveJob.FAILED


def test_the_replays_step_links_keep_the_review_asked_for(client):
    match = stored(hands=6)
    opened_and_solved(client, match)
    page = client.get(f"/matches/{match.pk}/?review=1").content.decode()
    controls = re.findall(r'data-go="(?:first|previous|next|last)" href="([^"]+)"', page)
    assert len(controls) == 4
    assert all(re.fullmatch(r"\?review=1&amp;step=\d+#replay", href) for href in controls)
    assert '<input type="hidden" name="review" value="1">' in page  # the jump form's too
    # without a review asked for, the links name the step alone
    plain = client.get(f"/matches/{match.pk}/").content.decode()
    controls = re.findall(r'data-go="(?:first|previous|next|last)" href="([^"]+)"', plain)
    assert all(re.fullmatch(r"\?step=\d+#replay", href) for href in controls)


def played_for_seat(record: dict, seat: int) -> dict:
    """``record`` as a live table stores it when it played every move of ``seat`` for it (its
    person let every turn's time run out)."""
    events = record["events"]
    moves = [i for i, e in enumerate(events) if e.get("type") == "action" and e["seat"] == seat]
    return record | {"played_for": [[seat, i] for i in moves]}


def test_a_seat_with_no_decision_reviewed_is_said_so_plainly(client):
    """Match 115 (every turn timed out): "0 mistakes in the 0 decisions reviewed (0 chips
    lost). Not reviewed: 14 moves ... 0 were fine: ...", with a solve queued for nothing."""
    match = stored(hands=6)
    Match.objects.filter(pk=match.pk).update(record=played_for_seat(match.record, 0))
    moves = [m for m in get_game("kuhn").solver.review_moves(match.record) if m.seat == 0]
    page = html.unescape(client.get(f"/matches/{match.pk}/?review=0").content.decode())
    summary = re.sub(
        r"<[^>]+>", "", re.search(r"data-review-summary[^>]*>(.*?)</p>", page, re.S)[1]
    )
    assert summary == (
        f"No decision of seat 1 (ann) was reviewed. Not reviewed: {len(moves)} moves the table "
        "played by default when time ran out."
    )
    assert "0 decisions" not in page and "0 were fine" not in page
    assert not SolveJob.objects.exists()  # nothing to solve for
    # a seat with no decision at all says that
    done = reviews.MatchReview(0, None, "done", review=reviews.review([], {}, 0), subject="You")
    from django.template.loader import render_to_string

    from games.matchpages import review_context

    empty = render_to_string("matches/_review.html", {"review": done, **review_context(done)})
    assert (
        "No decision of seat 1 (you) was reviewed: seat 1 made no decision in a finished hand."
        in empty
    )


def test_a_pending_review_counts_its_solves_in_words_that_agree_with_the_count():
    from django.template.loader import render_to_string

    from games.matchpages import review_context

    settings = reviews.review_settings("blackjack-pp", {"config": {"max_hits": 1}})
    for done, said in ((1, "1 of the 3 solves this review needs is done."),
                       (2, "2 of the 3 solves this review needs are done.")):  # fmt: skip
        solves_needed = [
            reviews.Solve(settings, state="done" if n < done else "waiting", queue={"position": 1})
            for n in range(3)
        ]
        shown = reviews.MatchReview(
            0, settings, "solving", review=reviews.review([], {}, 0), solves=solves_needed
        )
        page = render_to_string("matches/_review.html", {"review": shown, **review_context(shown)})
        assert said in page


def test_a_finished_table_offers_the_review_only_to_a_seat_with_a_decision_to_review():
    """The end of match 115's table offered "Review your play with the solver" to a person
    whose every move the table had played: a review of nothing."""
    from django.test import Client

    from games.live import tables

    ann, bob, table, told = finished_kuhn_table(lambda record: played_for_seat(record, 0))
    assert told["review"] == [1]  # what the pages at the table hear at its end
    for seat, person, offered in ((0, ann, False), (1, bob, True)):
        client = Client()
        client.force_login(person)
        page = client.get(f"/tables/{table.token}/").content.decode()
        assert ('id="end-review"' in page) is offered, seat
        assert [m["review"] for m in tables.end_of(table, seat) if m["type"] == "over"] == [[1]]
