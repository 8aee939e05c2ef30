"""ASGI entry point: HTTP through Django, websockets through Channels. Served by
``python -m cardsite.serve`` (Daphne, tuned for live tables: cardsite/serve.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from cardsite.origins import SameOriginValidator  # noqa: E402
from cardsite.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # only pages of this site (scheme, host and port) may open a socket: cardsite/origins.py
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
