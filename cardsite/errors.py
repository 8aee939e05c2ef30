"""The site's error pages: 400, 403, 404 and 405 in the site's frame (templates/error.html), each
with a sentence saying what was wrong and links back to where a person can go on; 500 is a
page standing alone (templates/500.html), rendered without a database or a request context.

Django calls the handlers below (named in cardsite.urls) only when DEBUG is off. Views that
answer an HTML page's bad address themselves call :func:`error_page` with their own sentence.
Addresses under ``/api/`` and JSON documents (``.json``) get a JSON ``{"error": ...}``, as
the API's own errors are. A view that refuses a request's method with an empty 405 (Django's
``require_POST``...) gets the site's 405 page from :class:`NotAllowedPageMiddleware`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin

TITLES = {400: "Bad request", 403: "Not allowed", 404: "Not found", 405: "Not a page to open"}


@dataclass(frozen=True)
class Link:
    url: str
    label: str


HOME = Link("/", "Home: every game")
LEADERBOARDS = Link("/leaderboards/", "Leaderboards: every game's bots, ranked")
TOURNAMENTS = Link("/tournaments/", "Tournaments and their matches")
TABLES = Link("/tables/", "Play at a live table")
MY_BOTS = Link("/my/bots/", "My bots")
SOLVER = Link("/solver/", "Strategy explorer")

#: the page a person was looking for, by the start of its address: where to go instead
PLACES: list[tuple[re.Pattern[str], list[Link]]] = [
    (re.compile(r"^/(my/)?bots/"), [LEADERBOARDS, MY_BOTS]),
    (re.compile(r"^/matches/"), [TOURNAMENTS, LEADERBOARDS, TABLES]),
    (re.compile(r"^/people/"), [LEADERBOARDS]),
    (re.compile(r"^/games/[^/]+/leaderboard/"), [LEADERBOARDS]),
    (re.compile(r"^/(games/[^/]+/)?tables/"), [TABLES]),
    (re.compile(r"^/tournaments/"), [TOURNAMENTS]),
    (re.compile(r"^/solver/"), [SOLVER]),
    (re.compile(r"^/leaderboards/"), [LEADERBOARDS]),
]

#: what was not found, said in words, where the view's own message is a generic one
MISSING: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^/bots/(\d+)/"), "There is no bot number {0} on Card Arena."),
    (re.compile(r"^/matches/(\d+)/"), "There is no match number {0} on Card Arena."),
    (re.compile(r"^/tournaments/(\d+)/"), "There is no tournament number {0} on Card Arena."),
    (re.compile(r"^/people/([^/]+)/"), "Nobody is called “{0}” on Card Arena."),
    (re.compile(r"^/tables/([^/]+)/"), "There is no live table at this address."),
]

#: get_object_or_404's message, which names a model, not what a person asked for
GENERIC = re.compile(r"^No .* matches the given query\.?$")


def links_for(path: str) -> list[Link]:
    """Home, then the lists nearest to the page that was asked for."""
    for pattern, links in PLACES:
        if pattern.match(path):
            return [HOME, *links]
    return [HOME, LEADERBOARDS, TABLES]


def sentence(text: str) -> str:
    """A view's message (written lower case, without a full stop) as a sentence."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path.endswith(".json")


def error_page(
    request: HttpRequest, status: int, message: str, links: list[Link] | None = None
) -> HttpResponse:
    """The site's page for an error ``status`` (400, 403, 404 or 405) saying ``message``, with
    links back (by default those nearest to the address asked for)."""
    if wants_json(request):
        return JsonResponse({"error": message}, status=status)
    if links is None:
        links = links_for(request.path)
        if status == 400 and request.method == "GET" and request.GET:
            # the address was right but for what it asked: the page as it comes
            links = [*links, Link(request.path, "The same page, as it opens by default")]
    context = {
        "status": status,
        "heading": TITLES[status],
        "message": sentence(message),
        "links": links,
    }
    return render(request, f"{status}.html", context, status=status)


def _message(exception: Exception | None) -> str:
    """The view's own words, if it gave any (a resolver's miss carries a dict, not words)."""
    if exception is None or not exception.args or not isinstance(exception.args[0], str):
        return ""
    text = exception.args[0]
    return "" if GENERIC.match(text) else text


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    for pattern, words in MISSING:
        found = pattern.match(request.path)
        if found:
            return error_page(request, 404, words.format(found.group(1)))
    message = _message(exception) or f"There is no page at {request.path} on Card Arena."
    return error_page(request, 404, message)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # a SuspiciousOperation's words may describe an attack: they are logged, not shown
    return error_page(request, 400, "The site could not understand this request.")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _message(exception) or "This page is not yours to see or change."
    links = links_for(request.path)
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        links = [*links, Link("/accounts/login/?" + urlencode({"next": request.path}), "Log in")]
    return error_page(request, 403, message, links)


def not_allowed(request: HttpRequest, allowed: str) -> HttpResponse:
    """The site's 405 page for a request whose method the address does not take."""
    if request.method in ("GET", "HEAD") and "GET" not in allowed:
        message = (
            "This address is where a button of the site sends its form: it is not a page "
            "to open from a link, a bookmark or the address bar."
        )
    else:
        message = f"This address does not take a {request.method[:20]} request."
    response = error_page(request, 405, message)
    response["Allow"] = allowed
    return response


class NotAllowedPageMiddleware(MiddlewareMixin):
    """An empty 405 (``require_POST`` and the like) of an HTML address becomes the site's
    405 page, with the same ``Allow`` header; the API's and JSON answers are left as they are."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            response.status_code == 405
            and not response.streaming
            and not response.content
            and not wants_json(request)
        ):
            return not_allowed(request, response.get("Allow", ""))
        return response
