"""The match page of a long match: a 1000-round Ultimate Texas Hold'em placement match of the
built-in ``basic`` bot, loaded in Chromium.

    .venv/bin/python bench/bench_replay_page.py [--runs 7] [--seed 5] [--keep]

It makes a site of its own in a temporary folder (SQLite, static files collected), plays the
session in this process as a live table does (``bots.running.playing.play`` with the built-in bot),
stores it as a placement match of an active bot version, as the worker stores one, and
serves the site with Daphne (``python -m cardsite.serve``) on a free port. Then it measures:

- the page's HTML as the server sends it: bytes, and bytes gzipped (what travels);
- the first request of the page, when the server has not built this replay yet, and the
  same request again; an answer of ``replay.json`` as the viewer asks for it (all frames
  when the page does not say its window, else one window);
- in Chromium (Debian's; CHROMIUM=/path overrides), each run in a fresh browser context (an
  empty HTTP cache), timed by the page itself (Navigation Timing, and observers added to
  the page): the page's load event, the moment the replay viewer is ready (it shows its
  Play button once it has frames), the number of elements then, and the time from choosing
  round 900 in the jump list to the table showing it (where the page has the list).

It prints the min and the median over ``--runs`` runs of each time. ``--seed`` picks the
session (seed 5 lasts the full 1000 rounds; a seed whose session ends early is refused).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUNDS = 1000
#: the round the jump goes to
JUMP_TO = 900
VIEWPORT = {"width": 1280, "height": 800}


def setup_django(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        CARD_ARENA_VAR=str(var),
        DJANGO_SETTINGS_MODULE="cardsite.settings",
        DEBUG="0",
        SECURE="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
    )
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()
    return env


def store_match(seed: int) -> int:
    """A 1000-round session of the built-in ``basic`` bot, stored as a placement match of an
    active version of a bot (as the worker stores one); returns its id."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from bots.competition.uploads import activate
    from bots.models import Bot, BotVersion, Match, MatchSeat, Tournament
    from bots.running.playing import Entry, play
    from games.registry import get_game

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    game = get_game("uth")
    owner = get_user_model().objects.create_user("bench")
    bot = Bot.objects.create(owner=owner, game="uth", name="basic", language="python")
    code = game.builtin_path("basic").read_text()
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    Tournament.objects.all().delete()  # its placement jobs: this bench stores its own match
    played = play(game, [Entry(name=bot.label, builtin="basic")], seed=seed)
    record = json.loads(json.dumps(played.outcome.record))  # as stored: JSON data
    rounds = record["result"]["rounds_played"]
    if rounds != ROUNDS:
        raise SystemExit(f"seed {seed}: the session ended after {rounds} rounds, not {ROUNDS}")
    placement = Tournament.objects.create(
        game="uth", format=Tournament.PLACEMENT, state=Tournament.DONE, finished=timezone.now()
    )
    match = Match.objects.create(
        tournament=placement, game="uth", seed=seed, record=record, duration_s=played.duration_s
    )
    MatchSeat.objects.create(
        match=match, seat=0, bot=bot, version=version, score=record["result"]["scores"][0]
    )
    return match.pk


def start_server(env: dict[str, str], var: Path) -> tuple[subprocess.Popen, str]:
    from cardsite.localservices import free_port

    port = free_port()
    log = open(var / "daphne.log", "ab")  # noqa: SIM115 - open as long as the server runs
    server = subprocess.Popen(
        [sys.executable, "-m", "cardsite.serve", "-b", "127.0.0.1", "-p", str(port),
         "cardsite.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=5) as answer:
                if answer.status == 200:
                    return server, base
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit(f"the server did not start:\n{(var / 'daphne.log').read_text()}")


def fetch(url: str, gzipped: bool = False) -> tuple[bytes, float]:
    headers = {"Accept-Encoding": "gzip"} if gzipped else {}
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:
        body = answer.read()
    return body, time.perf_counter() - started


def first_window_url(base: str, page: str) -> str:
    """The replay frames the viewer asks for first: a window, or all of them (a page that
    does not say its window)."""
    marker = 'data-replay-url="'
    url = page.split(marker, 1)[1].split('"', 1)[0].replace("&amp;", "&")
    if 'data-window="' in page:
        size = page.split('data-window="', 1)[1].split('"', 1)[0]
        url += f"?from=0&count={size}"
    return base + url


#: notes in the page when the viewer is ready: when it shows its Play button (it does once it
#: has frames), whether before DOMContentLoaded or later
READY_WATCH = """
window.replayReady = null;
document.addEventListener("DOMContentLoaded", function () {
  var play = document.querySelector('#replay [data-go="play"]');
  if (!play) return;
  function check() {
    if (!play.hidden && window.replayReady === null) window.replayReady = performance.now();
  }
  check();
  new MutationObserver(check).observe(play, { attributes: true });
});
"""

#: notes in the page when the jump list is changed, and when the table shows the round
JUMP_WATCH = """
function (want) {
  window.jumped = {};
  var label = document.getElementById("replay-label");
  document.getElementById("replay-chapter").addEventListener("change", function () {
    window.jumped.asked = performance.now();
  }, { capture: true });
  new MutationObserver(function () {
    if (label.textContent.indexOf(want) === 0 && window.jumped.shown === undefined) {
      window.jumped.shown = performance.now();
    }
  }).observe(label, { childList: true, characterData: true, subtree: true });
}
"""


def browser_runs(base: str, path: str, runs: int) -> list[dict[str, float]]:
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not executable:
        raise SystemExit("Chromium is needed: apt-get install chromium (or CHROMIUM=/path)")
    args = ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=args)
        try:
            for _ in range(runs):
                context = browser.new_context(base_url=base, viewport=VIEWPORT)
                context.add_init_script(READY_WATCH)
                page = context.new_page()
                page.goto(path, wait_until="load")
                page.wait_for_function("() => window.replayReady !== null", timeout=60_000)
                timing = page.evaluate(
                    "(() => { const n = performance.getEntriesByType('navigation')[0];"
                    " return {response: n.responseEnd, dom: n.domContentLoadedEventEnd,"
                    " load: n.loadEventEnd, ready: window.replayReady}; })()"
                )
                run = {
                    "response": timing["response"],
                    "dom": timing["dom"],
                    "load": timing["load"],
                    "ready": timing["ready"],
                    "elements": page.evaluate("document.getElementsByTagName('*').length"),
                }
                jump = page.locator("#replay-chapter")
                if jump.count():
                    page.evaluate(JUMP_WATCH, f"Round {JUMP_TO}:")
                    jump.select_option(label=f"Round {JUMP_TO}")
                    page.wait_for_function("() => window.jumped.shown !== undefined")
                    run["jump"] = page.evaluate("window.jumped.shown - window.jumped.asked")
                results.append(run)
                context.close()
        finally:
            browser.close()
    return results


def summary(values: list[float], unit: str = "ms") -> str:
    return f"min {min(values):8.1f} {unit}   median {statistics.median(values):8.1f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the temporary site folder")
    options = parser.parse_args()

    var = Path(tempfile.mkdtemp(prefix="bench-replay-page-"))
    server = None
    try:
        env = setup_django(var)
        pk = store_match(options.seed)
        from bots.models import Match
        from games import replays

        record = Match.objects.get(pk=pk).record
        started = time.perf_counter()
        frames = len(replays.build(record).frames)
        build_s = time.perf_counter() - started
        server, base = start_server(env, var)
        path = f"/matches/{pk}/"
        _, cold_page = fetch(base + path)
        page, warm_page = fetch(base + path)
        zipped, _ = fetch(base + path, gzipped=True)
        window_url = first_window_url(base, page.decode())
        frames_body, warm_frames = fetch(window_url)
        frames_zipped, _ = fetch(window_url, gzipped=True)
        if frames_zipped[:2] != b"\x1f\x8b":  # the server sent it as it is
            frames_zipped = gzip.compress(frames_zipped)
        runs = browser_runs(base, path, options.runs)

        print(f"UTH session: {ROUNDS} rounds, seed {options.seed}: {frames} steps")
        print(f"building the replay's frames in this process: {build_s * 1000:.0f} ms")
        print(f"HTML: {len(page):,} bytes ({len(zipped):,} gzipped)")
        print(
            f"replay.json as the viewer asks for it ({window_url.split('/')[-1]}): "
            f"{len(frames_body):,} bytes ({len(frames_zipped):,} gzipped), "
            f"{warm_frames * 1000:.0f} ms"
        )
        print(
            f"page by HTTP: first request {cold_page * 1000:.0f} ms (the server builds the "
            f"replay), then {warm_page * 1000:.0f} ms"
        )
        print(f"Chromium, {options.runs} runs, each in a fresh context:")
        print(f"  response end       {summary([r['response'] for r in runs])}")
        print(f"  DOMContentLoaded   {summary([r['dom'] for r in runs])}")
        print(f"  load event         {summary([r['load'] for r in runs])}")
        print(f"  viewer ready       {summary([r['ready'] for r in runs])}")
        print(f"  elements           {summary([r['elements'] for r in runs], '')}")
        if all("jump" in r for r in runs):
            print(f"  jump to round {JUMP_TO}  {summary([r['jump'] for r in runs])}")
        else:
            print("  jump to a round    (the page has no jump control)")
    finally:
        if server is not None:
            os.killpg(server.pid, 15)
            server.wait(timeout=15)
        if options.keep:
            print(f"site folder kept: {var}")
        else:
            shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
