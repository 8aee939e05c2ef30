from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from games.registry import game_slugs, get_game


def home(request: HttpRequest) -> HttpResponse:
    games = [get_game(slug) for slug in game_slugs()]
    return render(request, "home.html", {"games": games})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and the start script: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
