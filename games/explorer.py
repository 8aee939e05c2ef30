"""The strategy explorer (``/solver/``): solve a game from the browser and look at the result
(docs/explorer.md). The games, their limits and their options are their specs'
(``GameSpec.solver``): this module names no game.

A solve is a job in the database (``games.solves``), run by a tournament worker, never by the
web process: the form queues it (or finds the job of the same settings, done or not: a solve
asked twice is served from the store), and the job's page, and the JSON it polls, read the
job's row, where the worker writes its progress now and then and finally the result. So any
web process answers any poll. Without JavaScript the job page refreshes itself until the
solve is done.

Iterations are bounded per game (its spec's ``solver.web_limit``) and a game's options to the
choices its spec offers the web (``SolverOption.choices``), so a request cannot start a solve
that runs for minutes or takes gigabytes; the command line (``manage.py solve``) has no such
bounds.
"""

from __future__ import annotations

import json
import math
from functools import cached_property
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods

from bots.clock import shared_now
from cardsite.accounts import client_ip
from games import solves
from games.engine.spec import SolverOption
from games.engine.table import plural
from games.live.tables import address_key
from games.models import SolveJob
from games.solver.views import SHADES
from games.solver_games import solvers, titles
from games.solves import SolveSettings, options_of

__all__ = ["ExplorerForm", "JobView", "SolveSettings", "heat_css", "shade_colours"]


def web_limits() -> dict[str, int]:
    """The most iterations a web solve may run, per game (its spec says)."""
    return {slug: solver.web_limit for slug, solver in solvers().items()}


def option_limits() -> dict[str, dict[str, dict[str, int]]]:
    """The lower iteration limits some options' values set, for the form's script:
    ``{game: {field name: {value: most iterations}}}`` (an option in one field only)."""
    return {
        slug: {
            option.name: {str(value): most for value, most in option.web_iterations}
            for option in solver.options
            if option.web_iterations and not option.parts
        }
        for slug, solver in solvers().items()
        if any(option.web_iterations for option in solver.options)
    }


def game_options() -> dict[str, tuple[SolverOption, ...]]:
    """The solvable games whose form takes options of their own, with those options (the
    form's option fields)."""
    return {slug: solver.options for slug, solver in solvers().items() if solver.options}


def default_iterations() -> dict[str, int]:
    """What the form offers first, per game."""
    return {slug: solver.default_iterations for slug, solver in solvers().items()}


ALGORITHM_CHOICES = [("cfr+", "CFR+"), ("cfr", "CFR"), ("dcfr", "Discounted CFR")]


# ------------------------------------------------------------------------------------- jobs
class JobView:
    """A solve's row as its pages and the polled JSON show it. A solve whose worker stopped
    (its lease ran out) waits for another worker: it shows as queued. Before that, once its
    worker has missed two heartbeats (:meth:`silent_for`), it shows as stopped, with no
    estimate of the time left."""

    def __init__(self, job: SolveJob, bounds: solves.Bounds | None = None) -> None:
        self.job = job
        self.bounds = bounds or solves.Bounds.from_settings()
        self.settings = SolveSettings.of(job)
        self.id = job.digest
        self.taken_over = job.status == SolveJob.RUNNING and solves.is_waiting(job)
        self.state = SolveJob.QUEUED if solves.is_waiting(job) else job.status
        self.phase = "waiting" if self.state == SolveJob.QUEUED else job.phase
        self.iteration = job.iteration
        self.total = job.iterations
        self.error = job.error
        self._queue: dict[str, Any] | None = None
        self.silent_s = self.silent_for(job)

    @staticmethod
    def silent_for(job: SolveJob) -> float | None:
        """Seconds since the last sign of life of the worker running ``job`` (its last
        heartbeat, or its last progress write, which is one too: ``solves.save_progress``),
        when that is over two heartbeats (the worker seems to have stopped: killed, its
        machine lost), while its lease still holds; else None. The worker beats every third
        of its lease (``bots.worker.Heartbeat``), and each beat sets the lease to run that
        long from then, so the row itself says its worker's period: whatever lease that
        worker runs with."""
        if job.status != SolveJob.RUNNING or job.heartbeat is None or job.lease_until is None:
            return None
        now = shared_now()  # (the clock of the worker's lease and heartbeat)
        if job.lease_until < now:
            return None  # taken over: it waits for another worker (``solves.is_waiting``)
        period = (job.lease_until - job.heartbeat).total_seconds() / 3
        silent = (now - job.heartbeat).total_seconds()
        return silent if silent > 2 * period else None

    @cached_property
    def stored(self) -> solves.StoredPages:
        """The result as stored: its document (parsed once) and its strategy, read a page at
        a time (read only when asked for: a poll or a list never loads it)."""
        return solves.StoredPages(self.job)

    @property
    def document(self) -> dict[str, Any] | None:
        """The result without its strategy (that is read a page at a time: :meth:`pages`)."""
        return self.stored.document if self.done else None

    def pages(self) -> solves.StoredPages:
        """The strategy, read a page at a time."""
        return self.stored

    @property
    def open(self) -> bool:
        """Not over: the page keeps polling."""
        return self.state in SolveJob.OPEN

    @property
    def done(self) -> bool:
        return self.state == SolveJob.DONE

    @property
    def iteration_text(self) -> str:
        return f"{self.iteration:,}"

    @property
    def total_text(self) -> str:
        return f"{self.total:,}"

    def percent(self) -> float:
        if self.done:
            return 100.0
        return round(100.0 * self.iteration / max(self.total, 1), 1)

    def elapsed(self) -> float:
        job = self.job
        if job.started is None or self.state == SolveJob.QUEUED:
            return 0.0
        end = job.finished or shared_now()  # (the clock of its start: the lease's)
        return max((end - job.started).total_seconds(), 0.0)

    def eta(self) -> float | None:
        """Seconds of training left, from the pace so far (None before there is a pace)."""
        if self.state != SolveJob.RUNNING or self.phase != "training" or self.iteration < 1:
            return None
        if self.silent_s is not None:
            return None  # the pace of a worker that stopped
        per_iteration = self.job.train_seconds / self.iteration
        return round(per_iteration * (self.total - self.iteration), 1)

    def queue(self) -> dict[str, Any] | None:
        """Its place in the queue while it waits (see ``solves.queue_state``)."""
        if self.state != SolveJob.QUEUED:
            return None
        if self._queue is None:
            self._queue = solves.queue_state(self.job, self.bounds)
        return self._queue

    @property
    def status_text(self) -> str:
        """Where the solve is, in a sentence (the page's status line)."""
        if self.state == SolveJob.QUEUED:
            return self._waiting_text()
        if self.silent_s is not None:
            return self._silent_text()
        text = self._running_text()
        attempts = self.job.attempts
        if attempts > 1:
            before = "the first worker" if attempts == 2 else f"the first {attempts - 1} workers"
            text = f"Started again: {before} stopped. {text}"
        return text

    def _silent_text(self) -> str:
        """The worker running the solve has missed two heartbeats (its lease still holds)."""
        left = (self.job.lease_until - shared_now()).total_seconds()
        return (
            f"The worker solving this has not answered for {round(self.silent_s or 0)} s: it "
            f"seems to have stopped. Another worker can take the solve over in "
            f"{max(math.ceil(left), 1)} s, and starts it again from the beginning."
        )

    def _running_text(self) -> str:
        if self.phase == "building":
            return "Building the game tree."
        if self.phase == "measuring":
            return "Measuring the result."
        if self.phase == "waiting":
            return "Starting."
        text = f"Iteration {self.iteration:,} of {self.total:,}."
        eta = self.eta()
        if eta is not None:
            text += " Under a second left." if eta < 1 else f" About {round(eta)} s left."
        measured = self.job.measured
        if measured:
            text += f" Exploitability {float(measured[1]):.3g} at iteration {int(measured[0]):,}."
        return text

    def _waiting_text(self) -> str:
        queue = self.queue() or {}
        if self.taken_over:
            text = "The worker solving this stopped; waiting for another worker to take it over."
        else:
            ahead = queue.get("position", 1) - 1
            text = "Waiting for a worker: " + (
                "this solve is next."
                if ahead == 0
                else f"{ahead} solve{'' if ahead == 1 else 's'} before this one."
            )
        running = queue.get("running", 0)
        return text + (f" {running} running now." if running else "")

    @property
    def notice(self) -> str:
        """What to tell someone whose solve no worker has taken for a while."""
        queue = self.queue()
        if not queue or not queue["stalled"]:
            return ""
        waited = f"No worker has taken this solve in {round(queue['waited_seconds'])} s: "
        if queue.get("workers_busy"):
            return waited + (
                "the site's workers are busy with other work. It starts as soon as one is "
                "free; you can leave and come back to this address."
            )
        return waited + (
            "no worker is at work on the site now. It starts when one is; you can leave and "
            "come back to this address."
        )

    def progress(self) -> dict[str, Any]:
        measured = self.job.measured
        data: dict[str, Any] = {
            "id": self.id,
            "settings": self.settings.describe(),
            "state": self.state,
            "phase": self.phase,
            "iteration": self.iteration,
            "total": self.total,
            "percent": self.percent(),
            "elapsed_seconds": round(self.elapsed(), 1),
            "eta_seconds": self.eta(),
            "exploitability_so_far": measured,
            "queue": self.queue(),
            "message": self.status_text,
            "notice": self.notice,
            "url": reverse("explorer-job", args=[self.id]),
            "error": self.error if self.state == SolveJob.FAILED else "",
        }
        if self.done:
            data["download_url"] = reverse("explorer-download", args=[self.id])
        return data


# ------------------------------------------------------------------------------------ form
class ExplorerForm(forms.Form):
    game = forms.ChoiceField(choices=())
    algorithm = forms.ChoiceField(
        choices=ALGORITHM_CHOICES,
        initial="cfr+",
        help_text="CFR+ converges fastest; CFR is the original; discounted CFR weighs late "
        "iterations more.",
    )
    iterations = forms.IntegerField(min_value=1)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fill_games()
        self.fields["iterations"].widget.attrs.update(inputmode="numeric", step="1")
        self._add_options()

    def _add_options(self) -> None:
        """The games' own options as fields (optional here: clean() asks for those of the
        chosen game), each marked with its game for the page's script."""
        for slug, options in game_options().items():
            for option in options:
                for name, field in option_fields(option):
                    if name in self.fields:
                        raise ValueError(f"{slug}: the form has a field {name!r} already")
                    field.widget.attrs["data-game-option"] = slug
                    self.fields[name] = field

    def option_groups(self) -> list[dict[str, Any]]:
        """The option fields by game, for the page: each game's in a fieldset of its own."""
        names = titles()
        return [
            {
                "slug": slug,
                "title": names[slug],
                "options": [
                    {
                        "label": option.label,
                        "parts": bool(option.parts),
                        "help": option.web_help,
                        "fields": [self[name] for name in option.field_names],
                    }
                    for option in options
                ],
            }
            for slug, options in game_options().items()
        ]

    def _fill_games(self) -> None:
        """The game menu and the iteration bounds, from the games' specs."""
        names, limits, defaults = titles(), web_limits(), default_iterations()
        first = next(iter(names))
        self.fields["game"].choices = list(names.items())
        self.fields["game"].initial = first
        iterations = self.fields["iterations"]
        # the game's own limit is checked in clean(), with a message that says what was asked
        iterations.widget.attrs["max"] = max(limits.values())
        iterations.initial = defaults[first]
        iterations.help_text = (
            "At most "
            + ", ".join(f"{limits[slug]:,} for {title}" for slug, title in names.items())
            + "."
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        game = data.get("game")
        iterations = data.get("iterations")
        missing = False
        for option in options_of(game):
            for name in option.field_names:
                if data.get(name) in (None, "") and name not in self.errors:
                    self.add_error(name, option.missing)
                missing = missing or name in self.errors
        if game in web_limits() and iterations is not None and not missing:
            options = dict(self._options(data, game))
            if refused := solves.iterations_refusal(game, iterations, options):
                self.add_error("iterations", refused)
        return data

    @staticmethod
    def _options(data: dict[str, Any], game: str) -> tuple[tuple[str, Any], ...]:
        """The game's own options from the form's fields, (name, value) in its spec's order."""
        return tuple(
            (option.name, option.join([data[name] for name in option.field_names]))
            for option in options_of(game)
        )

    def settings(self) -> SolveSettings:
        data = self.cleaned_data
        options = self._options(data, data["game"])
        return SolveSettings(data["game"], data["algorithm"], data["iterations"], options)


def option_fields(option: SolverOption) -> list[tuple[str, forms.Field]]:
    """The form's fields of one option: one menu, or one per part of its value."""
    errors = {"invalid_choice": option.refused} if option.refused else {}
    choices = list(option.choices)
    if option.parts:
        initial = option.split(option.initial) if option.initial is not None else ()
        return [
            (
                name,
                forms.ChoiceField(
                    choices=choices,
                    initial=initial[i] if i < len(initial) else None,
                    required=False,
                    label=label,
                    error_messages=errors,
                ),
            )
            for i, (name, label) in enumerate(zip(option.field_names, option.parts, strict=True))
        ]
    field = forms.TypedChoiceField(
        choices=choices,
        coerce=option.parse,
        initial=option.initial,
        required=False,
        label=option.label,
        help_text=option.web_help,
        error_messages=errors,
    )
    return [(option.name, field)]


# ------------------------------------------------------------------------------- the chart
CHART_W, CHART_H = 640, 300
#: room for the labels around the plot: enough for them at the larger size a narrow screen
#: draws them at (static/css/explorer.css), where the chart is shrunk to the screen's width
MARGIN = {"left": 100, "right": 50, "top": 18, "bottom": 56}


def _decade_label(power: int) -> str:
    if 0 <= power <= 5:
        return f"{10**power:,}"
    return f"1e{power}"


def convergence_chart(points: list[list[float]]) -> dict[str, Any] | None:
    """Coordinates for an SVG of exploitability against iterations, both on log scales.
    An exploitability of exactly 0 (an exact equilibrium) is drawn at the bottom edge."""
    if not points:
        return None
    xs = [max(float(i), 1.0) for i, _ in points]
    positive = [float(e) for _, e in points if e > 0]
    floor = min(positive) if positive else 1e-6
    ys = [max(float(e), floor) for _, e in points]
    x_hi = max(1, math.ceil(math.log10(max(xs))))
    y_lo = math.floor(math.log10(min(ys)))
    y_hi = math.ceil(math.log10(max(ys)))
    if y_hi <= y_lo:
        y_hi = y_lo + 1
    left, top = MARGIN["left"], MARGIN["top"]
    width = CHART_W - left - MARGIN["right"]
    height = CHART_H - top - MARGIN["bottom"]

    def sx(x: float) -> float:
        return round(left + width * math.log10(x) / x_hi, 1)

    def sy(y: float) -> float:
        return round(top + height * (y_hi - math.log10(y)) / (y_hi - y_lo), 1)

    y_step = 1 if y_hi - y_lo <= 8 else 2
    dots = [
        {"x": sx(x), "y": sy(y), "iteration": int(i), "value": f"{float(e):.3g}"}
        for x, y, (i, e) in zip(xs, ys, points, strict=True)
    ]
    return {
        "width": CHART_W,
        "height": CHART_H,
        "left": left,
        "right": left + width,
        "top": top,
        "bottom": top + height,
        "x_ticks": [{"at": sx(10**p), "label": _decade_label(p)} for p in range(x_hi + 1)],
        "y_ticks": [
            {"at": sy(10**p), "label": _decade_label(p)} for p in range(y_lo, y_hi + 1, y_step)
        ],
        "line": " ".join(f"{d['x']},{d['y']}" for d in dots),
        "dots": dots,
        "x_mid": round(left + width / 2, 1),
        "y_mid": round(top + height / 2, 1),
        "first": dots[0],
        "last": dots[-1],
        "has_zero": any(e <= 0 for _, e in points),
    }


# ----------------------------------------------------------------------------- heat maps
LOW = (250, 250, 246)  # probability 0
HIGH = (16, 74, 110)  # probability 1 (the legend in explorer.css uses the same two colours)


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# A heat-map cell's shade is one of SHADES + 1 steps from LOW to HIGH (the number in the cell
# is exact; the shade repeats it). Each step is a class of static/css/heat.css, which
# :func:`heat_css` writes: the pages carry no inline style, which the site's CSP forbids.


def shade_colours(level: int) -> tuple[str, str]:
    """The background of shade ``level`` (0 to SHADES) and a text colour that keeps the
    number readable on it."""
    p = level / SHADES
    rgb = tuple(round(lo + (hi - lo) * p) for lo, hi in zip(LOW, HIGH, strict=True))
    lum = _luminance(rgb)  # type: ignore[arg-type]
    dark_text = (lum + 0.05) / (_luminance((29, 35, 48)) + 0.05)
    light_text = 1.05 / (lum + 0.05)
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#1d2330" if dark_text >= light_text else "#ffffff"


def heat_css() -> str:
    """The text of static/css/heat.css: one rule per shade."""
    lines = [
        "/* Heat-map shades, from probability 0 to 1: made by games.explorer.heat_css() (edit",
        "   that, then write its text here; tests/site/test_explorer.py checks they agree). */",
    ]
    for level in range(SHADES + 1):
        bg, fg = shade_colours(level)
        lines.append(f"table.heat td.shade-{level} {{ background: {bg}; color: {fg}; }}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- views
def asker(request: HttpRequest) -> dict[str, Any]:
    """Whom a solve asked for by ``request`` is counted against (``solves.submit``'s
    ``user`` and ``guest_address``): the signed-in person, else the guests of the client's
    address (live tables' keyed hash of it: a new guest session costs nothing)."""
    user = request.user if request.user.is_authenticated else None
    return {
        "user": user,
        "guest_address": "" if user is not None else address_key(client_ip(request)),
    }


def _time_left(seconds: float) -> str:
    if seconds < 60:
        return f"{max(round(seconds), 1)} s"
    return plural(int(seconds / 60 + 0.5), "minute")


def busy_words(busy: solves.Busy) -> str:
    """The form's refusal when the queue is full: how full, when a place frees (when one of
    the solves ends: how many run, and the soonest one's time left by its pace), or that none
    runs and why."""
    n = busy.open_solves
    text = (
        f"The solver is busy: {plural(n, 'solve')} {'is' if n == 1 else 'are'} waiting or "
        "running, as many as the site takes at once; a place frees when one of them ends (a "
        "solve someone already ran answers at once)."
    )
    running = busy.running
    if running:
        text += f" {running} {'is' if running == 1 else 'are'} running now"
        if busy.seconds_left is not None:
            soonest = "" if running == 1 else ", the soonest to end"
            text += f"{soonest} with about {_time_left(busy.seconds_left)} left"
        return text + "."
    if busy.workers_busy:
        return text + " None is running now: the site's workers are busy with other work."
    return text + " None is running now: no worker is at work on the site."


def _fmt_signed(x: float) -> str:
    return f"{x:+.4f}".replace("+0.0000", "0.0000").replace("-0.0000", "0.0000")


def result_context(job: JobView, at_text: str | None) -> dict[str, Any]:
    doc = job.document or {}
    settings = job.settings
    value = doc.get("value", [0.0, 0.0])
    tree = doc.get("tree", {})
    iterations = max(int(doc.get("iterations", 1)), 1)
    context: dict[str, Any] = {
        "payoffs": [_fmt_signed(value[0]), _fmt_signed(value[1])],
        "expected": [(name, f"{v:.4f}") for name, v in doc.get("expected", {}).items()],
        "tree": {k: f"{v:,}" for k, v in tree.items()},
        "build_seconds": f"{doc.get('build_seconds', 0.0):.3f}",
        "train_seconds": f"{doc.get('train_seconds', 0.0):.3f}",
        "ms_per_iteration": f"{1000 * doc.get('train_seconds', 0.0) / iterations:.3f}",
        "exploitability": f"{doc.get('exploitability', 0.0):.3g}",
        "chart": convergence_chart(doc.get("convergence", [])),
        "convergence": [(int(i), f"{e:.3g}") for i, e in doc.get("convergence", [])],
        "tables": [],
        "reading": "",
        "crumbs": [],
        "at_invalid": False,
    }
    # the game lays its strategy out (games/<game>/strategy.py): tables, how to read them,
    # and for a game explored a situation at a time where the view stands
    solver = solvers().get(settings.game)
    if solver is not None and solver.strategy is not None:
        base = reverse("explorer-job", args=[job.id])
        context |= solver.strategy(job.pages(), doc.get("settings", {}), at_text, base)
    return context


def _form_page(request: HttpRequest, form: ExplorerForm, status: int = 200, busy: str = ""):
    bounds = solves.Bounds.from_settings()
    return render(
        request,
        "solver/explorer.html",
        {
            "form": form,
            "limits": [(titles()[g], n) for g, n in web_limits().items()],
            "limits_json": json.dumps(web_limits()),
            "option_limits_json": json.dumps(option_limits()),
            "defaults_json": json.dumps(default_iterations()),
            "option_groups": form.option_groups(),
            "option_notes": [
                (titles()[slug], option.web_note)
                for slug, options in game_options().items()
                for option in options
                if option.web_note
            ],
            "recent": [JobView(job, bounds) for job in solves.recent()],
            "recent_per_asker": solves.RECENT_PER_ASKER,
            "busy": busy,
            "bounds": bounds,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def explorer(request: HttpRequest) -> HttpResponse:
    """The form; a valid POST queues the solve (or finds the job of the same settings) and
    redirects to its page."""
    if request.method == "POST":
        form = ExplorerForm(request.POST)
        if not form.is_valid():
            return _form_page(request, form)
        try:
            job = solves.submit(form.settings(), **asker(request))
        except solves.OverShare as share:
            response = _form_page(request, form, status=429, busy=share.message)
            response["Retry-After"] = str(share.retry_after)
            return response
        except solves.Busy as busy:
            response = _form_page(request, form, status=429, busy=busy_words(busy))
            response["Retry-After"] = str(busy.retry_after)
            return response
        response = HttpResponse(status=303)
        response["Location"] = reverse("explorer-job", args=[job.digest])
        return response
    fields = ["game", "algorithm", "iterations"]
    fields += [n for options in game_options().values() for o in options for n in o.field_names]
    initial = {k: request.GET[k] for k in fields if k in request.GET}
    return _form_page(request, ExplorerForm(initial=initial))


def _missing(request: HttpRequest) -> HttpResponse:
    bounds = solves.Bounds.from_settings()
    context = {"keep": bounds.keep, "keep_per_asker": bounds.keep_per_asker}
    return render(request, "solver/missing.html", context, status=404)


@require_GET
def job_page(request: HttpRequest, job_id: str) -> HttpResponse:
    row = solves.find(job_id, document=True)
    if row is None:
        return _missing(request)
    solves.touch(row)
    job = JobView(row)
    context: dict[str, Any] = {"job": job, "settings": job.settings}
    if job.done:
        context.update(result_context(job, request.GET.get("at")))
    return render(request, "solver/job.html", context)


@require_GET
def job_progress(request: HttpRequest, job_id: str) -> JsonResponse:
    row = solves.find(job_id)
    if row is None:
        return JsonResponse(
            {"error": "no such solve: it was never asked for, or was forgotten to make room"},
            status=404,
        )
    response = JsonResponse(JobView(row).progress())
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def job_download(request: HttpRequest, job_id: str) -> HttpResponse:
    row = solves.find(job_id, document=True)
    if row is None or row.status != SolveJob.DONE:
        raise Http404("no finished solve with this id")
    solves.touch(row)
    name = SolveSettings.of(row).file_name()
    # streamed: a strategy of 475,000 information sets is 29 MB of JSON
    chunks = solves.StoredPages(row).document_chunks()
    response = StreamingHttpResponse(chunks, content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.json")
    return response


urlpatterns = [
    path("", explorer, name="explorer"),
    path("jobs/<slug:job_id>/", job_page, name="explorer-job"),
    path("jobs/<slug:job_id>.json", job_progress, name="explorer-progress"),
    path("jobs/<slug:job_id>/result.json", job_download, name="explorer-download"),
]
