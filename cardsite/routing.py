"""Websocket routes. Live tables add theirs here."""

from django.urls import path

from games.consumers import PingConsumer, TournamentProgressConsumer
from games.live.consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
    path("ws/tournaments/<int:pk>/", TournamentProgressConsumer.as_asgi()),
    path("ws/tables/<str:token>/", TableConsumer.as_asgi()),
]
