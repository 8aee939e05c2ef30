"""URL map. Each area keeps its own routes: accounts (cardsite.accounts), bots (bots.urls),
matches and replays (games.matchpages), the JSON API (games.api), and the game pages here."""

from django.contrib import admin
from django.urls import include, path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("games/<slug:slug>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("accounts/", include("cardsite.accounts")),
    path("", include("bots.urls")),
    path("", include("games.matchpages")),
    path("api/", include("games.api")),
    path("admin/", admin.site.urls),
]
