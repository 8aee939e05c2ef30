"""The strategy explorer (``/solver/``): solve a game from the browser and look at the result
(docs/explorer.md). The games, their limits and their options are their specs'
(``GameSpec.solver``): this module names no game.

A solve runs in a background thread of the web process, never in the request: a small
in-process :class:`Registry` keyed by the settings starts at most ``max_running`` solves at a
time, keeps finished results (least recently used first out) so the same settings answer at
once, and the job page polls ``/solver/jobs/<id>.json`` for the iteration count. Without
JavaScript the job page refreshes itself until the solve is done.

Iterations are bounded per game (its spec's ``solver.web_limit``) and a game's options to the
choices its spec offers the web (``SolverOption.choices``), so a request cannot start a solve
that runs for minutes or takes gigabytes; the command line (``manage.py solve``) has no such
bounds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods

from games.engine.spec import SolverOption
from games.solver.cfr import Solver
from games.solver.export import ALGORITHM_NAMES, result_document
from games.solver.tree import build
from games.solver.views import SHADES
from games.solver_games import make_game, solvers, titles

log = logging.getLogger(__name__)


def web_limits() -> dict[str, int]:
    """The most iterations a web solve may run, per game (its spec says)."""
    return {slug: solver.web_limit for slug, solver in solvers().items()}


def game_options() -> dict[str, tuple[SolverOption, ...]]:
    """The solvable games whose form takes options of their own, with those options (the
    form's option fields)."""
    return {slug: solver.options for slug, solver in solvers().items() if solver.options}


def options_of(game: str | None) -> tuple[SolverOption, ...]:
    """A game's own options (none for a game that is not solvable)."""
    solver = solvers().get(game or "")
    return solver.options if solver is not None else ()


def default_iterations() -> dict[str, int]:
    """What the form offers first, per game."""
    return {slug: solver.default_iterations for slug, solver in solvers().items()}


ALGORITHM_CHOICES = [("cfr+", "CFR+"), ("cfr", "CFR"), ("dcfr", "Discounted CFR")]


# --------------------------------------------------------------------------- settings, jobs
@dataclass(frozen=True)
class SolveSettings:
    """What one solve is asked to do; equal settings give the same job."""

    game: str
    algorithm: str = "cfr+"
    iterations: int = 1000
    #: the game's own options, (name, value) in its spec's order (``SolverSpec.options``)
    options: tuple[tuple[str, Any], ...] = ()

    def _named(self) -> list[tuple[SolverOption, Any]]:
        own = {option.name: option for option in options_of(self.game)}
        return [(own[name], value) for name, value in self.options]

    @property
    def key(self) -> str:
        parts = [self.game, self.algorithm, str(self.iterations)]
        parts += [option.key(value) for option, value in self._named()]
        return "|".join(parts)

    @property
    def job_id(self) -> str:
        return hashlib.sha256(self.key.encode()).hexdigest()[:16]

    @property
    def game_title(self) -> str:
        return titles()[self.game]

    @property
    def algorithm_title(self) -> str:
        return ALGORITHM_NAMES[self.algorithm]

    @property
    def iterations_text(self) -> str:
        return f"{self.iterations:,}"

    @property
    def options_text(self) -> str:
        """The options in a sentence, their parts named (empty for a game without options):
        ``Sides h/t (first, second), stake 5.``"""
        text = ", ".join(option.detail(value) for option, value in self._named())
        return text[:1].upper() + text[1:] + "." if text else ""

    def describe(self) -> str:
        text = f"{self.game_title}, {self.algorithm_title}, {self.iterations:,} iterations"
        return "".join([text] + [f", {o.describe(v)}" for o, v in self._named()])

    def query(self) -> str:
        """The form's fields as a query string, to open the form with these settings."""
        fields: dict[str, Any] = {
            "game": self.game,
            "algorithm": self.algorithm,
            "iterations": self.iterations,
        }
        for option, value in self._named():
            fields.update(zip(option.field_names, option.split(value), strict=True))
        return "&".join(f"{k}={v}" for k, v in fields.items()).replace("+", "%2B")

    def file_name(self) -> str:
        """The result's file name, without ``.json``: the game, algorithm and iterations
        (``<game>-cfrplus-100``), then each option as it names itself in files."""
        name = f"{self.game}-{self.algorithm.replace('+', 'plus')}-{self.iterations}"
        return "".join([name] + [f"-{o.file_text(v)}" for o, v in self._named()])

    def make_game(self):
        return make_game(self.game, **dict(self.options))


class Job:
    """One solve: its settings, where it has got to, and its result document once done."""

    def __init__(self, settings: SolveSettings) -> None:
        self.settings = settings
        self.id = settings.job_id
        self.state = "running"  # running, done or failed
        self.phase = "waiting"  # waiting, building, training, measuring, done, failed
        self.iteration = 0
        self.total = settings.iterations
        self.created = time.time()
        self.started: float | None = None
        self.elapsed_final: float | None = None
        self.document: dict[str, Any] | None = None
        self.error = ""
        self.solver: Solver | None = None
        #: set by the registry once the job is over and its bookkeeping done
        self.finished = threading.Event()

    # -- written by the solving thread
    def set_iteration(self, n: int) -> None:
        self.iteration = n

    def finish(self, document: dict[str, Any]) -> None:
        self.document = document
        self.iteration = self.total = int(document["iterations"])
        self._end("done")

    def fail(self, message: str) -> None:
        self.error = message
        self._end("failed")

    def _end(self, state: str) -> None:
        self.elapsed_final = self.elapsed()
        self.solver = None
        self.phase = state
        self.state = state

    # -- read by the web
    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    @property
    def done(self) -> bool:
        return self.state == "done"

    def elapsed(self) -> float:
        if self.elapsed_final is not None:
            return self.elapsed_final
        return 0.0 if self.started is None else time.monotonic() - self.started

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

    def eta(self) -> float | None:
        """Seconds of training left, from the pace so far (None before there is a pace)."""
        solver = self.solver
        if self.state != "running" or solver is None or self.iteration < 1:
            return None
        per_iteration = solver.train_seconds / self.iteration
        return round(per_iteration * (self.total - self.iteration), 1)

    def last_measure(self) -> tuple[int, float] | None:
        solver = self.solver
        if solver is not None and solver.convergence:
            i, e = solver.convergence[-1]
            return int(i), float(e)
        return None

    def progress(self) -> dict[str, Any]:
        measured = self.last_measure()
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
            "exploitability_so_far": None if measured is None else list(measured),
            "url": reverse("explorer-job", args=[self.id]),
            "error": self.error,
        }
        if self.done:
            data["download_url"] = reverse("explorer-download", args=[self.id])
        return data


def run_solve(job: Job) -> None:
    """Build the tree, train and keep the result document: what the solving thread does."""
    settings = job.settings
    game = settings.make_game()
    job.started = time.monotonic()
    job.phase = "building"
    tree = build(game)
    solver = Solver(tree, settings.algorithm)
    job.solver = solver
    job.phase = "training"
    solver.train(settings.iterations, progress=job.set_iteration)
    job.phase = "measuring"
    job.finish(result_document(game, solver))


class Busy(Exception):
    """As many solves as allowed are running already."""


class Registry:
    """The solves of this process: at most ``max_running`` at a time, and up to ``max_kept``
    finished ones kept for their settings (the least recently used goes first)."""

    def __init__(
        self,
        max_running: int = 2,
        max_kept: int = 12,
        runner: Callable[[Job], None] = run_solve,
    ) -> None:
        self.max_running = max_running
        self.max_kept = max_kept
        self.runner = runner
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def running(self) -> int:
        return sum(1 for job in self._jobs.values() if job.state == "running")

    def submit(self, settings: SolveSettings) -> Job:
        """The job for ``settings``: the one there is (running or done), else a new one.
        Raises :class:`Busy` when a new one would exceed the cap."""
        with self._lock:
            job = self._jobs.get(settings.job_id)
            if job is not None and job.state != "failed":
                self._jobs.move_to_end(job.id)
                return job
            if self.running() >= self.max_running:
                raise Busy(f"{self.max_running} solves are running already")
            job = Job(settings)
            self._jobs[job.id] = job
            self._jobs.move_to_end(job.id)
            self._evict()
        threading.Thread(target=self._run, args=(job,), name=f"solve-{job.id}", daemon=True).start()
        return job

    def _run(self, job: Job) -> None:
        try:
            self.runner(job)
            if job.state == "running":
                job.fail("The solve stopped without a result.")
        except MemoryError:
            job.fail("The solve ran out of memory.")
        except Exception as exc:  # any failure is shown on the job's page
            log.exception("solve %s failed", job.settings.key)
            job.fail(f"The solve failed: {exc}")
        finally:
            with self._lock:
                self._evict()
            job.finished.set()

    def _evict(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.state != "running"]
        for job_id in finished[: max(0, len(finished) - self.max_kept)]:
            del self._jobs[job_id]

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                self._jobs.move_to_end(job_id)
            return job

    def recent(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.created, reverse=True)


REGISTRY = Registry()


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
        limits = web_limits()
        if game in limits and iterations is not None and iterations > limits[game]:
            self.add_error(
                "iterations",
                f"{titles()[game]}: at most {limits[game]:,} iterations on the web "
                f"(you asked for {iterations:,}; manage.py solve has no limit).",
            )
        for option in options_of(game):
            for name in option.field_names:
                if data.get(name) in (None, "") and name not in self.errors:
                    self.add_error(name, option.missing)
        return data

    def settings(self) -> SolveSettings:
        data = self.cleaned_data
        options = tuple(
            (option.name, option.join([data[name] for name in option.field_names]))
            for option in options_of(data["game"])
        )
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
MARGIN = {"left": 64, "right": 30, "top": 14, "bottom": 46}


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
def _fmt_signed(x: float) -> str:
    return f"{x:+.4f}".replace("+0.0000", "0.0000").replace("-0.0000", "0.0000")


def result_context(job: Job, at_text: str | None) -> dict[str, Any]:
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
        context |= solver.strategy(doc.get("infosets", {}), doc.get("settings", {}), at_text, base)
    return context


def _form_page(request: HttpRequest, form: ExplorerForm, status: int = 200, busy: str = ""):
    return render(
        request,
        "solver/explorer.html",
        {
            "form": form,
            "limits": [(titles()[g], n) for g, n in web_limits().items()],
            "limits_json": json.dumps(web_limits()),
            "defaults_json": json.dumps(default_iterations()),
            "option_groups": form.option_groups(),
            "option_notes": [
                (titles()[slug], option.web_note)
                for slug, options in game_options().items()
                for option in options
                if option.web_note
            ],
            "recent": REGISTRY.recent(),
            "busy": busy,
            "max_running": REGISTRY.max_running,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def explorer(request: HttpRequest) -> HttpResponse:
    """The form; a valid POST starts (or finds) the solve and redirects to its page."""
    if request.method == "POST":
        form = ExplorerForm(request.POST)
        if not form.is_valid():
            return _form_page(request, form)
        try:
            job = REGISTRY.submit(form.settings())
        except Busy:
            response = _form_page(
                request,
                form,
                status=429,
                busy=f"The solver is busy: it runs at most {REGISTRY.max_running} "
                f"solve{'' if REGISTRY.max_running == 1 else 's'} at a time and all are taken. "
                "Try again in a minute (a solve someone already ran answers at once).",
            )
            response["Retry-After"] = "30"
            return response
        response = HttpResponse(status=303)
        response["Location"] = reverse("explorer-job", args=[job.id])
        return response
    fields = ["game", "algorithm", "iterations"]
    fields += [n for options in game_options().values() for o in options for n in o.field_names]
    initial = {k: request.GET[k] for k in fields if k in request.GET}
    return _form_page(request, ExplorerForm(initial=initial))


@require_GET
def job_page(request: HttpRequest, job_id: str) -> HttpResponse:
    job = REGISTRY.get(job_id)
    if job is None:
        return render(request, "solver/missing.html", status=404)
    context: dict[str, Any] = {"job": job, "settings": job.settings}
    if job.done:
        context.update(result_context(job, request.GET.get("at")))
    return render(request, "solver/job.html", context)


@require_GET
def job_progress(request: HttpRequest, job_id: str) -> JsonResponse:
    job = REGISTRY.get(job_id)
    if job is None:
        return JsonResponse({"error": "no such solve (it may have been forgotten)"}, status=404)
    response = JsonResponse(job.progress())
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def job_download(request: HttpRequest, job_id: str) -> HttpResponse:
    job = REGISTRY.get(job_id)
    if job is None or not job.done:
        raise Http404("no finished solve with this id")
    name = job.settings.file_name()
    response = HttpResponse(
        json.dumps(job.document, indent=1) + "\n", content_type="application/json"
    )
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.json")
    return response


urlpatterns = [
    path("", explorer, name="explorer"),
    path("jobs/<slug:job_id>/", job_page, name="explorer-job"),
    path("jobs/<slug:job_id>.json", job_progress, name="explorer-progress"),
    path("jobs/<slug:job_id>/result.json", job_download, name="explorer-download"),
]
