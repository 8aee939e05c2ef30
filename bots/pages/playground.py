"""The playground's pages (docs/playground.md): the form of a game's playground, a run's page
with its queue position, progress and results, the small JSON its script polls and the
parts of the page it then puts in place, the replay of a run's match, and "submit this
version" for a signed-in owner.

The web only checks what was asked and queues a row (:func:`bots.playground.submit`); the
code runs on a worker, in the sandbox. A run is seen by whoever has its address (an
unguessable key, as an unlisted paste is): its results, faults and replays; its code, its
bot's log (what it prints) and the "submit" button only by the person who started it. A
person is a signed-in user, or a guest known by the token of their session (the one live
tables give).
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.validators import MaxValueValidator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bots import playground
from bots.competition import uploads
from bots.competition.uploads import LANGUAGE_SUFFIX
from bots.languages import default_language, file_accept, get_language, language_title
from bots.models import PlaygroundMatch, PlaygroundRun, game_title
from bots.pages.compiler import fault_shown, record_shown, refusal
from bots.pages.views import declared_size, request_limit, upload_within_limit
from bots.running.timing import site_time_control
from bots.running.which_game import OtherGame
from cardsite.accounts import client_ip
from games import replays
from games.engine import untrusted
from games.engine.game import faults_shown
from games.engine.table import plural
from games.live.tables import Person, address_key, keep_guest, person_of
from games.matchpages import chapter_options, viewer_context
from games.records import refused_text
from games.registry import GameSpec, get_game

#: the form's field for an argument of ``playground.submit`` named otherwise
FORM_FIELD = {"matches": "match_count"}
#: matches a form offers by default (fewer when the person's limit is lower)
DEFAULT_MATCHES = 10
#: how many of the person's own runs the form lists
RECENT_RUNS = 10


def _spec(slug: str) -> GameSpec:
    try:
        return get_game(slug)
    except KeyError:
        raise Http404(f"no game {slug!r}") from None


def _person(request: HttpRequest, *, create: bool = False) -> Person | None:
    return person_of(request.user, request.session, create=create)


def _owner(person: Person | None) -> tuple[Any, str]:
    if person is None:
        return None, ""
    return person.user, person.guest


# ---- the form --------------------------------------------------------------------------------
class PlaygroundForm(forms.Form):
    """What the browser sent: a language the game takes, the code (a file or pasted),
    opponents among those offered, a seed and a number of matches within the person's limit.
    The code's own limits (size, UTF-8, NUL) and the person's are checked by
    :func:`bots.playground.submit`."""

    language = forms.ChoiceField(widget=forms.RadioSelect)
    file = forms.FileField(
        label="Code file",
        required=False,
        widget=forms.FileInput(attrs={"accept": file_accept()}),
    )
    code = forms.CharField(
        label="Or paste the code",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false", "class": "code"}),
    )
    opponents = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Opponents"
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=playground.MAX_SEED - 1,
        help_text="The same seed deals the same cards again.",
    )
    # not "matches": a form control's name becomes a property of its HTML form, and one
    # named so hides the form's own matches() method (which scripts and browsers call)
    match_count = forms.IntegerField(min_value=1, label="Matches")

    def __init__(
        self,
        spec: GameSpec,
        limits: playground.Limits,
        *args,
        user: Any = None,
        include: Sequence[str] = (),
        **kwargs,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.spec = spec
        self.fields["language"].choices = [
            (language, language_title(language)) for language in playground.languages(spec)
        ]
        # the built-ins, the best ranked bots, the person's own, and those asked for by name
        # (``?opponent=bot:<id>`` from a bot's page, or the form's own values sent back)
        self.offered = (
            []
            if spec.plays_alone
            else playground.opponents_of(spec.slug, user=user, include=include)
        )
        self.fields["opponents"].choices = [(o.value, o.name) for o in self.offered]
        # the house's copy of a built-in is listed as the built-in: a link from its page
        # (``?opponent=bot:<id>``), or a form that listed it apart, names the built-in
        aliases = {o.also: o.value for o in self.offered if o.also}
        if aliases and self.initial.get("opponents"):
            self.initial["opponents"] = [aliases.get(v, v) for v in self.initial["opponents"]]
        if aliases and self.is_bound and hasattr(self.data, "getlist"):
            self.data = self.data.copy()
            self.data.setlist(
                "opponents", [aliases.get(v, v) for v in self.data.getlist("opponents")]
            )
        self.fields["opponents"].help_text = (
            f"The built-in bots, the {playground.LISTED_BOTS} best ranked bots and your own. "
            "To play another bot, open its page and follow “Try your bot against it”."
        )
        matches = self.fields["match_count"]
        matches.max_value = limits.max_matches
        matches.validators.append(MaxValueValidator(limits.max_matches))
        matches.widget.attrs["max"] = limits.max_matches
        matches.help_text = f"1 to {limits.max_matches}."

    def clean(self) -> dict:
        data = super().clean()
        upload = data.get("file")
        code = data.get("code") or ""
        if upload and code.strip():
            raise forms.ValidationError("Choose a file or paste the code, not both.")
        if not upload and not code.strip():
            raise forms.ValidationError("Choose a file or paste the code.")
        language = data.get("language")
        if upload and language:
            try:
                found = uploads.language_for(upload.name)
            except uploads.UploadError as exc:
                self.add_error("file", str(exc))
            else:
                if found != language:
                    self.add_error(
                        "file",
                        f"{upload.name} is a {language_title(found)} file, but the "
                        f"language chosen is {language_title(language)}.",
                    )
        return data

    def code_filename(self) -> str:
        """The uploaded file's name ("" for pasted code)."""
        upload = self.cleaned_data.get("file")
        return upload.name if upload else ""

    def code_bytes(self) -> bytes:
        """The code's bytes: the file's, or the pasted text with a browser's CR LF as LF."""
        upload = self.cleaned_data.get("file")
        if upload:
            return upload.read()
        return self.cleaned_data["code"].replace("\r\n", "\n").encode("utf-8")


def _starter_code(spec: GameSpec, language: str) -> str:
    path = spec.starters.get(language)
    return path.read_text(encoding="utf-8") if path is not None else ""


def _initial(request: HttpRequest, spec: GameSpec, limits: playground.Limits) -> dict[str, Any]:
    """A new form: the language and code of ``?starter=<language>`` if asked, the game's
    strongest built-in bot as the opponent, a fresh seed; or, for ``?again=<run key>`` asked
    by the person who started that run (:func:`_run_again`), that run's language, code,
    opponents, seed and matches, to change and run again."""
    taken = playground.languages(spec)
    starter = request.GET.get("starter", "")
    language = starter if starter in taken else (taken[0] if taken else default_language().name)
    initial: dict[str, Any] = {
        "language": language,
        "seed": secrets.randbelow(10**6),
        "match_count": min(DEFAULT_MATCHES, limits.max_matches),
    }
    if starter in taken:
        initial["code"] = _starter_code(spec, starter)
    again = _run_again(request, spec)
    if again is not None:
        initial["language"] = again.language
        initial["seed"] = again.seed
        initial["match_count"] = min(again.matches, limits.max_matches)
        # (a built jar is a file to choose again, not text to paste)
        initial["code"] = "" if get_language(again.language).kept_file(again.code) else again.code
    if not spec.plays_alone:
        asked = [v for v in request.GET.getlist("opponent") if playground.BOT_VALUE.fullmatch(v)]
        chosen = playground.form_values(again) if again is not None else asked[:8]
        initial["opponents"] = chosen or [f"builtin:{spec.strongest}"]
    return initial


def _run_again(request: HttpRequest, spec: GameSpec) -> PlaygroundRun | None:
    """The run of ``?again=<key>`` whose form is asked for again, if it is one of the game's
    and the person asking started it (its owner, or the same guest session: they alone see
    its code); else None (the form starts afresh)."""
    key = request.GET.get("again", "")
    run = playground.find(key) if key and len(key) <= 32 else None
    if run is None or run.game != spec.slug or run.language not in playground.languages(spec):
        return None
    return run if playground.owns(run, *_owner(_person(request))) else None


def _signed_in(request: HttpRequest) -> Any:
    """The signed-in user, or None for a guest (whose own bots are none to offer)."""
    return request.user if request.user.is_authenticated else None


def _form(request: HttpRequest, spec: GameSpec, limits: playground.Limits) -> PlaygroundForm:
    """A new form (see :func:`_initial`), offering the opponents it checks."""
    initial = _initial(request, spec, limits)
    user = _signed_in(request)
    return PlaygroundForm(
        spec, limits, initial=initial, user=user, include=initial.get("opponents", ())
    )


def _recent(person: Person | None) -> list[PlaygroundRun]:
    """The person's newest runs (of every game), each with its game's title (``game_title``:
    the list said the slug where every page says the title)."""
    if person is None:
        return []
    user, guest = _owner(person)
    where = {"user": user} if user is not None else {"user__isnull": True, "guest": guest}
    runs = list(
        PlaygroundRun.objects.filter(**where).defer("code").order_by("-created")[:RECENT_RUNS]
    )
    for run in runs:
        run.game_title = game_title(run.game)
    return runs


def _worker_time(limits: playground.Limits, guest: bool) -> str:
    """The person's bounds of worker time, for the form's list of limits ("": none)."""
    said = []
    if limits.run_seconds:
        said.append(f"{limits.run_seconds} s of worker time a run")
    if limits.seconds_per_hour:
        hour = f"{limits.seconds_per_hour} s" + ("" if said else " of worker time")
        said.append(hour + " an hour" + (" for all guests of your address" if guest else ""))
    return " and ".join(said)


def timing_text(spec: GameSpec) -> str:
    """How the person's bot is timed in its matches, in words: the site's time rules, the
    upload's validation's (:func:`bots.playground.play_match`)."""
    tc = site_time_control(spec)
    match = "session" if spec.plays_alone else "match"
    text = f"{tc.move:g} s per call, a {tc.bank:g} s bank per {match} for calls that run over"
    if tc.streak:
        text += f", and at most {tc.streak} calls in a row over {tc.move:g} s"
    return text


def _render_form(
    request: HttpRequest,
    spec: GameSpec,
    form: PlaygroundForm,
    limits: playground.Limits,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    guest = not request.user.is_authenticated
    return render(
        request,
        "bots/playground.html",
        {
            "game": spec,
            "form": form,
            "limits": limits,
            "address_limits": playground.AddressLimits.from_settings() if guest else None,
            "worker_time": _worker_time(limits, guest),
            "timing": timing_text(spec),
            "guest": guest,
            "max_size": uploads.size_text(uploads.max_code_bytes()),
            # a built jar only where the game's Java bots take one (a kit's: Last Card)
            "takes_jar": bool(set(uploads.built_languages(spec)) & set(playground.languages(spec))),
            "request_error": error,
            "recent": _recent(_person(request)),
            "starters": [
                {"language": language, "title": language_title(language)}
                for language in playground.languages(spec)
            ],
        },
        status=status,
    )


@csrf_exempt  # the size of a POST is checked before its body is read; csrf_protect follows
@require_http_methods(["GET", "HEAD", "POST"])
def playground_form(request: HttpRequest, slug: str) -> HttpResponse:
    spec = _spec(slug)
    limits = playground.Limits.for_person(guest=not request.user.is_authenticated)
    if request.method != "POST":
        return _render_form(request, spec, _form(request, spec, limits), limits)
    size = declared_size(request)
    if size > request_limit():
        error = uploads.too_big(size)
        return _render_form(
            request, spec, _form(request, spec, limits), limits, error=error, status=413
        )
    return _start(request, spec, limits)


@csrf_protect
def _start(request: HttpRequest, spec: GameSpec, limits: playground.Limits) -> HttpResponse:
    user = _signed_in(request)
    form = PlaygroundForm(
        spec,
        limits,
        request.POST,
        request.FILES,
        user=user,
        include=request.POST.getlist("opponents")[:64],
    )
    if not form.is_valid():
        return _render_form(request, spec, form, limits, status=400)
    person = _person(request, create=True)
    user, guest = _owner(person)
    try:
        run = playground.submit(
            user=user,
            guest=guest,
            # guests of one client address share a limit (live tables' keyed hash of it)
            guest_address=address_key(client_ip(request)) if user is None else "",
            game=spec.slug,
            language=form.cleaned_data["language"],
            code=form.code_bytes(),
            filename=form.code_filename(),
            opponents=form.cleaned_data["opponents"],
            seed=form.cleaned_data["seed"],
            matches=form.cleaned_data["match_count"],
        )
    except playground.Refused as exc:
        form.add_error(None, str(exc))
        return _render_form(request, spec, form, limits, status=429)
    except playground.ForAnotherGame as exc:  # above the form, with its game's playground
        return _render_form(request, spec, form, limits, error=_linked(exc.found), status=400)
    except playground.PlaygroundError as exc:
        field = FORM_FIELD.get(exc.field or "", exc.field)
        form.add_error(field if field in form.fields else None, str(exc))
        return _render_form(request, spec, form, limits, status=400)
    if person is not None:
        keep_guest(request.session, person)  # (a refused run stored no session)
    return redirect("playground_run", key=run.key)


def _linked(found: OtherGame) -> SafeString:
    """Why the code looks like another game's bot, and to use that game's playground, each
    playground named a link to it."""
    advice = conditional_escape(found.advice("playground"))
    for game in found.games:
        words = conditional_escape(found.place(game, "playground"))
        link = format_html('<a href="{}">{}</a>', reverse("playground", args=[game.slug]), words)
        advice = advice.replace(words, link, 1)
    return format_html("{} {}", found.why, mark_safe(advice))


# ---- a run -------------------------------------------------------------------------------------
def _run(key: str) -> PlaygroundRun:
    run = playground.find(key) if len(key) <= 32 else None
    if run is None:
        raise Http404(
            "no such playground run: it was never started, or was forgotten (finished runs "
            f"are kept {playground.keep_days(False)} days, a guest's "
            f"{playground.keep_days(True)})"
        )
    return run


def state_of(run: PlaygroundRun, *, mine: bool = False) -> dict[str, Any]:
    """What the run's page and its JSON say of where the run is (``mine``: to the run's
    owner, who alone is told a compiler's refusal with the code it quotes: its summary here,
    its lines apart, :func:`compiler_lines`)."""
    waiting = playground.is_waiting(run)
    wait = playground.wait_of(run) if waiting else None
    # a run that failed before its bot played a match: no progress to show (its one stored
    # match, if any, is its bot's failure to start)
    started = not never_started(run)
    position = wait.position if wait is not None else None
    # stopped at its bound of worker time (bots.playground.out_of_time), before a match or
    # during its last one (cut off there): said so
    stopped = run.status == PlaygroundRun.DONE and (run.played < run.matches or bool(run.reason))
    if stopped and run.played < run.matches:
        left = run.matches - run.played
        others = f"the other {left} were" if left > 1 else f"match {run.matches} was"
        message = (
            f"Done: {run.played} of {run.matches} matches played; {run.reason}, so {others} "
            "not played."
        )
    elif stopped:
        message = f"Done: {plural(run.played, 'match')} played; {run.reason}."
    elif run.status == PlaygroundRun.DONE:
        message = f"Done: {plural(run.played, 'match')} played."
    elif run.status == PlaygroundRun.FAILED:
        message = run.reason or "The run failed."
        if (found := refusal(message)) is not None:
            message = found.summary if mine else found.hidden()
        if not mine and message.startswith("Your bot "):
            message = "The bot " + message.removeprefix("Your bot ")
    elif wait is not None:
        # how many runs are ahead and how long each may take: true figures, no promise
        so_far = f" to go on ({run.played} of {run.matches} played so far)" if run.played else ""
        message = f"Waiting for a worker{so_far}: {playground.wait_text(wait)}."
    else:
        message = f"Playing: {run.played} of {run.matches} matches played."
    return {
        "status": run.status,
        "final": run.status not in PlaygroundRun.OPEN,
        "played": run.played,
        "matches": run.matches,
        "percent": round(100 * run.played / run.matches) if run.matches and started else 0,
        # stopped at its bound of worker time: before its last match, or during it
        "stopped": stopped,
        "position": position,
        # runs ahead of it (those being played included), while it waits
        "ahead": wait.ahead if wait is not None else None,
        "message": message,
    }


def never_started(run: PlaygroundRun) -> bool:
    """Whether the run failed before its bot played a match: it ended before its first
    (a missing method, a compile that took its time...), or its one match stored is its
    bot's failure to start (``playground.load_failure``)."""
    if run.status != PlaygroundRun.FAILED or run.played > 1:
        return False
    if run.played == 0:
        return True
    first = run.played_matches.filter(number=0).only("seat", "seats").first()
    return first is None or first.seats[first.seat].get("fault_kind") == playground.LOAD_FAULT


def compiler_lines(run: PlaygroundRun, mine: bool) -> str:
    """The compiler's lines of a run that failed at its bot's compile, for its owner ("" for
    anyone else, and for a run that did not)."""
    found = refusal(run.reason) if mine and run.status == PlaygroundRun.FAILED else None
    return found.lines if found is not None else ""


def _bound_note(run: PlaygroundRun) -> str:
    """What the run's page says of a run's worker time cut to what its person's hour had
    left when it was started (:func:`bots.playground.run_bound`); "" if it was not."""
    limits = playground.Limits.for_person(guest=run.user_id is None)
    usual = limits.run_seconds
    if not limits.seconds_per_hour or not run.worker_seconds:
        return ""
    if usual and run.worker_seconds >= usual:
        return ""
    return (
        f"It may use {run.worker_seconds} s of worker time, what was left of the "
        f"{limits.seconds_per_hour} s an hour when it was started."
    )


#: the run's bot's name to anyone but the person who started the run (stored as
#: ``playground.YOUR_BOT``)
THEIR_BOT = "the run's bot"


def seat_name(match: PlaygroundMatch, n: int, mine: bool) -> str:
    """Seat ``n``'s name as the page shows it: the run's bot is "your bot" to the run's
    owner only."""
    name = str(match.seats[n]["name"])
    return THEIR_BOT if n == match.seat and not mine else name


def _opponent_of(match: PlaygroundMatch) -> str:
    others = [s["name"] for n, s in enumerate(match.seats) if n != match.seat]
    return ", ".join(others) or "the dealer"


def _rows(
    matches: list[PlaygroundMatch], spec: GameSpec | None = None, *, owned: bool = False
) -> list[dict[str, Any]]:
    """Each match's row (``owned``: seen by the run's owner, who alone reads the compiler's
    messages of the run's bot; an opponent's are no one's here)."""
    rows = []
    for match in matches:
        game = spec or _spec(match.run.game)
        mine = match.seats[match.seat]
        # illegal moves the rules refused without a fault (Last Card: played as passes)
        illegal = int(mine.get("illegal") or 0)
        # a fault's reason on one line, escaped and cut, as every page shows it; a compiler's
        # refusal as its summary, the code it quotes left out
        shown = [
            (
                n,
                s
                | {
                    "shown": untrusted.one_line(_fault_said(s, n == match.seat, owned)),
                    "name": seat_name(match, n, owned),
                },
            )
            for n, s in enumerate(match.seats)
        ]
        rows.append(
            {
                "match": match,
                "number": match.number + 1,
                "opponent": _opponent_of(match),
                "mine": mine,
                "others": [s for n, s in enumerate(match.seats) if n != match.seat],
                "faults": [s | {"seat": n} for n, s in shown if s["fault_kind"]],
                "seats": [s for _, s in shown],
                "illegal": illegal,
                "illegal_text": refused_text(game, illegal, str(mine.get("illegal_first", ""))),
            }
        )
    return rows


def _fault_said(seat: dict[str, Any], runs_bot: bool, mine: bool) -> str:
    reason = str(seat.get("fault_reason") or "")
    return fault_shown(
        reason, owned=runs_bot and mine, owner="the run's owner" if runs_bot else None
    )


def _totals(matches: list[PlaygroundMatch]) -> list[dict[str, Any]]:
    """The person's bot's score summed by opponent, and its faults there."""
    by: dict[str, dict[str, Any]] = defaultdict(lambda: {"matches": 0, "score": 0.0, "faults": 0})
    for match in matches:
        # a bigger table is one row whatever the seat order (its deal is played in every
        # rotation of the seats): the same opponents, named in one order
        others = [s["name"] for n, s in enumerate(match.seats) if n != match.seat]
        total = by[", ".join(sorted(others)) if len(others) > 1 else _opponent_of(match)]
        total["matches"] += 1
        total["score"] += float(match.seats[match.seat]["score"])
        total["faults"] += bool(match.seats[match.seat]["fault_kind"])
    return [{"opponent": name, **values} for name, values in by.items()]


def said_at_the_end(
    run: PlaygroundRun,
    state: dict[str, Any],
    total: float,
    spec: GameSpec,
    *,
    scored: bool,
    mine: bool = True,
) -> str:
    """What the run's page says once, in its live region, when the run it follows ends:
    its message, and the bot's total when there is one ("Done: 6 matches played; your bot's
    total games won: 4.")."""
    message = state["message"]
    if run.status != PlaygroundRun.DONE or not run.played or not scored:
        return message
    fewer = "" if spec.higher_is_better else " (fewer is better)"
    return (
        f"{message.rstrip('.')}; {'your' if mine else 'the'} bot's total {spec.score_label}: "
        f"{floatformat(total, '-2')}{fewer}."
    )


def _run_context(request: HttpRequest, run: PlaygroundRun, spec: GameSpec) -> dict[str, Any]:
    """What changes on a run's page as it plays: its progress, results and "submit this
    version" (the page's blocks that its fragment draws alone)."""
    person = _person(request)
    mine = playground.owns(run, *_owner(person))
    matches = list(run.played_matches.defer("record").order_by("number"))
    rows = _rows(matches, spec, owned=mine)
    state = state_of(run, mine=mine)
    # a run whose bot could not even start has no score to speak of: its one match
    # is a forfeit (the page's alert says why)
    scored = not (
        run.status == PlaygroundRun.FAILED
        and all(m.seats[m.seat].get("fault_kind") == playground.LOAD_FAULT for m in matches)
    )
    total = sum(float(m.seats[m.seat]["score"]) for m in matches)
    return {
        "run": run,
        "game": spec,
        "state": state,
        # a failed compile's messages (they quote the code): its owner's only
        "compiler": compiler_lines(run, mine),
        "said": (
            said_at_the_end(run, state, total, spec, scored=scored, mine=mine)
            if state["final"]
            else ""
        ),
        "rows": rows,
        # every match played, and none with a fault, an illegal move or (to its owner, who
        # alone reads the bot's log) a line on stderr: said so
        "quiet": bool(rows)
        and not any(r["faults"] or r["illegal"] or (mine and r["match"].stderr) for r in rows),
        "scored": scored,
        "totals": _totals(matches),
        "total": total,
        "mine": mine,
        # the run's bot, in the words of who reads the page
        "the_bot": "your bot" if mine else "the bot",
        "yours": "your" if mine else "its",
        "can_submit": mine and run.user_id is not None and run.status == PlaygroundRun.DONE,
        "score_label": spec.score_label,
        "lower_is_better": not spec.higher_is_better,
    }


@require_GET
def run_page(request: HttpRequest, key: str) -> HttpResponse:
    run = _run(key)
    spec = _spec(run.game)
    kept = get_language(run.language).kept_file(run.code)
    return render(
        request,
        "bots/playground_run.html",
        {
            **_run_context(request, run, spec),
            # a file kept wrapped (a built jar) is not text to show: its kind and size
            "kept": f"a built {kept[0]} file of {len(kept[1]):,} bytes" if kept else "",
            "schedule": playground.schedule_text(
                spec, [str(o.get("name", "?")) for o in run.opponents], run.matches
            ),
            "bound_note": _bound_note(run),
            "language": language_title(run.language),
        },
    )


@never_cache
@require_GET
def run_results(request: HttpRequest, key: str) -> HttpResponse:
    """The parts of a run's page that change as it plays (its progress, results and "submit
    this version"), drawn as the page draws them: ``static/js/playground.js`` asks for them
    when ``status.json`` says a match was played or the run ended, and puts what changed in
    place, so that the page keeps its focus and scroll."""
    run = _run(key)
    return render(
        request,
        "bots/playground_run.html",
        {
            **_run_context(request, run, _spec(run.game)),
            "frame": "bots/_playground_run_parts.html",
            "following": True,
        },
    )


def _mine(request: HttpRequest, run: PlaygroundRun) -> bool:
    """Whether the person asking started the run."""
    return playground.owns(run, *_owner(_person(request)))


@never_cache
@require_GET
def run_status(request: HttpRequest, key: str) -> JsonResponse:
    run = _run(key)
    return JsonResponse(state_of(run, mine=_mine(request, run)))


# ---- a match's replay --------------------------------------------------------------------------
def _match(run: PlaygroundRun, number: str) -> PlaygroundMatch:
    n = untrusted.whole_number(number)
    match = run.played_matches.filter(number=n - 1).first() if n else None
    if match is None:
        raise Http404("no such match in this run")
    return match


def _names(match: PlaygroundMatch, mine: bool) -> list[str]:
    return [seat_name(match, n, mine) for n in range(len(match.seats))]


def _compiler_of(match: PlaygroundMatch) -> str:
    """The compiler's lines of the run's bot's refusal in this match ("" if none)."""
    found = refusal(str(match.seats[match.seat].get("fault_reason") or ""))
    return found.lines if found is not None else ""


@require_GET
def match_page(request: HttpRequest, key: str, number: str) -> HttpResponse:
    """A playground match in the site's replay viewer (``matches/_frame.html``,
    ``static/js/replay.js``): built from the stored record each time it is asked for."""
    run = _run(key)
    match = _match(run, number)
    mine = _mine(request, run)
    record = record_shown(match.record, match.seat, owned=mine)
    replay = replays.build(record, _names(match, mine))
    total = len(replay.frames)
    asked = untrusted.whole_number(request.GET.get("step", "1")) or 1
    step = max(0, min(asked - 1, total - 1)) if total else 0
    marks = replay.chapters()
    current = max((n for n, c in enumerate(marks) if c["step"] <= step), default=0)
    return render(
        request,
        "bots/playground_match.html",
        {
            "run": run,
            "game": _spec(run.game),
            "match": match,
            "row": _rows([match], owned=mine)[0],
            # the compiler's messages of the run's bot, its owner's only
            "compiler": _compiler_of(match) if mine else "",
            # the bot's log (what it prints): its owner's only, as every game page says
            "mine": mine,
            "replay": replay,
            **viewer_context(
                step,
                total,
                lambda start, end: replay.frames[start:end],
                replay.names,
                replay.head,
                chapter_options(marks, current),
            ),
            "events": []
            if replay.supported
            else [str(e) for e in faults_shown(record).get("events", [])],
        },
    )


@require_GET
def match_replay(request: HttpRequest, key: str, number: str) -> JsonResponse:
    """The frames the viewer steps through, as the site's replay JSON: ``?from=N&count=M``."""
    run = _run(key)
    match = _match(run, number)
    mine = _mine(request, run)
    record = record_shown(match.record, match.seat, owned=mine)
    replay = replays.build(record, _names(match, mine))
    start = untrusted.whole_number(request.GET.get("from", "0")) or 0
    count = untrusted.whole_number(request.GET.get("count", "")) or None
    answer = replay.as_json(min(start, len(replay.frames)), count)
    return JsonResponse(answer, json_dumps_params={"ensure_ascii": False})


# ---- submit this version -----------------------------------------------------------------------
class SubmitForm(forms.Form):
    name = forms.CharField(label="Bot name", max_length=60)


@login_required
@require_POST
def submit_version(request: HttpRequest, key: str) -> HttpResponse:
    """The run's code as a new version of one of the person's bots, through the normal
    upload (its limits, then validation in the sandbox like any upload)."""
    run = _run(key)
    if run.user_id != request.user.pk:
        raise Http404("no such playground run of yours")
    back = reverse("playground_run", kwargs={"key": run.key}) + "#submit"
    form = SubmitForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the bot a name of 1 to 60 characters.")
        return redirect(back)
    name = form.cleaned_data["name"]
    filename = f"{name.strip()}{LANGUAGE_SUFFIX.get(run.language, default_language().suffix)}"
    try:
        version = upload_within_limit(
            request.user, run.game, name, filename, run.code.encode("utf-8"), client_ip(request)
        )
    except uploads.UploadError as exc:
        messages.error(request, f"The version was not submitted: {exc}")
        return redirect(back)
    messages.success(
        request,
        f"Version {version.number} of {version.bot.name} is stored and waits for validation "
        "in the sandbox.",
    )
    return redirect(reverse("my_bots") + f"#version-{version.pk}")
