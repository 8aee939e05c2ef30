from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from bots.models import LeaderboardRow
from bots.ratings import leaderboard as leaderboard_table
from games.registry import game_slugs, get_game

LEADERS_ON_HOME = 3


def home(request: HttpRequest) -> HttpResponse:
    games = []
    for slug in game_slugs():
        leaders = (
            LeaderboardRow.objects.filter(game=slug)
            .select_related("bot", "bot__owner")
            .order_by("rank")[:LEADERS_ON_HOME]
        )
        spec = get_game(slug)
        # One-seat games (UTH) have no rating: their leaders show the game's own score.
        rated = not spec.plays_alone
        games.append({"spec": spec, "leaders": list(leaders), "rated": rated})
    return render(request, "home.html", {"games": games})


def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        game = get_game(slug)
    except KeyError:
        raise Http404(f"no game {slug!r}") from None
    table = leaderboard_table(slug)
    return render(request, "leaderboard.html", {"game": game, "table": table})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and the start script: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
