"""Which pages may open a websocket to this site: those of the site itself.

A browser sends the ``Origin`` of the page that opens a websocket (``scheme://host[:port]``),
and sends the site's cookies with the handshake whatever that page is; so a socket from
another origin would act with the visitor's session (cross-site websocket hijacking).
Channels' ``AllowedHostsOriginValidator`` compares only the origin's host name with
``ALLOWED_HOSTS``: ``http://localhost:9999`` (anything else served on this machine) passed
for a site on ``localhost:8000``. :class:`SameOriginValidator` accepts an origin only when
its scheme, host and port are those of the request itself, or when it is one of
``CSRF_TRUSTED_ORIGINS``:

- the request's own origin: the ``Host`` header the socket came in on (a host that
  ``ALLOWED_HOSTS`` accepts, port included, the scheme's default port when it names none),
  with ``https`` when the socket is ``wss`` or when a trusted TLS proxy says so
  (``SECURE_PROXY_SSL_HEADER``, the same rule as Django's ``request.is_secure()``), else
  ``http``;
- ``CSRF_TRUSTED_ORIGINS``: each one exactly (scheme, host and port), or with a leading
  ``*.`` in the host for that domain and its subdomains, as Django reads that setting for
  forms.

A handshake without an ``Origin`` header is refused. Every browser sends one on a websocket
handshake, so only other programs come without it; they are given no way around the check and
send the site's origin like a browser would (as the test clients and ``bench/`` do).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}

#: (scheme, host, port): the host lower-case, without brackets for IPv6
Origin = tuple[str, str, int]


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as a tuple, or None for anything else (``null``, a path, a
    scheme other than http and https, a port out of range)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username is not None:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def _headers(scope: dict[str, Any]) -> dict[bytes, str]:
    found: dict[bytes, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.lower(), value.decode("latin1"))
    return found


def request_origin(scope: dict[str, Any], headers: dict[bytes, str]) -> Origin | None:
    """The origin of the site as this socket reached it, or None when its ``Host`` header is
    missing or not one of ``ALLOWED_HOSTS``."""
    host = headers.get(b"host", "").strip()
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") == "wss"
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy is not None:
        meta_name, wanted = proxy
        # HTTP_X_FORWARDED_PROTO -> x-forwarded-proto
        name = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin1")
        forwarded = headers.get(name)
        if forwarded is not None:
            secure = forwarded.split(",", 1)[0].strip() == wanted
    return parse_origin(f"{'https' if secure else 'http'}://{host}")


def _trusted(origin: Origin, pattern: str) -> bool:
    wildcard = "://*." in pattern
    wanted = parse_origin(pattern.replace("://*.", "://", 1) if wildcard else pattern)
    if wanted is None:
        return False
    scheme, host, port = wanted
    if (origin[0], origin[2]) != (scheme, port):
        return False
    return origin[1] == host or (wildcard and origin[1].endswith("." + host))


def allowed(scope: dict[str, Any]) -> bool:
    """Whether the websocket handshake ``scope`` comes from a page of this site."""
    headers = _headers(scope)
    given = headers.get(b"origin")
    if given is None:
        return False
    origin = parse_origin(given)
    if origin is None:
        return False
    if origin == request_origin(scope, headers):
        return True
    return any(_trusted(origin, pattern) for pattern in settings.CSRF_TRUSTED_ORIGINS)


class SameOriginValidator:
    """ASGI middleware: a websocket whose ``Origin`` is not this site's is refused (closed
    during the handshake, which the browser reports as a failed connection)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator is for websocket connections only")
        if allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
