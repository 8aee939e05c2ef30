"""Pages of live tables: each game's lobby (open tables, tables being played, the form that
creates one, one-click play against a bot), the table page that ``static/js/table.js`` draws
live from the websocket, and the POSTs that join a table or ask for a rematch.

The rules of tables (who may sit where, which bots, timers) live in
:mod:`games.live.tables`; its :class:`~games.live.tables.TableError` messages are shown to the
person as they are. A guest needs no account: the first seat they take gives their session a
guest token (``person_of(..., create=True)``), kept in their session once the table or seat
is made (``keep_guest``): a refused request stores no session.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django import forms
from django.contrib import messages
from django.db.models import Case, Exists, F, OuterRef, Prefetch, QuerySet, Value, When, Window
from django.db.models.functions import RowNumber
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from bots.ladder import people
from bots.models import BotVersion, builtin_label
from cardsite.accounts import client_ip
from games import replays, reviews
from games.engine.table import TableOption, TableRules, shown_names
from games.live import tables
from games.live.host import message_text
from games.live.hub import lobby_group
from games.models import Table, TableSeat
from games.people_views import person_url
from games.registry import GameSpec, game_slugs, get_game

#: tables the lobby lists in each section
LOBBY_LIMIT = 25
#: tables of one opener the lobby lists in each section at most (a signed-in person, or the
#: guests of one address together), so that one client cannot push everyone else's out
LOBBY_PER_OPENER = 3
#: an open table nobody joined for this long is no longer offered in the lobby (nor starts)
OPEN_FOR = tables.TABLE_WAITS
#: the most seats the form reads (the rules refuse more than a game allows, with a message)
MOST_SEATS = 16


def table_options(spec: GameSpec) -> tuple[TableOption, ...]:
    return tuple(spec.table().options) if spec.table is not None else ()


def table_game(slug: str) -> GameSpec:
    """A game that can be played at a live table, or 404."""
    if slug not in game_slugs():
        raise Http404(f"no game {slug!r}")
    spec = get_game(slug)
    if spec.table is None:
        raise Http404(f"{spec.title} cannot be played at a live table yet")
    return spec


def strongest(spec: GameSpec) -> str:
    """The built-in bot "Play against a bot" seats: the game's strongest."""
    return spec.strongest


def quick_seats(spec: GameSpec) -> list[str]:
    """You against the game's strongest built-in bot (at Last Card, three of them)."""
    others = spec.state_class.max_seats - 1
    return ["me", *[f"builtin:{strongest(spec)}"] * others]


# ---- the create form ------------------------------------------------------------------------
#: a seat's choice "an uploaded bot", named in the text field beside it (``seat_N_bot``)
UPLOADED = "bot"
#: the uploaded bots suggested as a person types a seat's bot, best rated first: any other
#: active bot is taken by its name too (the game may have thousands; every seat's menu listed
#: them all, and each page read every one's code)
SUGGESTED_BOTS = 50


def seat_choices(spec: GameSpec, uploaded: bool) -> list[Any]:
    """A seat's menu: me, an open seat, each built-in bot, and where the game has uploaded
    bots, one choice for any of them (``uploaded``), named in the field beside it."""
    choices: list[Any] = [("me", "Me"), ("open", "Open: another person joins")]
    choices.append(
        ("Built-in bots", [(f"builtin:{name}", builtin_label(name)) for name in spec.builtin_names])
    )
    if uploaded:
        # (a table with one is friendly: tables.BOT_UNRATED, under the form's Rated box)
        rated = people.game_rates_people(spec.slug)
        choices.append((UPLOADED, "Uploaded bot (not rated)" if rated else "Uploaded bot"))
    return choices


@cache
def builtin_checksums(slug: str) -> frozenset[str]:
    """The checksums of the game's built-in bots' code (as BotVersion.checksum_of makes them)."""
    spec = get_game(slug)
    return frozenset(
        BotVersion.checksum_of(spec.builtin_path(name).read_text()) for name in spec.builtin_names
    )


def _uploaded(slug: str) -> QuerySet[BotVersion]:
    """The game's active uploaded versions, with their bot's name and owner and nothing else
    (never their code: up to BOT_MAX_CODE_BYTES each). The site's own copy of a built-in bot
    (entered to be ranked) is left out: it is offered as the built-in."""
    return (
        BotVersion.objects.filter(status=BotVersion.ACTIVE, bot__game=slug)
        .exclude(checksum__in=builtin_checksums(slug))
        .select_related("bot", "bot__owner")
        .only("pk", "bot__name", "bot__owner__username")
    )


def suggested_bots(slug: str, limit: int = SUGGESTED_BOTS) -> list[str]:
    """The names (``owner/name``) of the game's ``limit`` best-ranked active uploaded bots,
    then the unranked ones by name: what a seat's bot field suggests."""
    ranked = Case(
        When(bot__leaderboard_row__rank__gt=0, then=F("bot__leaderboard_row__rank")),
        default=None,
    )
    rows = _uploaded(slug).order_by(
        ranked.asc(nulls_last=True), "bot__owner__username", "bot__name"
    )[:limit]
    return [v.bot.label for v in rows]


def uploaded_seat(spec: GameSpec, name: str) -> str:
    """The seat choice (``bot:VERSION_ID``) of the active uploaded bot named ``name``
    (``owner/name``, as the leaderboard shows it), or of the built-in bot the leaderboard
    calls so (``house/strong``). Raises ValidationError with what to type instead."""
    name = name.strip()
    if not name:
        raise forms.ValidationError(
            "Type the name of the uploaded bot, as the leaderboard shows it: owner/name."
        )
    for builtin in spec.builtin_names:
        if builtin_label(builtin) == name:
            return f"builtin:{builtin}"
    owner, _, bot = name.partition("/")
    named = _uploaded(spec.slug).filter(bot__name=bot.strip())
    found = list(named.filter(bot__owner__username=owner.strip())[:1]) or list(
        named.filter(bot__owner__username__iexact=owner.strip())[:2]
    )
    if len(found) != 1:
        raise forms.ValidationError(
            f"No active {spec.title} bot is named \u201c{name}\u201d. Type its name as the "
            "leaderboard shows it: owner/name."
        )
    return f"bot:{found[0].pk}"


class TableForm(forms.Form):
    """Who sits where and the table's settings. The fields only read the request; every rule
    (seat count, which bots, timers, rounds) is checked by ``tables.create_table``, whose
    message the person sees."""

    players = forms.IntegerField(label="Players", min_value=1, max_value=MOST_SEATS)
    turn_timer = forms.FloatField(
        label="Turn timer",
        help_text="Seconds each person has to act; then the safe default is played for them.",
    )
    rated = forms.BooleanField(
        label="Rated",
        required=False,
        help_text=(
            "The match moves the ratings of the logged-in people at the table (never a "
            "bot's). A table with a guest or an uploaded bot at it is not rated."
        ),
    )

    def __init__(
        self,
        spec: GameSpec,
        suggested: list[str],
        *args: Any,
        unrated: str = "",
        **kw: Any,
    ):
        """``suggested``: the uploaded bots a seat's bot field suggests (:func:`suggested_bots`;
        none: the game has no uploaded bot, and the seats offer none). ``unrated``: why this
        person's table cannot be rated (``tables.unrated_reason``): the box is then unticked
        and disabled, with the reason, and what is posted for it is ignored."""
        super().__init__(*args, **kw)
        self.spec = spec
        self.suggested = suggested
        if unrated:
            rated = self.fields["rated"]
            rated.disabled = True
            rated.initial = False
            rated.help_text = unrated
        low, high = spec.state_class.min_seats, spec.state_class.max_seats
        self.fields["players"].widget = forms.Select(
            choices=[(n, str(n)) for n in range(low, high + 1)]
        )
        if low == high:
            self.fields["players"].widget = forms.HiddenInput()
        self.fields["turn_timer"].widget = forms.Select(
            choices=[(t, f"{t:g} seconds") for t in tables.TURN_TIMERS]
        )
        choices = seat_choices(spec, bool(suggested))
        for n in range(high):
            field = forms.CharField(
                label=f"Seat {n + 1}", required=False, widget=forms.Select(choices=choices)
            )
            if n >= low:
                field.help_text = f"Used when there are {n + 1} or more players."
            self.fields[f"seat_{n}"] = field
            if suggested:
                self.fields[f"seat_{n}_bot"] = forms.CharField(
                    label=f"Uploaded bot in seat {n + 1}",
                    required=False,
                    max_length=200,
                    help_text=(
                        "Any active bot, by its name on the leaderboard (owner/name); the "
                        f"{len(suggested)} best ranked are suggested as you type."
                    ),
                    widget=forms.TextInput(
                        attrs={
                            "list": "uploaded-bots",
                            "placeholder": "owner/name",
                            "autocomplete": "off",
                            "autocapitalize": "none",
                            "spellcheck": "false",
                        }
                    ),
                )
        for option in table_options(spec):
            self.fields[option.name] = forms.TypedChoiceField(
                label=option.label,
                choices=list(option.choices),
                coerce=type(option.default),
                help_text=option.help,
                error_messages={"invalid_choice": option.refusal},
            )

    @property
    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{n}"] for n in range(self.spec.state_class.max_seats)]

    @property
    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField | None]]:
        """Each seat's menu, with the field that names its uploaded bot (None where the game
        has none)."""
        rows = []
        for n, seat in enumerate(self.seat_fields):
            bot = f"seat_{n}_bot"
            rows.append((seat, self[bot] if bot in self.fields else None))
        return rows

    @property
    def setting_fields(self) -> list[forms.BoundField]:
        names = ["turn_timer", *(option.name for option in table_options(self.spec)), "rated"]
        return [self[name] for name in names if name in self.fields]

    def clean(self) -> dict[str, Any]:
        """The seats (:meth:`seats`): an uploaded bot's name is looked up, and a name of no
        active bot is refused beside it."""
        cleaned = super().clean()
        players = cleaned.get("players")
        self.chosen: list[str] = []
        for n in range(players or 0):
            choice = str(self.data.get(f"seat_{n}", "")).strip()
            if choice == UPLOADED:
                try:
                    choice = uploaded_seat(self.spec, str(self.data.get(f"seat_{n}_bot", "")))
                except forms.ValidationError as exc:
                    known = f"seat_{n}_bot" in self.fields
                    self.add_error(f"seat_{n}_bot" if known else None, exc)
            self.chosen.append(choice)
        return cleaned

    def seats(self) -> list[str]:
        """The seat choices, one per player (read from the request even past the form's
        fields, so that too many players is refused by the rules, with their message): "me",
        "open", "builtin:NAME" or "bot:VERSION_ID" (an uploaded bot chosen by its name)."""
        return self.chosen

    def config(self) -> dict[str, Any]:
        return {option.name: self.cleaned_data[option.name] for option in table_options(self.spec)}


def initial_form(spec: GameSpec, suggested: list[str], unrated: str = "") -> TableForm:
    initial: dict[str, Any] = {
        "players": spec.state_class.max_seats,
        "turn_timer": 30.0,
        "rated": not unrated,
    }
    for n in range(spec.state_class.max_seats):
        initial[f"seat_{n}"] = "me" if n == 0 else f"builtin:{strongest(spec)}"
    initial |= {option.name: option.default for option in table_options(spec)}
    return TableForm(spec, suggested, initial=initial, unrated=unrated)


# ---- the lobby ------------------------------------------------------------------------------
def _few_per_opener(rows: QuerySet[Table], newest: str) -> QuerySet[Table]:
    """The newest :data:`LOBBY_PER_OPENER` of ``rows`` (by ``newest``) of each opener: a
    signed-in person's tables by the person, a guest's by their address (a session is free
    to make, an address is not)."""
    # (a signed-in person's table with uploaded bots keeps their address too: not theirs apart)
    guests = Case(When(created_by__isnull=True, then=F("guest_address")), default=Value(""))
    rank = Window(
        RowNumber(),
        partition_by=[F("created_by_id"), guests],
        order_by=F(newest).desc(),
    )
    return rows.annotate(opener_rank=rank).filter(opener_rank__lte=LOBBY_PER_OPENER)


def _lobby_tables(slug: str) -> tuple[list[Table], list[Table]]:
    # (person_hidden: the lobby names a person who hides their profile without a link to it)
    seats = Prefetch("seats", queryset=_seats_with_profiles())
    now = timezone.now()
    free = TableSeat.objects.filter(table=OuterRef("pk"), kind=TableSeat.OPEN)
    waiting = _few_per_opener(
        Table.objects.filter(game=slug, state=Table.OPEN, created__gte=now - OPEN_FOR)
        # one with uploaded bots no longer starts after a while (tables.BOT_TABLE_WAITS)
        .exclude(bots__gt=0, created__lt=now - tables.BOT_TABLE_WAITS)
        .filter(Exists(free)),
        "created",
    )
    playing = _few_per_opener(Table.objects.filter(game=slug, state=Table.PLAYING), "started")
    waiting = waiting.prefetch_related(seats).order_by("-created")[:LOBBY_LIMIT]
    playing = playing.prefetch_related(seats).order_by("-started")[:LOBBY_LIMIT]
    return list(waiting), [t for t in playing if not tables.is_stale(t)]


def your_tables(person: tables.Person | None) -> list[dict[str, Any]]:
    """The tables open or being played where ``person`` sits, in every game, newest first:
    what the lobby lists at its top (and what the limit on tables tells them to finish or
    leave)."""
    rows = tables.tables_of(person).order_by("-created")
    return [
        {"table": t, "game": get_game(t.game), "waiting": t.state == Table.OPEN}
        for t in rows
        if t.game in game_slugs()
    ]


def tables_index(request: HttpRequest) -> HttpResponse:
    """Every game with live tables: how many wait for players and how many are playing, and
    the way to each lobby."""
    listed = []
    for slug in game_slugs():
        spec = get_game(slug)
        if spec.table is None:
            continue
        waiting, playing = _lobby_tables(slug)
        listed.append({"spec": spec, "waiting": waiting, "playing": len(playing)})
    return render(request, "tables/index.html", {"games": listed})


@require_http_methods(["GET", "POST"])
def lobby(request: HttpRequest, slug: str) -> HttpResponse:
    spec = table_game(slug)
    suggested = suggested_bots(slug)
    person = tables.person_of(request.user, request.session)
    unrated = tables.unrated_reason(slug, person)
    if request.method == "POST":
        form = TableForm(spec, suggested, request.POST, unrated=unrated)
        status = 400
        if form.is_valid():
            person = tables.person_of(request.user, request.session, create=True)
            assert person is not None
            try:
                table = tables.create_table(
                    slug,
                    person,
                    form.seats(),
                    turn_timer=form.cleaned_data["turn_timer"],
                    config=form.config(),
                    rated=form.cleaned_data["rated"],
                    address=client_ip(request),
                )
            except tables.TableError as exc:
                form.add_error(None, str(exc))
                if isinstance(exc, tables.TableLimitError):
                    status = 429
            else:
                tables.keep_guest(request.session, person)
                return redirect(table.get_absolute_url())
    else:
        form = initial_form(spec, suggested, unrated)
        status = 200
    return _lobby_page(request, spec, form, unrated, status=status)


def _lobby_page(
    request: HttpRequest,
    spec: GameSpec,
    form: TableForm,
    unrated: str,
    *,
    status: int = 200,
    quick_error: str = "",
) -> HttpResponse:
    waiting, playing = _lobby_tables(spec.slug)
    person = tables.person_of(request.user, request.session)
    return render(
        request,
        "tables/lobby.html",
        {
            "game": spec,
            "form": form,
            "waiting": [_listed(t, person) for t in waiting],
            "playing": [_listed(t, person) for t in playing],
            "yours": your_tables(person),
            "per_person": tables.TableLimits.from_settings().per_person,
            "quick_opponents": _quick_label(spec),
            # the one-click table is rated where this person's table can be
            "quick_unrated": unrated,
            # a table with an uploaded bot is friendly: said before one is chosen
            "bot_unrated": tables.BOT_UNRATED if not unrated and form.seat_fields else "",
            "quick_error": quick_error,
        },
        status=status,
    )


def _listed(table: Table, person: tables.Person | None) -> dict[str, Any]:
    seats = list(table.seats.all())
    return {
        "table": table,
        "seats": seats,
        "mine": tables.seat_of(table, person) is not None,
    }


def _quick_label(spec: GameSpec) -> str:
    others = spec.state_class.max_seats - 1
    if others == 0:
        return "the dealer"
    name = builtin_label(strongest(spec))
    return name if others == 1 else f"{others} {name} bots"


@require_POST
def quick_play(request: HttpRequest, slug: str) -> HttpResponse:
    """One click against the strongest built-in bot; a refusal (a limit on tables) is shown
    by the button, on the lobby, with the person's open tables listed above it."""
    spec = table_game(slug)
    person = tables.person_of(request.user, request.session, create=True)
    assert person is not None
    try:
        table = tables.create_table(
            slug, person, quick_seats(spec), turn_timer=30.0, address=client_ip(request)
        )
    except tables.TableError as exc:
        unrated = tables.unrated_reason(slug, person)
        form = initial_form(spec, suggested_bots(slug), unrated)
        status = 429 if isinstance(exc, tables.TableLimitError) else 400
        return _lobby_page(request, spec, form, unrated, status=status, quick_error=str(exc))
    tables.keep_guest(request.session, person)
    return redirect(table.get_absolute_url())


# ---- one table ------------------------------------------------------------------------------
def _seats_with_profiles() -> QuerySet[TableSeat]:
    """A table's seats in order, each with ``person_hidden``: whether its person hides their
    profile (True), so that pages name them without a link to it; in the seats' own query."""
    return TableSeat.objects.order_by("seat").annotate(
        person_hidden=F("user__person_profile__hidden")
    )


def _table(token: str) -> Table:
    seats = _seats_with_profiles()
    return get_object_or_404(
        Table.objects.select_related("match").prefetch_related(Prefetch("seats", queryset=seats)),
        token=token,
    )


@cache
def card_views(slug: str) -> dict[str, dict[str, Any]]:
    """Every card a table of the game may show, described as the replays describe them, so
    the script draws them exactly like the replay viewer and ``includes/card.html``."""
    return {code: replays.card_view(code) for code in get_game(slug).card_codes}


def table_page(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(token)
    spec = get_game(table.game)
    seats = list(table.seats.all())
    table.seat_rows = seats  # type: ignore[attr-defined]  # (tables.seats_of: no query again)
    person = tables.person_of(request.user, request.session)
    seat = tables.seat_of(table, person)
    result = table.match.record.get("result", {}) if table.match is not None else None
    scores = (result or {}).get("scores") or []
    names = [s.name or ("open seat" if s.kind == TableSeat.OPEN else f"seat {s.seat + 1}")
             for s in seats]  # fmt: skip
    shown = shown_names(names)
    rules = spec.table() if spec.table is not None else TableRules()
    # each final score as the end line beside it writes it ("+7" for a gain in a chip game)
    listed = [
        {"seat": s, "score": rules.score_text(scores[s.seat]) if s.seat < len(scores) else None}
        for s in seats
    ]
    ended = table.state in (Table.FINISHED, Table.ABANDONED)
    setup: dict[str, Any] = {
        "token": table.token,
        "game": table.game,
        "state": table.state,
        "seat": seat,
        "names": names,
        "turnTimer": table.turn_timer,
        "defaultAction": spec.table().default_action_text if spec.table else "",
        # the script writes the final scores as score_text does
        "signedScores": rules.signed_scores,
        "cards": card_views(table.game),
        "ws": f"/ws/tables/{table.token}/",
    }
    # a signed-in player's profile, where a rated table's end says their rating is
    profile = person_url(request.user.get_username()) if seat is not None and person and \
        person.user is not None else ""  # fmt: skip
    setup["profile"] = profile
    if table.state == Table.FINISHED and table.match is not None:
        # the table as the seat (or a spectator) saw it end, with its log: the script draws
        # it as it drew the last view of the live match (the end panel is drawn here)
        setup["view"] = next((m for m in tables.end_of(table, seat) if m["type"] == "state"), None)
    return render(
        request,
        "tables/table.html",
        {
            "game": spec,
            "table": table,
            "seats": listed,
            "my_seat": seat,
            # the end's "Review your play with the solver", for a match the solver reviews
            # (once it is over: where the seat made a decision its review judges)
            "reviewable": seat is not None
            and reviewable(table)
            and (
                table.match is None
                or seat in reviews.seats_to_review(table.game, table.match.record)
            ),
            "can_join": table.state == Table.OPEN and seat is None,
            "waiting": table.state == Table.OPEN and any(s.kind == TableSeat.OPEN for s in seats),
            "ended": ended,
            # an abandoned table stored no match: none was rated, whatever it was opened as;
            # one with an uploaded bot opened rated before they made tables friendly is not
            "rated": table.rated
            and table.state != Table.ABANDONED
            and (table.state == Table.FINISHED or not table.bots),
            "result": result,
            "summary": _summary(table.game, result, shown, seat) if result else "",
            "invite_url": request.build_absolute_uri(table.get_absolute_url()),
            "setup": setup,
            "rules": _config_text(table),
            # why a table that could have been rated is not (a guest, an uploaded bot, two
            # people who played the most rated tables together today)
            "unrated_note": unrated_note(table, seats),
            "profile_url": profile,
            "rated_link": bool(profile)
            and table.state == Table.FINISHED
            and table.match is not None
            and table.rated,
            # a rematch another person opened, waiting with this person's seat open
            "rematch": tables.rematch_offer(table, seat) if ended else None,
            # a guest who may take a seat at a rated table is told it would no longer be
            "guest_unrates": table.rated and not request.user.is_authenticated,
        },
    )


def reviewable(table: Table) -> bool:
    """Whether the solver reviews the match of ``table``: a game it reviews, with the
    table's settings it reviews (Blackjack++ of 1 hit only: ``SolverSpec.review_options``)."""
    if not reviews.reviewable(table.game):
        return False
    return not isinstance(reviews.review_settings(table.game, {"config": table.config}), str)


#: what a rated table's page says once a guest sat down at it (the note its sockets hear
#: then, and the line under the header of the page drawn afterwards)
GUEST_UNRATED = "Unrated: a guest sat down, and a table with a guest at it is not rated."


def unrated_note(table: Table, seats: list[TableSeat]) -> str:
    """The line under a table's header that says why it is not rated, where it could have
    been ("": it is rated, or friendly by choice, or in a game that rates nobody): an
    uploaded bot sits at it (said before it starts: ``tables.BOT_UNRATED``), two people at it
    played the most rated tables together (its ``error`` says so from the moment the second
    sat down: ``tables.take_seat``; a finished table's end says it already), or a guest."""
    if table.rated or table.unrated_chosen or not people.game_rates_people(table.game):
        return ""
    if table.bots and table.created_by_id is not None and table.state != Table.ABANDONED:
        return tables.BOT_UNRATED
    if table.error and table.state in (Table.OPEN, Table.PLAYING):
        return table.error
    return GUEST_UNRATED if unrated_by_guest(table, seats) else ""


def unrated_by_guest(table: Table, seats: list[TableSeat]) -> bool:
    """Whether ``table`` is unrated only because a guest sat down at it: opened rated by a
    signed-in person in a game that rates people (not a friendly game by choice, nor a bot
    that could not start), with a guest in one of its seats."""
    return (
        not table.rated
        and not table.unrated_chosen
        and not table.error
        and table.created_by_id is not None
        and people.game_rates_people(table.game)
        and any(s.kind == TableSeat.PERSON and s.user_id is None for s in seats)
    )


def _config_text(table: Table) -> str:
    """The table's settings in words; whether it is rated follows in the page's header, apart,
    as it can change while the page is open (a guest sits down) and its script then says so."""
    parts = [f"turn timer {table.turn_timer:g} seconds"]
    spec = get_game(table.game)
    if spec.table is not None:
        parts += spec.table().describe(table.config or {})
    return ", ".join(parts)


def _summary(game: str, result: dict[str, Any], names: list[str], mine: int | None) -> str:
    """The end of a stored match in one sentence (the script writes the same live)."""
    spec = get_game(game)
    rules = spec.table() if spec.table is not None else TableRules()
    return rules.ending(result, names, mine)


@require_POST
def join(request: HttpRequest, token: str, seat: int) -> HttpResponse:
    table = _table(token)
    person = tables.person_of(request.user, request.session, create=True)
    assert person is not None
    try:
        taken = tables.take_seat(table, seat, person)
    except tables.TableError as exc:
        messages.error(request, f"You could not sit down: {exc}.")
        return redirect(table.get_absolute_url())
    tables.keep_guest(request.session, person)
    _seated(table, person, taken)
    said = f"You sit in seat {seat + 1}."
    if taken.pair_note:  # type: ignore[attr-defined]
        said = f"{said} {taken.pair_note}"  # type: ignore[attr-defined]
    messages.success(request, said)
    return redirect(table.get_absolute_url())


def _seated(table: Table, person: tables.Person, taken: TableSeat | None = None) -> None:
    """Tell every socket of ``table`` that ``person`` sat down (a full table starts)."""
    layer = get_channel_layer()
    said = None
    if table.rated and person.user is None:
        # a guest made the rated table unrated (tables.take_seat): its header says "unrated"
        # as the lobby message arrives, and this line in the log of every page at it says why
        said = {"type": "note", "key": "guest-unrated", "text": GUEST_UNRATED}
    elif table.rated and taken is not None and getattr(taken, "pair_note", ""):
        # two people at it played the most rated tables together today: the same, for them
        table.refresh_from_db(fields=["error"])
        said = {"type": "note", "key": "pair-unrated", "text": table.error}
    if said is not None:
        async_to_sync(layer.group_send)(
            lobby_group(table.pk), {"type": "table.message", "text": message_text(said)}
        )
    # every socket of the table hears of it; a full table starts
    async_to_sync(layer.group_send)(lobby_group(table.pk), {"type": "table.lobby"})


@require_POST
def leave(request: HttpRequest, token: str) -> HttpResponse:
    """Give up one's seat at a table still waiting for players (the last to leave closes
    it), and go back to the game's lobby."""
    table = _table(token)
    person = tables.person_of(request.user, request.session)
    try:
        closed = tables.leave_table(table, person)
    except tables.TableError as exc:
        messages.error(request, f"You could not leave: {exc}.")
        return redirect(table.get_absolute_url())
    # every socket of the table hears of it (a table nobody is left at shows that it closed)
    async_to_sync(get_channel_layer().group_send)(lobby_group(table.pk), {"type": "table.lobby"})
    after = "nobody is left at it, so it is closed" if closed else "your seat is open for anyone"
    messages.success(request, f"You left table {table.token}; {after}.")
    return redirect("lobby", table.game)


@require_POST
def again(request: HttpRequest, token: str) -> HttpResponse:
    """A new table with the same seats: the requester keeps theirs, the other people's seats
    are open for them (or anyone) to take, bots stay. It is rated as the requester's table
    from the lobby would be, unless the table was a friendly game by its opener's choice:
    a table that ended unrated only because a guest sat at it (or a bot could not start)
    does not make its rematch unrated (the guest's seat is open again; a guest who takes it
    makes the rematch unrated in turn, as at any table).

    A rematch another person of the table opened, still waiting with this person's seat
    open, seats them instead (one rematch, however many ask: ``tables.rematch``); a new one
    is announced to the finished table's pages, with its link."""
    table = _table(token)
    person = tables.person_of(request.user, request.session)
    mine = tables.seat_of(table, person)
    try:
        if mine is None or person is None:
            raise tables.TableError("only a player of this table can ask for a rematch")
        if table.state not in (Table.FINISHED, Table.ABANDONED):
            raise tables.TableError("this match is still being played")
        seats = [_again_seat(s, mine) for s in table.seats.all()]
        new, done = tables.rematch(
            table,
            person,
            seats,
            turn_timer=table.turn_timer,
            config=table.config or None,
            rated=not table.unrated_chosen,
            address=client_ip(request),
        )
    except tables.TableError as exc:
        messages.error(request, f"No rematch: {exc}.")
        return redirect(table.get_absolute_url())
    layer = get_channel_layer()
    if done == "opened":
        # the finished table's pages (the others seated at it) hear where the rematch is
        told = tables.rematch_message(new, person.name) | {"seat": mine}
        async_to_sync(layer.group_send)(
            lobby_group(table.pk), {"type": "table.message", "text": message_text(told)}
        )
    elif done == "joined":
        _seated(new, person)
    return redirect(new.get_absolute_url())


def _again_seat(seat: TableSeat, mine: int) -> str:
    if seat.seat == mine:
        return "me"
    if seat.kind == TableSeat.BUILTIN:
        return f"builtin:{seat.builtin}"
    if seat.kind == TableSeat.BOT and seat.version is not None:
        version = seat.version
        if version.status != BotVersion.ACTIVE:
            newer = version.bot.versions.filter(status=BotVersion.ACTIVE).first()
            version = newer or version  # none active: the rules refuse it, and say so
        return f"bot:{version.pk}"
    return "open"
