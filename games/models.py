"""Live tables: who sits where, and what became of the match.

The match itself runs in a :class:`~games.live.host.TableHost` inside a web process; the
database holds the table's plan (seats, settings), its state, which process hosts it, and at
the end the stored :class:`~bots.models.Match` that its replay page shows.
"""

from __future__ import annotations

import secrets

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

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["game", "state"]),
            # the sweep of every web process: tables in play whose host stopped beating
            models.Index(fields=["state", "host_heartbeat"]),
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
    name = models.CharField(max_length=80, blank=True)
    builtin = models.CharField(max_length=40, blank=True)
    version = models.ForeignKey(
        "bots.BotVersion", models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_player_per_table_seat")
        ]

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
