"""The Django admin for moderation: bots, versions (reject / re-validate), tournaments, jobs
(re-queue), matches and ratings.

The lists of tables that grow with every match (jobs, matches, rating history) are read
as a site of a million matches needs: newest first by id (an index, not a sort of every
row), each row's related objects in the same query, no count of every row (the full
count is left out; Django then says "Show all" instead of how many), a match's record
(its whole replay) not read, and the game filter listing the site's games rather than
finding the distinct games of every row."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import transaction

from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    Rating,
    RatingHistory,
    Tournament,
)
from games.registry import game_slugs, get_game


class GameFilter(admin.SimpleListFilter):
    """By game, from the games the site has (not a DISTINCT over every row)."""

    title = "game"
    parameter_name = "game"

    def lookups(self, request, model_admin):
        return [(slug, get_game(slug).title) for slug in game_slugs()]

    def queryset(self, request, queryset):
        return queryset.filter(game=self.value()) if self.value() else queryset


class LongListAdmin(admin.ModelAdmin):
    """A list of a table that grows with the matches: newest first by id, no full count,
    and what its rows show read in the same query without the big fields (``list_defer``)
    the list does not show."""

    ordering = ("-id",)
    show_full_result_count = False
    #: fields the list leaves unread (a row's own page reads them)
    list_defer: tuple[str, ...] = ()

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        match = request.resolver_match
        if self.list_defer and match is not None and match.url_name.endswith("_changelist"):
            queryset = queryset.defer(*self.list_defer)
        return queryset


class VersionInline(admin.TabularInline):
    model = BotVersion
    fields = ("number", "status", "reason", "created", "checksum")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "game", "language", "created")
    list_filter = ("game", "language")
    search_fields = ("name", "owner__username")
    inlines = [VersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("bot", "number", "status", "reason", "created", "validated")
    list_filter = ("status", "bot__game")
    search_fields = ("bot__name", "bot__owner__username", "checksum")
    readonly_fields = ("bot", "number", "checksum", "created", "validated", "validation_log")
    actions = ["reject", "revalidate"]

    @admin.action(description="Reject (take out of competition)")
    def reject(self, request, queryset):
        n = queryset.exclude(status=BotVersion.REJECTED).update(
            status=BotVersion.REJECTED, reason=f"rejected by moderator {request.user}"
        )
        self.message_user(request, f"{n} version(s) rejected", messages.SUCCESS)

    @admin.action(description="Validate again (by a worker)")
    def revalidate(self, request, queryset):
        with transaction.atomic():
            n = queryset.exclude(status=BotVersion.ACTIVE).update(
                status=BotVersion.VALIDATING,
                reason="",
                validation_lease=None,
                validation_claims=0,
                validation_errors=0,
                validation_slow=False,
            )
        self.message_user(request, f"{n} version(s) queued for validation", messages.SUCCESS)


class JobInline(admin.TabularInline):
    model = MatchJob
    fields = ("round", "seats", "seed", "status", "attempts", "errors", "worker", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("__str__", "game", "format", "state", "created", "finished")
    list_filter = ("game", "format", "state")


@admin.register(MatchJob)
class MatchJobAdmin(LongListAdmin):
    list_display = (
        "pk",
        "tournament",
        "game",
        "status",
        "attempts",
        "errors",
        "worker",
        "lease_until",
    )
    list_filter = ("status", GameFilter)
    list_select_related = ("tournament",)
    list_defer = ("tournament__settings",)
    actions = ["requeue"]

    @admin.action(description="Queue again (failed jobs)")
    def requeue(self, request, queryset):
        failed = queryset.filter(status=MatchJob.FAILED).select_related("tournament")
        # a tournament whose seeds are shown has promised they never deal again
        shown = {job.pk for job in failed if job.tournament.seeds_shown()}
        n = failed.exclude(pk__in=shown).update(
            status=MatchJob.QUEUED, attempts=0, errors=0, error="", lease_until=None
        )
        self.message_user(request, f"{n} job(s) queued again", messages.SUCCESS)
        if shown:
            self.message_user(
                request,
                f"{len(shown)} job(s) left failed: their tournament is over and shows its"
                " seeds, which must never deal again (start a new tournament instead)",
                messages.WARNING,
            )


class SeatInline(admin.TabularInline):
    model = MatchSeat
    fields = ("seat", "bot", "version", "score", "fault_kind", "fault_reason")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(LongListAdmin):
    list_display = ("pk", "game", "tournament", "played", "duration_s", "rated", "worker")
    list_filter = (GameFilter,)
    list_select_related = ("tournament",)
    # a match's record is its whole replay: its own page reads it
    list_defer = ("record", "tournament__settings")
    readonly_fields = ("job", "tournament", "game", "seed", "record", "played", "worker")
    inlines = [SeatInline]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot", "game", "mu", "sigma", "matches", "updated")
    list_filter = ("game",)


@admin.register(RatingHistory)
class RatingHistoryAdmin(LongListAdmin):
    list_display = ("bot", "match", "mu_before", "mu", "sigma", "created")
    list_select_related = ("bot__owner", "match")
    list_defer = ("match__record",)


@admin.register(LeaderboardRow)
class LeaderboardRowAdmin(admin.ModelAdmin):
    list_display = ("game", "rank", "bot", "conservative", "mu", "sigma", "matches")
    list_filter = ("game",)
