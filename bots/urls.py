"""Pages about bots: my bots (upload, versions, activate / retire) and the public bot page."""

from __future__ import annotations

from django.urls import path

from bots.pages import playground as playground_views
from bots.pages import views

urlpatterns = [
    path("my/bots/", views.my_bots, name="my_bots"),
    path("my/bots/<int:pk>/retire/", views.bot_retire, name="bot_retire"),
    path("my/bots/versions/<int:pk>/status.json", views.version_status, name="version_status"),
    path("my/bots/versions/<int:pk>/activate/", views.version_activate, name="version_activate"),
    path("my/bots/versions/<int:pk>/code/", views.version_download, name="version_download"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/versions/", views.bot_versions, name="bot_versions"),
    path("games/<slug:slug>/playground/", playground_views.playground_form, name="playground"),
    path("playground/<str:key>/", playground_views.run_page, name="playground_run"),
    path("playground/<str:key>/status.json", playground_views.run_status, name="playground_status"),
    path("playground/<str:key>/results/", playground_views.run_results, name="playground_results"),
    path("playground/<str:key>/submit/", playground_views.submit_version, name="playground_submit"),
    path(
        "playground/<str:key>/matches/<str:number>/",
        playground_views.match_page,
        name="playground_match",
    ),
    path(
        "playground/<str:key>/matches/<str:number>/replay.json",
        playground_views.match_replay,
        name="playground_replay",
    ),
]
