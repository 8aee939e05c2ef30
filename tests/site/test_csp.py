"""The Content-Security-Policy: on every response, and pages that need nothing inline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws://localhost; frame-ancestors 'none'; base-uri 'self'; "
    "form-action 'self'; object-src 'none'"
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200),
        ("/games/rps-poker/leaderboard/", 200),
        ("/games/rps-poker/", 200),
        ("/games/kuhn/tables/", 200),
        ("/accounts/login/", 200),
        ("/solver/", 200),
        ("/no/such/page/", 404),
        ("/games/no-such-game/", 404),
        ("/static/css/site.css", 200),
        ("/my/bots/", 302),
    ],
)
def test_every_response_carries_the_policy(path, status):
    response = Client(HTTP_HOST="localhost").get(path)
    response.close()  # a static file's is open until then
    assert response.status_code == status
    assert response["Content-Security-Policy"] == POLICY


@pytest.mark.django_db
def test_the_websocket_source_follows_the_host_and_scheme(settings):
    settings.ALLOWED_HOSTS = ["arena.example.org"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client(HTTP_HOST="arena.example.org:8443", HTTP_X_FORWARDED_PROTO="https")
    policy = client.get("/")["Content-Security-Policy"]
    assert "connect-src 'self' wss://arena.example.org:8443;" in policy
    # a Host the site does not serve gets 400, still under the policy, naming no host
    refused = Client(HTTP_HOST="evil.example").get("/")
    assert refused.status_code == 400
    assert "connect-src 'self';" in refused["Content-Security-Policy"]


#: what the policy refuses to run or apply when it is written into a page
INLINE = {
    "inline script": re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>"),
    "style block": re.compile(r"<style\b", re.I),
    "style attribute": re.compile(r"\sstyle\s*=", re.I),
    "event handler": re.compile(r"\son[a-z]+\s*=", re.I),
    "javascript: address": re.compile(r"javascript:", re.I),
}


def test_no_template_holds_inline_script_style_or_handler():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert len(templates) > 20
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {what}"
        for path in templates
        for text in [path.read_text()]
        for what, pattern in INLINE.items()
        for m in pattern.finditer(text)
    ]
    assert found == []


def test_the_inline_patterns_find_what_they_look_for():
    page = (
        '<script>alert(1)</script><p style="color:red" onclick="x()">'
        '<a href="javascript:x()"></a><style>p{}</style>'
    )
    assert {what for what, pattern in INLINE.items() if pattern.search(page)} == set(INLINE)
    allowed = (
        '<script src="/static/js/table.js" defer></script>'
        '<script id="table-setup" type="application/json">{}</script>'
        '<link rel="stylesheet" href="/static/css/site.css"><p class="on">'
    )
    assert [what for what, pattern in INLINE.items() if pattern.search(allowed)] == []


def test_no_script_writes_markup_with_inline_style_or_handlers():
    scripts = sorted((ROOT / "static" / "js").glob("*.js"))
    assert scripts
    found = [
        f"{path.name}: {m.group()}"
        for path in scripts
        for m in re.finditer(
            r"setAttribute\(\s*['\"](?:style|on[a-z]+)['\"]|style=|\son[a-z]+=|eval\(|new Function",
            path.read_text(),
        )
    ]
    assert found == []
