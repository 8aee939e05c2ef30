"""Websocket routes. Live tables add theirs here."""

from django.urls import path

from games.consumers import PingConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
]
