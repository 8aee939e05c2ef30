"""Bots, their versions, tournaments, match jobs, matches, ratings and leaderboards.

The logic that moves these through their lives lives in plain modules, in rooms:
``bots.competition.uploads`` (new versions, validation), ``bots.competition`` (scheduling,
claiming and storing jobs), ``bots.ladder.ratings`` (openskill, leaderboard rows) and
``bots.worker`` (the loop).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


class Bot(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="bots")
    game = models.SlugField(max_length=40)
    name = models.CharField(max_length=60)
    language = models.CharField(max_length=20)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_name")
        ]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """The name shown on leaderboards: unique per game."""
        return f"{self.owner.get_username()}/{self.name}"

    def active_version(self) -> BotVersion | None:
        return self.versions.filter(status=BotVersion.ACTIVE).first()


class BotVersion(models.Model):
    VALIDATING, ACTIVE, REJECTED, RETIRED = "validating", "active", "rejected", "retired"
    STATUSES = [
        (VALIDATING, "validating"),
        (ACTIVE, "active"),
        (REJECTED, "rejected"),
        (RETIRED, "retired (replaced by a newer version)"),
    ]

    bot = models.ForeignKey(Bot, models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    code = models.TextField()
    checksum = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=12, choices=STATUSES, default=VALIDATING)
    reason = models.TextField(blank=True)
    validation_log = models.TextField(blank=True)
    validated = models.DateTimeField(null=True, blank=True)
    #: a worker validating this version holds it until then (validations are claimed too)
    validation_lease = models.DateTimeField(null=True, blank=True)
    #: how many times a worker took it for validation (its lease ran out, or it gave it back)
    validation_claims = models.PositiveIntegerField(default=0)
    #: validations that ended in an error of the platform's own (never a bot's fault: that
    #: rejects it); at WORKER_MAX_ATTEMPTS the version is rejected with the last error
    validation_errors = models.PositiveIntegerField(default=0)
    #: its first validation (every call held to the per-call time, no time bank) ran over the
    #: per-call time: it is validated again, in full, after the quick ones waiting (see
    #: bots.competition.uploads)
    validation_slow = models.BooleanField(default=False)
    #: when it was taken off the ladder for faulting in its rated matches after validation
    #: (``bots.competition.faults``: it is then ``rejected``, ``reason`` says why); None
    #: otherwise. Pages may say it was taken off; the reason is its owner's
    taken_off = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="version_unique_number"),
            models.UniqueConstraint(
                fields=["bot"], condition=Q(status="active"), name="one_active_version_per_bot"
            ),
        ]
        ordering = ["bot", "number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number} ({self.status})"

    @property
    def is_taken_off(self) -> bool:
        """Rejected after validation for faulting in its rated matches (not at validation, nor
        by a moderator): see ``bots.competition.faults``."""
        return self.status == self.REJECTED and self.taken_off is not None

    @staticmethod
    def checksum_of(code: str) -> str:
        return hashlib.sha256(code.encode()).hexdigest()

    @property
    def filename(self) -> str:
        from bots.languages import get_language

        return f"{self.bot.name}{get_language(self.bot.language).suffix}"


def game_title(slug: str) -> str:
    """A game's title ("Ultimate Texas Hold'em" for ``uth``), or its slug if the site no
    longer has it."""
    from games.registry import get_game

    try:
        return get_game(slug).title
    except KeyError:
        return slug


#: the account that owns the site's built-in bots entered into the competition
#: (``manage.py seed_builtins``); nobody can log in as it
HOUSE = "house"


def builtin_label(name: str) -> str:
    """What every page calls a built-in bot: the label of the house's entry of it on the
    leaderboards (``house/strong``, as :attr:`Bot.label` gives it), so that a person meets
    one name at a table, in the playground and on the leaderboard, entered or not.
    ``builtin:NAME`` stays the arena command's way to ask for one."""
    return f"{HOUSE}/{name}"


#: the end of a placement's name as stored before names left the version's status out
_STATUS_IN_NAME = re.compile(r" \((?:validating|active|rejected|retired)\)$")


def shown_tournament_name(name: str, game: str) -> str:
    """A tournament's name as pages show it: the game's title, never its slug ("uth ladder
    round" as "Ultimate Texas Hold'em ladder round"), and no version status that was true
    when the tournament began ("placement of ann/bot v1 (active)" as "... v1"); names stored
    that way by earlier releases read the same as new ones."""
    name = _STATUS_IN_NAME.sub("", name) if name.startswith("placement of ") else name
    if name.startswith(f"{game} "):
        name = game_title(game) + name[len(game) :]
    return name


class Tournament(models.Model):
    PENDING, RUNNING, DONE = "pending", "running", "done"
    STATES = [(PENDING, "pending"), (RUNNING, "running"), (DONE, "done")]
    #: formats: a full round robin started by an admin, the placement matches of a new
    #: version, the regular rounds every active bot plays
    ROUND_ROBIN, PLACEMENT, LADDER = "round-robin", "placement", "ladder"
    FORMATS = [(ROUND_ROBIN, "round robin"), (PLACEMENT, "placement"), (LADDER, "ladder round")]

    #: found through the index by game and id (Meta), which serves a lookup by game alone too
    game = models.SlugField(max_length=40, db_index=False)
    name = models.CharField(max_length=120, blank=True)
    format = models.CharField(max_length=20, choices=FORMATS, default=ROUND_ROBIN)
    #: rounds, seed, time control overrides...
    settings = models.JSONField(default=dict, blank=True)
    #: settings that are seeds: of the tournament's matches ("seed", "seeds"), and of the
    #: deals that placements made before fresh deals reused from earlier matches
    #: ("shared_deals", still in the settings of those placements)
    SEED_SETTINGS = ("seed", "seeds", "shared_deals")
    state = models.CharField(max_length=10, choices=STATES, default=PENDING)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        # the tournaments of one game, newest first (/tournaments/?game=, the API's too):
        # without it a rare game's page walks every tournament of the others
        indexes = [models.Index(fields=["game", "-id"], name="tournament_game_newest")]

    def __str__(self) -> str:
        return shown_tournament_name(self.name, self.game) or (
            f"{game_title(self.game)} {self.get_format_display()} #{self.pk}"
        )

    def seeds_shown(self) -> bool:
        """Whether anyone may see the seeds of this tournament: its settings' and each of
        its matches' (with the outcomes of their shuffles). Only where the game's seeds are
        public (its rules keep no card secret once a match is over), and only once they can
        never deal again:

        - the tournament is over: a seed deals its table once in every seating (the seats
          swapped, or rotated), so while the tournament runs, a seating still to be played
          may deal it again;
        - nothing deals them again: every tournament draws fresh deals, and a seed given by
          hand whose deals any earlier match job of the game dealt is refused
          (``bots.competition.fresh_deals``); the admin's "queue again" leaves out the jobs
          of a tournament whose seeds are shown (``bots.admin``).

        A seed shown lets anyone check the tournament's results: every match deals again
        from it exactly. See docs/competition.md."""
        from games.registry import get_game

        try:
            spec = get_game(self.game)
        except KeyError:  # a game this site no longer has
            return False
        return spec.state_class.seed_is_public and self.state == self.DONE

    def public_settings(self) -> dict:
        """The settings anyone may read: without any seed until :meth:`seeds_shown` (they
        would deal cards no one was shown, in this tournament or another that plays the
        same deals)."""
        if self.seeds_shown():
            return dict(self.settings)
        return {k: v for k, v in self.settings.items() if k not in self.SEED_SETTINGS}

    @property
    def worker_bound_s(self) -> float:
        """Seconds of worker time each bot may use in this tournament (0: no bound): its
        ``worker_s`` setting, fixed when it was scheduled, or for a tournament scheduled
        before there was one, WORKER_SECONDS_PER_BOT_PER_TOURNAMENT (see bots.competition)."""
        value = self.settings.get("worker_s")
        if not isinstance(value, int | float) or isinstance(value, bool):
            value = getattr(settings, "WORKER_SECONDS_PER_BOT_PER_TOURNAMENT", 0)
        return max(float(value), 0.0)

    @property
    def group(self) -> str:
        """The channel layer group that hears this tournament's progress."""
        return f"tournament-{self.pk}"


class MatchJob(models.Model):
    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(QUEUED, "queued"), (RUNNING, "running"), (DONE, "done"), (FAILED, "failed")]

    #: found through the index by tournament and status (Meta), which serves a lookup by
    #: tournament alone too
    tournament = models.ForeignKey(Tournament, models.CASCADE, related_name="jobs", db_index=False)
    #: found through the indexes by game and id (Meta), which serve a lookup by game alone too
    game = models.SlugField(max_length=40, db_index=False)
    round = models.PositiveIntegerField(default=0)
    #: the bot version in each seat, in seat order (ids of BotVersion)
    seats = models.JSONField()
    seed = models.BigIntegerField()
    #: placement matches go first
    priority = models.IntegerField(default=0)
    #: its place in its tournament's queue: jobs of the same priority are claimed turn by
    #: turn, so the placements of several new versions take turns instead of one waiting for
    #: all of another's (0 for every job of an ordinary round)
    turn = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    #: how many times a worker claimed it; with ``worker``, the token every later write checks
    #: (it only grows). Claims cost nothing: a worker that was killed or lost its database
    #: does not use up the job; only WORKER_MAX_CLAIMS, for a job that stops every worker
    #: that takes it, ends it.
    attempts = models.PositiveIntegerField(default=0)
    #: plays that ended in an error of the platform's own (a bot's faults are results, a lost
    #: worker or database is not counted): at WORKER_MAX_ATTEMPTS the job fails
    errors = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=120, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "-priority", "turn", "id"], name="job_claim_order"),
            # a tournament's jobs counted by status (bots.competition.counts) from the index
            # alone, without reading the rows of every job of the tournament (nor, for a
            # big one, the whole table)
            models.Index(fields=["tournament", "status"], name="job_tournament_status"),
            # whether a deal was dealt before (bots.competition.dealt_before): a new
            # tournament's deals never were
            models.Index(fields=["game", "seed"], name="job_game_seed"),
            # a game's jobs in job order past its rating ledger (bots.ladder.ratings), without
            # walking the other games' jobs
            models.Index(fields=["game", "id"], name="job_game_order"),
            # a game's queued and running jobs: whether it has any (a ladder round starts
            # only when it has none) and the first past its rating ledger, without reading
            # every job the game ever played
            models.Index(
                fields=["game", "id"],
                condition=Q(status__in=["queued", "running"]),
                name="job_game_open",
            ),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.game}, {self.status})"


class QueueDebt(models.Model):
    """The turns a bot's queued jobs of a tournament are owed (see
    ``bots.competition.push_back``): they are moved back together once the turns owed make
    up a hundredth of the jobs, so that a bot a little slower than the rest does not rewrite
    all its queued jobs after each of its matches."""

    tournament = models.ForeignKey(Tournament, models.CASCADE, related_name="queue_debts")
    #: the BotVersion's id, as a job's ``seats`` name it
    version = models.PositiveBigIntegerField()
    #: turns not yet added to the version's queued jobs
    owed = models.PositiveIntegerField(default=0)
    #: its queued jobs of the tournament when the turns owed were last added to them
    jobs = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "version"], name="queue_debt_once")
        ]

    def __str__(self) -> str:
        return f"{self.owed} turns owed by version {self.version} in {self.tournament_id}"


class RecordField(models.JSONField):
    """A JSONField for large JSON values that are inserted many rows at a time (match
    records: a worker stores its matches together).

    On PostgreSQL, Django inserts several rows through UNNEST, one array per column, and
    psycopg writes an array of JSON texts in Python, escaping every quote of every record
    with a regular expression's replacement template: for records of a few kilobytes, most of
    a batch's store. A field with a placeholder of its own makes Django insert the rows as
    VALUES, one parameter per cell, each quoted by libpq. The column is the same, and so are
    the migrations (``deconstruct`` names the plain JSONField)."""

    def get_placeholder(self, value: object, compiler: object, connection: object) -> str:
        return "%s"

    def deconstruct(self) -> tuple:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs


class Match(models.Model):
    #: one result per job, whatever happens to the workers; a live table's match has neither
    #: job nor tournament (``table`` is its games.Table)
    job = models.OneToOneField(
        MatchJob, models.CASCADE, related_name="match", null=True, blank=True
    )
    tournament = models.ForeignKey(
        Tournament, models.CASCADE, related_name="matches", null=True, blank=True
    )
    game = models.SlugField(max_length=40)
    seed = models.BigIntegerField()
    #: the full match record (config, seed, events, result, stats): replays come from it
    record = RecordField()
    played = models.DateTimeField(auto_now_add=True)
    duration_s = models.FloatField(default=0)
    worker = models.CharField(max_length=120, blank=True)
    #: ratings are applied in job order (see bots.ladder.ratings), so they do not depend on which
    #: worker finished first
    rated = models.BooleanField(default=False)
    #: why the ratings passed a tournament's match by for good (its deal's other seating was
    #: not played: bots.ladder.ratings.SEATING_LOST); "" while it is rated or waits its turn
    unrated = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-played"]
        verbose_name_plural = "matches"
        indexes = [
            # a tournament's latest matches without sorting all of them
            models.Index(fields=["tournament", "-id"], name="match_tournament_latest"),
            # the few matches still waiting for their ratings (a bot's page and /my/bots/
            # count them) without reading every match
            models.Index(
                fields=["id"], condition=Q(rated=False, job__isnull=False), name="match_unrated"
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    def deals_shown(self) -> bool:
        """Whether anyone may see what deals this match's cards: its seed and the outcomes
        of its shuffles. A tournament's match once the tournament's seeds are shown
        (:meth:`Tournament.seeds_shown`); a live table's (no tournament) where the game's
        seeds are public: its table's seed deals that one match, stored once it is over."""
        if self.tournament_id is not None:
            return self.tournament.seeds_shown()
        from games.registry import get_game

        try:
            return get_game(self.game).state_class.seed_is_public
        except KeyError:  # a game this site no longer has
            return False

    def public_record(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (None: anyone) may see of the match's record, the only record any
        page, download or API answer shows: what the game's rules let anyone see of it
        (``GameState.public_record``), without its seed and shuffles until
        :meth:`deals_shown`."""
        from games.engine.game import GameState, faults_shown
        from games.registry import get_game

        # the reasons of faults as anyone may see them: on one line, escaped, cut
        record = faults_shown(self.record)
        try:
            state_class = get_game(self.game).state_class
        except KeyError:  # a game this site no longer has: nothing that deals its cards
            return GameState.without_deals(record)
        public = state_class.public_record(record, seat)
        return public if self.deals_shown() else state_class.without_deals(public)


class MatchSeat(models.Model):
    """One seat of a match: a bot version, or at a live table a person (``user``, or a guest
    known only by ``name``)."""

    match = models.ForeignKey(Match, models.CASCADE, related_name="participants")
    seat = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(Bot, models.CASCADE, related_name="seats", null=True, blank=True)
    version = models.ForeignKey(
        BotVersion, models.CASCADE, related_name="seats", null=True, blank=True
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        models.SET_NULL,
        related_name="match_seats",
        null=True,
        blank=True,
    )
    #: how the seat is shown when it is not a bot version (a person, a guest): as long as a
    #: username may be
    name = models.CharField(max_length=150, blank=True)
    #: the built-in bot in this seat (at a live table), by its name
    builtin = models.CharField(max_length=40, blank=True)
    score = models.FloatField()
    fault_kind = models.CharField(max_length=20, blank=True)
    fault_reason = models.TextField(blank=True)
    #: what the bot wrote to stderr during the match (its end): for its owner only
    stderr = models.TextField(blank=True)
    #: milliseconds of worker time charged to the seat's bot for the match: its own share of
    #: the match's wall time, measured by the worker (bots.competition.charges); 0 at a
    #: live table
    worker_ms = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="one_bot_per_seat")]
        ordering = ["match", "seat"]
        #: a bot's latest matches (and the ones before a given match) without sorting all
        indexes = [models.Index(fields=["bot", "-match"], name="seat_bot_latest")]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}: {self.label}"

    @property
    def label(self) -> str:
        """owner/bot for a bot, the person's name otherwise."""
        return self.bot.label if self.bot_id is not None else self.name

    @property
    def fault_shown(self) -> str:
        """The fault's reason as anyone may see it: the bot wrote it (its exception's
        message), so on one line, its control and format characters escaped, cut
        (``untrusted.one_line``). Only its owner sees it as it was (the bot's page)."""
        from games.engine import untrusted

        return untrusted.one_line(self.fault_reason)

    @property
    def is_bot(self) -> bool:
        return self.bot_id is not None


class OpponentResult(models.Model):
    """A bot's results against one other bot in its tournament matches, kept up to date as
    they are stored (``bots.ladder.aggregates.record``): the bot page reads these instead of
    every match. Live tables are not counted (migration 0021 took them out)."""

    bot = models.ForeignKey(Bot, models.CASCADE, related_name="opponent_results")
    #: who the opponent is, unique per bot: ``bot:<id>``; ``name:<name shown>`` was a person,
    #: a guest or a built-in bot at a live table, before they were taken out (as long as
    #: ``name:`` and a username)
    key = models.CharField(max_length=160)
    opponent = models.ForeignKey(
        Bot, models.CASCADE, related_name="results_against", null=True, blank=True
    )
    #: the opponent's name when it is not a bot (as long as a username may be)
    name = models.CharField(max_length=150, blank=True)
    matches = models.PositiveIntegerField(default=0)
    #: who scored better in the match, by the game's own direction
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    points_for = models.FloatField(default=0)
    points_against = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "key"], name="one_result_per_opponent")
        ]
        indexes = [models.Index(fields=["bot", "-matches", "id"], name="opponent_results_order")]

    def __str__(self) -> str:
        return f"{self.bot} against {self.key}: {self.wins}-{self.draws}-{self.losses}"

    @property
    def label(self) -> str:
        return self.opponent.label if self.opponent_id is not None else self.name


class Rating(models.Model):
    """A bot's openskill rating (its versions share it; a new version widens sigma)."""

    bot = models.OneToOneField(Bot, models.CASCADE, related_name="rating")
    game = models.SlugField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.bot}: {self.mu:.2f} +/- {self.sigma:.2f}"

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


class RatingHistory(models.Model):
    bot = models.ForeignKey(Bot, models.CASCADE, related_name="rating_history")
    match = models.ForeignKey(Match, models.CASCADE, related_name="rating_changes", null=True)
    #: its place in the bot's history (1 for the first update): the bot page reads the rows
    #: its chart draws by place, whatever the length of the history
    number = models.PositiveIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["bot", "id"]
        verbose_name_plural = "rating history"
        indexes = [models.Index(fields=["bot", "number"], name="history_bot_number")]

    def __str__(self) -> str:
        return f"{self.bot}: {self.mu_before:.2f} -> {self.mu:.2f}"


class RatingLedger(models.Model):
    """Per game: every job up to ``rated_through`` is rated. Locked while rating."""

    game = models.SlugField(max_length=40, primary_key=True)
    rated_through = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.game}: rated through job {self.rated_through}"


class LeaderboardRow(models.Model):
    bot = models.OneToOneField(Bot, models.CASCADE, related_name="leaderboard_row")
    game = models.SlugField(max_length=40)
    #: 1, 2, ... among the bots competing now; 0 for a bot out of the ranking (retired: no
    #: active version), whose row and history stay
    rank = models.PositiveIntegerField(default=0)
    #: the rank is not settled yet: the bot's estimate is too uncertain, or its interval
    #: overlaps a neighbour's (games ranked by score; see Format.interval)
    provisional = models.BooleanField(default=False)
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    faults = models.PositiveIntegerField(default=0)
    #: the game's own numbers (its tournament format's bot_json: RPS Poker's games won and
    #: win rate...), shown through the format's columns
    score = models.JSONField(default=dict)
    #: the format's running totals, from which ``score`` is made
    standing = models.JSONField(default=dict)
    #: opponent label -> [points for, points against]
    last_played = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "rank"]
        indexes = [models.Index(fields=["game", "rank"], name="leaderboard_order")]

    def __str__(self) -> str:
        return f"{self.game} #{self.rank}: {self.bot}"


class PlaygroundRun(models.Model):
    """A bot tried in the playground (``bots.playground``, docs/playground.md): code pasted
    or uploaded by a person (a user, or a guest known by the token in their session), played
    by a worker in the sandbox against opponents they chose, outside the competition: no
    rating, leaderboard, :class:`Match` or result by opponent ever comes of it.

    The claim works as a match job's does: ``worker`` and ``attempts`` are the token every
    later write checks, the heartbeat extends the lease, and a run whose worker died is
    taken by another once the lease runs out (its matches played so far are kept)."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(QUEUED, "queued"), (RUNNING, "running"), (DONE, "done"), (FAILED, "failed")]
    #: statuses of a run that is not over
    OPEN = (QUEUED, RUNNING)

    #: the run's address: unguessable, so a run is seen by whoever was given its link
    key = models.CharField(max_length=32, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        models.CASCADE,
        related_name="playground_runs",
        null=True,
        blank=True,
    )
    #: a guest's token (``guest_token`` in their session; empty for a user)
    guest = models.CharField(max_length=64, blank=True)
    #: a guest's client address as a keyed hash (``games.live.tables.address_key``, as live
    #: tables keep it; empty for a user): guests from one address share a limit, whatever
    #: their sessions
    guest_address = models.CharField(max_length=64, blank=True)
    game = models.SlugField(max_length=40)
    language = models.CharField(max_length=20)
    code = models.TextField()
    #: the opponents, in the order chosen: {"builtin": name} or {"version": id}, each with
    #: the "name" it is shown by
    opponents = models.JSONField(default=list, blank=True)
    seed = models.BigIntegerField()
    matches = models.PositiveIntegerField()

    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    #: why a run failed, in words for the person who started it
    reason = models.TextField(blank=True)
    worker = models.CharField(max_length=120, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    #: matches played and stored so far
    played = models.PositiveIntegerField(default=0)
    #: the worker time the run may use, seconds (its person's limit when it was started; 0:
    #: none), and what it used so far: its stored matches (seating their bots included) and
    #: the check of its bot before the first (its compile and start)
    worker_seconds = models.PositiveIntegerField(default=0)
    worker_s = models.FloatField(default=0.0)

    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["status", "id"], name="playground_claim_order"),
            models.Index(fields=["user", "-created"], name="playground_user_recent"),
            models.Index(fields=["guest", "-created"], name="playground_guest_recent"),
            models.Index(fields=["guest_address", "-created"], name="playground_address_recent"),
            # the oldest finished runs, which the workers forget (bots.playground.forget_old)
            models.Index(fields=["finished", "id"], name="playground_forget_order"),
        ]

    def __str__(self) -> str:
        return f"playground run {self.pk} ({self.game}, {self.status})"


class PlaygroundMatch(models.Model):
    """One match of a playground run, stored as soon as it is played."""

    run = models.ForeignKey(PlaygroundRun, models.CASCADE, related_name="played_matches")
    #: 0, 1, ... in the order the run plays them
    number = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    #: the seat of the person's bot
    seat = models.PositiveSmallIntegerField()
    #: every seat in order: {"name", "score", "fault_kind", "fault_reason"}
    seats = models.JSONField(default=list)
    #: what the person's bot wrote to stderr during the match (its end, cleaned)
    stderr = models.TextField(blank=True)
    #: the match record, for the replay
    record = RecordField()
    duration_s = models.FloatField(default=0)
    played = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "number"]
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="playground_match_once")
        ]

    def __str__(self) -> str:
        return f"playground run {self.run_id} match {self.number}"


class TournamentResult(models.Model):
    """A bot's totals in one tournament (``opponent`` 0: its matches, points, faults and
    worker time), or its results there against one other bot (``opponent``: that bot's id;
    its matches, its points and the other's), kept up to date as matches are stored
    (``bots.ladder.aggregates.record``): a finished tournament's standings and cross table read
    these, a few rows, instead of every seat of its matches, and the worker reads a bot's
    worker time there before each of its matches."""

    tournament = models.ForeignKey(Tournament, models.CASCADE, related_name="kept_results")
    bot = models.ForeignKey(Bot, models.CASCADE, related_name="+")
    #: 0 for the bot's totals, else the id of the bot it met (no foreign key: a plain number
    #: keeps one row per pair unique and the totals' row in the same table)
    opponent = models.PositiveBigIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    points_for = models.FloatField(default=0)
    points_against = models.FloatField(default=0)
    faults = models.PositiveIntegerField(default=0)
    #: the totals' row: milliseconds of worker time the bot's matches of the tournament were
    #: charged (its seats' ``worker_ms``), which WORKER_SECONDS_PER_BOT_PER_TOURNAMENT bounds
    #: (bots.competition); 0 in the rows of pairs
    worker_ms = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "bot", "opponent"], name="one_tournament_result_per_pair"
            )
        ]
        indexes = [
            # the totals of a tournament's bots (opponent 0) without walking its pairs
            models.Index(fields=["tournament", "opponent"], name="tournament_totals"),
            # a bot's latest tournaments (its worker time there, on its page)
            models.Index(fields=["bot", "opponent", "-tournament"], name="tournament_result_bot"),
        ]

    def __str__(self) -> str:
        return f"{self.bot} in {self.tournament_id} against {self.opponent or 'all'}"
