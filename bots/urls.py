"""Pages about bots: my bots (upload, versions, activate / retire) and the public bot page."""

from __future__ import annotations

from django.urls import path

from bots import views

urlpatterns = [
    path("my/bots/", views.my_bots, name="my_bots"),
    path("my/bots/<int:pk>/retire/", views.bot_retire, name="bot_retire"),
    path("my/bots/versions/<int:pk>/status.json", views.version_status, name="version_status"),
    path("my/bots/versions/<int:pk>/activate/", views.version_activate, name="version_activate"),
    path("my/bots/versions/<int:pk>/code/", views.version_download, name="version_download"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/versions/", views.bot_versions, name="bot_versions"),
]
