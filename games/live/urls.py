"""Pages of live tables: each game's lobby, creating and joining tables, the table itself."""

from __future__ import annotations

from django.urls import path

from games.live import views

urlpatterns = [
    path("tables/", views.tables_index, name="tables"),
    path("games/<slug:slug>/tables/", views.lobby, name="lobby"),
    path("games/<slug:slug>/tables/quick/", views.quick_play, name="quick-play"),
    path("tables/<slug:token>/", views.table_page, name="table"),
    path("tables/<slug:token>/join/<int:seat>/", views.join, name="table-join"),
    path("tables/<slug:token>/leave/", views.leave, name="table-leave"),
    path("tables/<slug:token>/again/", views.again, name="table-again"),
]
