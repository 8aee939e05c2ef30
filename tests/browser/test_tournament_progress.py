"""A running tournament's page whose socket stays open but says nothing (workers that publish
no progress: no REDIS_URL of theirs): the page polls the progress meanwhile, so it shows the
tournament as it is whatever the workers publish. The socket is the test's own (open, silent
after its first message); the page and the progress JSON are the live site's. The page's clock
is Playwright's, moved on by hand: no waiting out the 10 s of silence."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.browser


def pending_tournaments(live_site, count: int) -> list[int]:
    """Tournaments of no match at all: no worker ever takes them, so they stay pending."""
    script = (
        "from bots.models import Tournament\n"
        f"print(*[Tournament.objects.create(game='rps-poker', name=f'Quiet socket {{i}}').pk"
        f" for i in range({count})])\n"
    )
    out = live_site.manage("shell", "-c", script)
    return [int(pk) for pk in out.strip().splitlines()[-1].split()]


def finish(live_site, pk: int) -> None:
    script = (
        "from django.utils import timezone\n"
        "from bots.models import Tournament\n"
        f"Tournament.objects.filter(pk={pk}).update(state='done', finished=timezone.now())\n"
    )
    live_site.manage("shell", "-c", script)


def test_a_silent_socket_does_not_keep_the_page_from_updating(open_tabs, live_site, screenshots):
    for viewport, pk in zip(("phone", "desktop"), pending_tournaments(live_site, 2), strict=True):
        tab = open_tabs(viewport)
        page = tab.page
        page.clock.install()

        def with_socket(route, request, pk=pk) -> None:
            # a site without a shared layer offers no socket: this page has one all the same
            response = route.fetch()
            body = response.text()
            if "data-socket-path" not in body:
                body = body.replace(
                    'id="progress"', f'id="progress" data-socket-path="/ws/tournaments/{pk}/"', 1
                )
            route.fulfill(response=response, body=body)

        def silent(ws, pk=pk) -> None:
            # what the site's socket sends on connect, then nothing (no worker publishes)
            ws.send(
                json.dumps(
                    {
                        "type": "progress",
                        "tournament": pk,
                        "state": "pending",
                        "finished": False,
                        "jobs": {"queued": 3, "running": 0, "done": 0, "failed": 0},
                        "total": 3,
                        "percent": 0.0,
                        "recent": [],
                    }
                )
            )

        page.route(f"**/tournaments/{pk}/", with_socket)
        page.route_web_socket(re.compile(rf"/ws/tournaments/{pk}/$"), silent)
        page.goto(f"/tournaments/{pk}/")
        page.locator('[data-count="queued"]', has_text="3").wait_for()  # the socket's message
        assert page.locator("#tournament-state").inner_text() == "pending"
        finish(live_site, pk)  # (the worker's doing, which it published nowhere)
        page.clock.run_for(10_500)  # ten seconds of silence: the page polls
        page.locator("#tournament-state", has_text="done").wait_for()
        assert page.locator('[data-count="queued"]').inner_text() == "0"
        page.screenshot(path=screenshots / f"tournament-silent-socket-{viewport}.png")
        with page.expect_navigation():
            page.clock.run_for(1_000)  # finished: the page loads again, with the results
        assert page.locator("#progress").get_attribute("data-finished") == "true"
        assert page.locator("#tournament-state").inner_text() == "done"
        assert tab.console.take() == []


def test_a_burst_of_worker_messages_fetches_the_results_once(open_tabs, live_site):
    """A worker sends a message per stored match, with the counts but not the latest results:
    the page fetches them once for the burst (FETCH_MS after its first message), not once a
    message, so a busy tournament's open pages do not each read the progress per match."""
    (pk,) = pending_tournaments(live_site, 1)
    tab = open_tabs("desktop")
    page = tab.page
    page.clock.install()
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "progress.json" in r.url else None)

    def with_socket(route, request) -> None:
        response = route.fetch()
        body = response.text()
        if "data-socket-path" not in body:
            body = body.replace(
                'id="progress"', f'id="progress" data-socket-path="/ws/tournaments/{pk}/"', 1
            )
        route.fulfill(response=response, body=body)

    def burst(ws) -> None:
        # the site's message on connect, then ten of a worker's, one per match stored
        jobs = {"queued": 10, "running": 0, "done": 0, "failed": 0}
        ws.send(json.dumps({"type": "progress", "tournament": pk, "state": "running",
                            "finished": False, "jobs": jobs, "recent": []}))  # fmt: skip
        for n in range(1, 11):
            jobs = {"queued": 10 - n, "running": 0, "done": n, "failed": 0}
            ws.send(json.dumps({"type": "progress", "tournament": pk, "match": n,
                                "scores": [1, 0], "finished": False, "jobs": jobs}))  # fmt: skip

    page.route(f"**/tournaments/{pk}/", with_socket)
    page.route_web_socket(re.compile(rf"/ws/tournaments/{pk}/$"), burst)
    page.goto(f"/tournaments/{pk}/")
    page.locator('[data-count="done"]', has_text="10").wait_for()  # the counts: at once
    assert fetched == []
    page.clock.run_for(2_500)  # the burst's one fetch
    page.wait_for_timeout(300)
    assert len(fetched) == 1, fetched
    page.clock.run_for(5_000)  # nothing more to fetch (the socket is silent for 10 s first)
    page.wait_for_timeout(300)
    assert len(fetched) == 1, fetched
    assert tab.console.take() == []
