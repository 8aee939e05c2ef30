"""The Content-Security-Policy header on every response (Django 5.2 has no CSP of its own).

The pages load scripts, styles and images from the site only, and hold no inline script,
inline ``style`` attribute, ``<style>`` block or ``on...=`` handler (a test reads every
template for them): so the policy allows nothing inline, and a script that found its way into
a page (through a bot's name, say) would not run. Data handed to a script is a
``json_script`` block, which is data, not code. Websockets go to the site itself: ``'self'``
covers them in browsers that follow CSP Level 3; older ones matched ``'self'`` against
http(s) only, so ``connect-src`` also names the page's own host with ``ws:``/``wss:``.
"""

from __future__ import annotations

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

#: every directive but connect-src, which names the request's own host
DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "frame-ancestors": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "object-src": "'none'",
}
HEADER = "Content-Security-Policy"


def policy_for(request: HttpRequest) -> str:
    """The policy of a response to ``request``."""
    directives = dict(DIRECTIVES)
    try:
        host = request.get_host()  # one that ALLOWED_HOSTS accepts: nothing to inject
    except DisallowedHost:
        host = ""
    if host:
        scheme = "wss" if request.is_secure() else "ws"
        directives["connect-src"] += f" {scheme}://{host}"
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class ContentSecurityPolicyMiddleware(MiddlewareMixin):
    """Adds the policy to every response that does not carry one of its own."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if HEADER not in response:
            response[HEADER] = policy_for(request)
        return response
