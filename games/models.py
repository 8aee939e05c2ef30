"""Live tables: who sits where, and what became of the match.

The match itself runs in a :class:`~games.live.host.TableHost` inside a web process; the
database holds the table's plan (seats, settings), its state, which process hosts it, and at
the end the stored :class:`~bots.models.Match` that its replay page shows.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models


def new_token() -> str:
    return secrets.token_urlsafe(9)


class Table(models.Model):
    OPEN, PLAYING, FINISHED, ABANDONED = "open", "playing", "finished", "abandoned"
    STATES = [
        (OPEN, "waiting for players"),
        (PLAYING, "playing"),
        (FINISHED, "finished"),
        (ABANDONED, "abandoned"),
    ]

    #: the table's address in links (invite links too): not guessable from the id
    token = models.CharField(max_length=20, unique=True, default=new_token)
    game = models.SlugField(max_length=40)
    config = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    turn_timer = models.FloatField(default=30.0)
    state = models.CharField(max_length=10, choices=STATES, default=OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="tables"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    #: the channel of the web process whose host runs the match, and when it last said so
    host_channel = models.CharField(max_length=200, blank=True)
    host_heartbeat = models.DateTimeField(null=True, blank=True)
    match = models.OneToOneField(
        "bots.Match", models.SET_NULL, null=True, blank=True, related_name="table"
    )
    error = models.TextField(blank=True)
    #: the table this one was a rematch of ("play again")
    previous = models.ForeignKey("self", models.SET_NULL, null=True, blank=True)
    #: its match moves the ratings of the signed-in people at it (bots.ladder.people): chosen when
    #: the table is opened, on by default; a table with a guest at it is never rated
    rated = models.BooleanField(default=True)
    #: its opener unticked "Rated" (a friendly game by choice), which a rematch repeats; a
    #: table unrated for another reason (a guest at it, a bot that could not start, a guest
    #: or a game rating nobody opened it) has no say in its rematch ("play again")
    unrated_chosen = models.BooleanField(default=False)
    #: uploaded bots seated (each runs in a sandbox of its own while the table plays): what
    #: the limits on tables with uploaded bots count (games.live.tables.bot_table_refusal)
    bots = models.PositiveSmallIntegerField(default=0)
    #: every seat was taken when it was opened (its opener and bots): it only waits for its
    #: opener to come, so one with uploaded bots waits less (games.live.tables.FULL_BOT_TABLE_WAITS)
    opened_full = models.BooleanField(default=False)
    #: a keyed hash of the address a guest's table, or any table with an uploaded bot or a
    #: built-in bot that thinks for long, was opened from (no address is stored), for the
    #: limits per address and the turns to think (games.live.tables.thinking_share); "" for
    #: a signed-in person's table of people and quick built-in bots
    guest_address = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["game", "state"]),
            # the sweep of every web process: tables in play whose host stopped beating
            models.Index(fields=["state", "host_heartbeat"]),
            # the limits on tables (games.live.tables.table_refusal): the tables the guests
            # of one address opened lately, and a person's by who opened them
            models.Index(fields=["guest_address", "-created"], name="table_address_recent"),
            models.Index(fields=["created_by", "-created"], name="table_opener_recent"),
        ]

    def __str__(self) -> str:
        return f"table {self.token} ({self.game}, {self.state})"

    def get_absolute_url(self) -> str:
        return f"/tables/{self.token}/"


class TableSeat(models.Model):
    """A seat: a person (a user, or a guest known by the token in their session), a seat left
    open for another person, a built-in bot, or an uploaded bot's version."""

    PERSON, OPEN, BUILTIN, BOT = "person", "open", "builtin", "bot"
    KINDS = [
        (PERSON, "a person"),
        (OPEN, "open for another person"),
        (BUILTIN, "a built-in bot"),
        (BOT, "an uploaded bot"),
    ]

    table = models.ForeignKey(Table, models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=KINDS)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: a guest's secret (kept in their session); never shown to anyone else
    guest = models.CharField(max_length=64, blank=True)
    #: how the seat is shown (a person's username, a guest's name, a bot's): as long as a
    #: username may be
    name = models.CharField(max_length=150, blank=True)
    builtin = models.CharField(max_length=40, blank=True)
    version = models.ForeignKey(
        "bots.BotVersion", models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_player_per_table_seat")
        ]
        # a guest's seats, which the limits on tables count (games.live.tables.tables_of)
        indexes = [models.Index(fields=["guest"], name="table_seat_guest")]

    def __str__(self) -> str:
        return f"{self.table} seat {self.seat}: {self.kind} {self.name}"

    @property
    def is_person(self) -> bool:
        return self.kind in (self.PERSON, self.OPEN)

    @property
    def taken(self) -> bool:
        return self.kind != self.OPEN


class TableStep(models.Model):
    """One step of a table's match in play that decides what follows (an answer, a fault:
    games/engine/journal.py), appended as it happens: with the table's seed they are the
    match so far, which another web process resumes if the host's process dies. Forgotten
    once the match is stored (its record holds the whole log)."""

    table = models.ForeignKey(Table, models.CASCADE, related_name="+", db_index=False)
    #: the number of the runner's call this step answers
    index = models.PositiveIntegerField()
    step = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="one_step_per_table_call")
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} step {self.index}"


class SolveJob(models.Model):
    """One solve of the strategy explorer, queued in the database and run by a tournament
    worker (``games.solves``, docs/explorer.md). Its settings are its identity: one row per
    ``key``, so a solve asked twice (or by two people at once) is one job, and once done its
    result document is served from here by any web process.

    The claim works as a match job's does (``bots.models.MatchJob``): ``worker`` and
    ``attempts`` are the token every later write checks, the lease is extended by the
    worker's heartbeat, and a lease that runs out lets another worker take the solve."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(QUEUED, "queued"), (RUNNING, "running"), (DONE, "done"), (FAILED, "failed")]
    #: statuses of a solve that is not over
    OPEN = (QUEUED, RUNNING)

    #: the settings' key (``SolveSettings.key``: game, algorithm, iterations, each option as
    #: its ``SolverOption`` writes itself in a key) and its digest, the solve's id in addresses
    key = models.TextField()
    digest = models.CharField(max_length=16, unique=True)
    game = models.SlugField(max_length=40)
    algorithm = models.CharField(max_length=8)
    iterations = models.PositiveIntegerField()
    #: the game's own options, [name, value] pairs in its spec's order
    options = models.JSONField(default=list, blank=True)
    #: who queued it, for their share of the queue (``games.solves.Bounds``): a signed-in
    #: person, or a guest's client address as a keyed hash (``games.live.tables.address_key``,
    #: as live tables keep it); for a solve a match review queued, whoever's view of the match
    #: page did; neither for one queued otherwise (a command, or a review before reviews were
    #: counted)
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
    )
    asked_from = models.CharField(max_length=64, blank=True)
    #: queued by a match review (``games.reviews``) rather than by the explorer's form: the
    #: hourly count of new solves (``SOLVE_MAX_NEW_PER_HOUR``) is of the form's alone
    for_review = models.BooleanField(default=False)

    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    worker = models.CharField(max_length=120, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    #: where the worker has got to, written now and then while it solves (a bounded number of
    #: writes, see games.solves.Progress): waiting, building, training, measuring
    phase = models.CharField(max_length=10, default="waiting")
    iteration = models.PositiveIntegerField(default=0)
    train_seconds = models.FloatField(default=0.0)
    #: the last exploitability measured, [iteration, value]
    measured = models.JSONField(null=True, blank=True)

    #: the result: the same document as ``manage.py solve --json`` less its strategy (its
    #: ``infosets`` are empty here: they are kept in :class:`SolvePage` rows, a page at a
    #: time), as JSON text, and the bytes stored for it with its pages (at most
    #: SOLVE_MAX_RESULT_BYTES). Text rather than a JSONField: PostgreSQL's jsonb would
    #: reorder the keys, and the order is the document's (the download follows it); nothing
    #: queries inside it.
    result = models.TextField(blank=True)
    result_bytes = models.PositiveIntegerField(default=0)

    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    #: when someone last asked for it: the store keeps the SOLVE_KEEP most recently used
    used = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["status", "id"], name="solve_claim_order"),
            models.Index(fields=["-used"], name="solve_recent"),
        ]

    def __str__(self) -> str:
        return f"solve {self.digest} ({self.key}, {self.status})"


class SolvePage(models.Model):
    """One page of a done solve's strategy: the information sets its game keeps together
    (``SolverSpec.page_of``; a game without it has one page, ``""``), as zlib-compressed JSON
    ``{infoset key: {action: probability}}``. The explorer reads the pages of the situation
    it shows, never the whole strategy: Blackjack++ with 3 hits has 475,000 information sets
    in about 7,500 pages (29 MB of JSON, 2.9 MB stored). Written with the result, in the
    same transaction; deleted with its solve."""

    job = models.ForeignKey(SolveJob, on_delete=models.CASCADE, related_name="pages")
    #: the page's key, as ``SolverSpec.page_of`` names it (text: a game's keys may be long)
    key = models.TextField()
    data = models.BinaryField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["job", "key"], name="solve_page_key"),
        ]

    def __str__(self) -> str:
        return f"{self.job.digest} page {self.key!r}"


class PersonRating(models.Model):
    """A signed-in person's openskill rating in one game, from their rated table matches
    (``bots.ladder.people``), on the bots' scale; with their results and their rank among people.

    ``rank`` is 1, 2, ... by the conservative rating (mu - 3 sigma), kept by every rated
    match of the game (``bots.ladder.people.place``), so a leaderboard of people is paged by rank
    like the bots' is."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="person_ratings"
    )
    game = models.SlugField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField()
    rank = models.PositiveIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_person_game")
        ]
        indexes = [models.Index(fields=["game", "rank"], name="people_board_order")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game}: {self.mu:.2f} +/- {self.sigma:.2f}"


class PersonProfile(models.Model):
    """What a person chose about their public page (no row: the defaults). A hidden profile
    is shown to its owner only (to anyone else it is a 404 that says it is private), and the
    leaderboards of people show "a private player" in its place, at its rank, with its
    numbers: the ranking stays whole and agrees with what is shown."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, primary_key=True, related_name="person_profile"
    )
    hidden = models.BooleanField(default=False)
    changed = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {'hidden' if self.hidden else 'public'}"


def profile_hidden(user: Any) -> bool:
    """Whether ``user`` hides their profile (read from ``user.person_profile``: select it
    with the user to make this free)."""
    try:
        return bool(user.person_profile.hidden)
    except PersonProfile.DoesNotExist:
        return False


class PersonRatingHistory(models.Model):
    """One rated match of a person: their rating before and after it (the profile's chart)
    and how it went for them."""

    WON, DREW, LOST = "won", "drew", "lost"

    rating = models.ForeignKey(PersonRating, models.CASCADE, related_name="history")
    match = models.ForeignKey("bots.Match", models.CASCADE, related_name="+")
    #: its place in the person's history of the game (1 for the first): the chart reads its
    #: points by place, and the recent matches are paged by it
    number = models.PositiveIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    outcome = models.CharField(max_length=4)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rating", "number"], name="one_update_per_place"),
            models.UniqueConstraint(fields=["rating", "match"], name="one_update_per_match"),
        ]
        # a person's rated matches of the last hours: what the most rated matches a pair
        # of people may play each other counts (bots.ladder.people.pair_over_cap)
        indexes = [models.Index(fields=["rating", "created"], name="history_rating_recent")]
        verbose_name_plural = "person rating history"

    def __str__(self) -> str:
        return f"{self.rating_id} #{self.number}: {self.mu_before:.2f} -> {self.mu:.2f}"


class PeopleLedger(models.Model):
    """Per game: locked by every rated table match while it rates and re-ranks the game's
    people, so that two at once do not rank from what the other is changing."""

    game = models.SlugField(max_length=40, primary_key=True)

    def __str__(self) -> str:
        return f"people of {self.game}"
