"""A seed is shown only once it can never deal again (bots.models.Tournament.seeds_shown,
docs/competition.md): RPS Poker's, whose rules keep no card secret once a match is over, once
its tournament is over (a seed deals both seatings of a table); never a game's whose seeds a
later tournament deals again (UTH's placements), nor a game's whose rules keep cards secret."""

from __future__ import annotations

import json
import time

import pytest

from bots import competition
from bots.models import Match, MatchJob, Tournament
from bots.worker import Options, Worker
from games import records
from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.registry import get_game
from tests.games.matchmaking import builtin, builtins_of_alice_and_bob, enter


def play_one(tournament: Tournament) -> Match:
    """The tournament's first job, played and stored by the competition's own steps."""
    held = competition.claim("one-job", 60)
    assert held is not None and held.job.tournament_id == tournament.pk
    match = competition.store_result(held, competition.play_job(held.job))
    assert match is not None
    return Match.objects.select_related("tournament").get(pk=match.pk)


def shows(client, match: Match) -> dict[str, str]:
    """Every public answer about the match and its tournament, by address."""
    addresses = [
        f"/api/matches/{match.pk}/",
        f"/matches/{match.pk}/",
        f"/matches/{match.pk}/record.json",
        f"/matches/{match.pk}/replay.json",
        f"/api/tournaments/{match.tournament_id}/",
        f"/tournaments/{match.tournament_id}/",
    ]
    answers = {}
    for address in addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        answers[address] = response.content.decode()
    return answers


def has_outcomes(record: dict) -> bool:
    return any("outcome" in e for e in record["events"] if e["type"] == "chance")


@pytest.fixture
def rps_pair(db) -> Tournament:
    """A round robin of two RPS Poker bots: one table, played in both seatings (one seed)."""
    versions = builtins_of_alice_and_bob("rps-poker", "simple", "strong")
    tournament = competition.start_round_robin("rps-poker", 1, versions=versions)
    seeds = set(tournament.jobs.values_list("seed", flat=True))
    assert tournament.jobs.count() == 2 and len(seeds) == 1
    return tournament


def test_an_rps_poker_seed_is_secret_while_its_other_seating_is_to_be_played(client, rps_pair):
    first = play_one(rps_pair)
    secrets = [str(first.seed), str(rps_pair.settings["seed"])]
    answers = shows(client, first)
    for address, body in answers.items():
        assert not [s for s in secrets if s in body], address
    api = json.loads(answers[f"/api/matches/{first.pk}/"])
    download = json.loads(answers[f"/matches/{first.pk}/record.json"])
    for record in (api["record"], download):
        assert record["seed"] is None and not has_outcomes(record)
        assert record["result"] == first.record["result"]  # the rest is all there
    assert api["seed"] is None
    assert "left out until the tournament is over" in answers[f"/matches/{first.pk}/"]
    # manage.py replay of the download says why it does not replay, and when it will
    with pytest.raises(records.RecordError, match="again once the tournament is over"):
        records.replay(download, get_game("rps-poker"))
    # the replay is the table as it was: nothing of the seating still to come
    frames = json.loads(answers[f"/matches/{first.pk}/replay.json"])["frames"]
    assert frames and all(f["seats"] for f in frames)


def test_an_rps_poker_seed_is_shown_once_its_tournament_is_over(client, rps_pair):
    Worker(Options(validate=False), name="seeds").run(batch=True)
    rps_pair.refresh_from_db()
    assert rps_pair.state == Tournament.DONE and rps_pair.seeds_shown()
    for match in Match.objects.filter(tournament=rps_pair).select_related("tournament"):
        answers = shows(client, match)
        api = json.loads(answers[f"/api/matches/{match.pk}/"])
        assert api["seed"] == match.seed and api["record"] == match.record
        download = json.loads(answers[f"/matches/{match.pk}/record.json"])
        assert download == match.record and has_outcomes(download)
        assert records.replay(download, get_game("rps-poker"))["same_as_recorded"]
        assert f"<dt>Seed</dt><dd>{match.seed}</dd>" in answers[f"/matches/{match.pk}/"]
        settings = json.loads(answers[f"/api/tournaments/{rps_pair.pk}/"])["settings"]
        assert settings["seed"] == rps_pair.settings["seed"]
        assert f"<dd>{rps_pair.settings['seed']}</dd>" in answers[f"/tournaments/{rps_pair.pk}/"]


def test_a_one_seat_games_seeds_stay_secret_after_its_tournament(client, db):
    """UTH keeps cards secret for good (the dealer's of a folded round): its seeds are
    never shown."""
    versions = [
        enter("alice", "uth", "basic", builtin("uth", "basic")),
        enter("bob", "uth", "checker", builtin("uth", "always-check")),
    ]
    tournament = competition.start_round_robin("uth", 1, versions=versions)
    Worker(Options(validate=False), name="seeds").run(batch=True)
    tournament.refresh_from_db()
    assert tournament.state == Tournament.DONE and not tournament.seeds_shown()
    match = Match.objects.filter(tournament=tournament).select_related("tournament").first()
    secrets = [str(match.seed), str(tournament.settings["seed"])]
    for address, body in shows(client, match).items():
        assert not [s for s in secrets if s in body], address


def test_a_seed_given_for_a_new_tournament_must_be_its_own(db):
    versions = builtins_of_alice_and_bob("rps-poker", "simple", "strong")
    first = competition.start_round_robin("rps-poker", 1, seed=77, versions=versions)
    assert first.settings["seed"] == 77
    with pytest.raises(ValueError, match="seed 77 deals 1 deal\\(s\\) already dealt"):
        competition.start_round_robin("rps-poker", 1, seed=77, versions=versions)
    assert Tournament.objects.count() == 1 and MatchJob.objects.count() == 2
    # another game's tournament may have it: it deals other cards
    other = builtins_of_alice_and_bob("goofspiel", "matching", "random")
    competition.start_round_robin("goofspiel", 1, seed=77, versions=other)


def test_a_goofspiel_deal_cut_short_keeps_its_unturned_prizes_until_the_seed_is_shown(client, db):
    """The result lists each deal's prizes: of a deal a fault ended, the order of those never
    turned is the shuffle's, which the deal's other seating deals again."""
    game = get_game("goofspiel")
    bids = [["1", "2"], ["1", "2", "3"]]  # seat 0 runs out of answers on the third turn
    agents = [ScriptedAgent([int(b) for b in script]) for script in bids]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(6), agents, seed=6
    )
    record = json.loads(json.dumps(outcome.record))
    (cut,) = record["result"]["deal_log"]
    assert cut["forfeit"] == 0 and len(cut["turns"]) == 2 and len(cut["prizes"]) == 13
    tournament = Tournament.objects.create(game="goofspiel", state=Tournament.RUNNING)
    match = Match.objects.create(game="goofspiel", seed=6, record=record, tournament=tournament)
    for address in (f"/api/matches/{match.pk}/", f"/matches/{match.pk}/record.json"):
        answer = client.get(address).json()
        shown = answer.get("record", answer)["result"]["deal_log"][0]
        assert shown["prizes"] == cut["prizes"][:3]  # two turns, and the prize face up
        assert shown["turns"] == cut["turns"]
    Tournament.objects.filter(pk=tournament.pk).update(state=Tournament.DONE)
    answer = client.get(f"/api/matches/{match.pk}/").json()
    assert answer["record"] == record and answer["seed"] == 6
