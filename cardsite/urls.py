"""URL map. Each area keeps its own routes: accounts (cardsite.accounts), bots (bots.urls),
matches and replays (games.matchpages), the JSON API (games.api), and the game pages here."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from cardsite import accounts
from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # browsers ask for /favicon.ico where a page names none (JSON documents)
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    # the games are listed on the home page (a trimmed address lands there, not on a 404)
    path("games/", RedirectView.as_view(url="/#games", permanent=False)),
    path("games/<slug:slug>/", views.game, name="game"),
    path("games/<slug:slug>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("games/<slug:slug>/starter/<slug:language>/", views.starter, name="starter"),
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("api/docs/", views.api_docs, name="api-docs"),
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/<int:pk>/", views.tournament, name="tournament"),
    path(
        "tournaments/<int:pk>/progress.json",
        views.tournament_progress_json,
        name="tournament-progress",
    ),
    path("accounts/", include("cardsite.accounts")),
    path("", include("bots.urls")),
    path("", include("games.matchpages")),
    path("api/", include("games.api")),
    path("solver/", include("games.explorer")),
    path("", include("games.live.urls")),
    path("", include("games.people_views")),
    # the admin's log-in, refused while the address's log-ins are paused (cardsite.accounts)
    path("admin/login/", accounts.admin_login),
    path("admin/", admin.site.urls),
]

# the site's error pages (used when DEBUG is off); 500 is Django's, rendering templates/500.html
handler400 = "cardsite.errors.bad_request"
handler403 = "cardsite.errors.permission_denied"
handler404 = "cardsite.errors.page_not_found"
