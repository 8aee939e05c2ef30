"""Production security settings: HTTPS for a site reached by its real name, plain http for a run
on this machine, Django's deployment check clean, and a client address that cannot be forged."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.test import RequestFactory

from cardsite.accounts import client_ip
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"DEBUG": "0", "ALLOWED_HOSTS": "arena.example.org"}
#: variables of the developer's shell that would change what is tested
OURS = {
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "TRUSTED_PROXIES",
    "DATABASE_URL",
    "REDIS_URL",
}

#: requests the page over http and over "https" (as a proxy says it), through the real settings
PROBE = """
import json, sys
import django
django.setup()
from django.conf import settings
from django.test import Client
host = sys.argv[1]
client = Client(HTTP_HOST=host)
plain = client.get("/accounts/login/")
proxied = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
cookie = proxied.cookies.get("csrftoken")
print(json.dumps({
    "plain_status": plain.status_code,
    "plain_location": plain.get("Location"),
    "plain_hsts": plain.get("Strict-Transport-Security"),
    "https_status": proxied.status_code,
    "https_hsts": proxied.get("Strict-Transport-Security"),
    "csrf_cookie_secure": bool(cookie and cookie["secure"]),
    "session_cookie_secure": settings.SESSION_COOKIE_SECURE,
    "nosniff": proxied.get("X-Content-Type-Options"),
    "frame": proxied.get("X-Frame-Options"),
}))
"""


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    return clean | {
        "DJANGO_SETTINGS_MODULE": "cardsite.settings",
        "CARD_ARENA_VAR": str(tmp_path),
        **env,
    }


def run(tmp_path: Path, args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environment(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def probe(tmp_path: Path, host: str, **env: str) -> dict:
    done = run(tmp_path, ["-c", PROBE, host], **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def deploy_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    return run(tmp_path, ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)


def test_the_deployment_check_is_clean_with_production_settings(tmp_path):
    done = deploy_check(tmp_path, SECRET_KEY=secrets.token_urlsafe(50), **PRODUCTION)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "System check identified no issues (0 silenced)." in output
    assert "WARNING" not in output
    assert "security.W" not in output


def test_the_deployment_check_also_passes_with_the_generated_secret_key(tmp_path):
    done = deploy_check(tmp_path, **PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "secret_key").exists()


def test_the_deployment_check_flags_a_site_switched_to_plain_http(tmp_path):
    done = deploy_check(tmp_path, SECRET_KEY=secrets.token_urlsafe(50), SECURE="0", **PRODUCTION)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in output


def test_a_production_site_redirects_to_https_and_sends_hsts(tmp_path):
    seen = probe(tmp_path, "arena.example.org", **PRODUCTION)
    assert seen["plain_status"] == 301
    assert seen["plain_location"] == "https://arena.example.org/accounts/login/"
    assert seen["plain_hsts"] is None
    assert seen["https_status"] == 200
    assert seen["https_hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert seen["csrf_cookie_secure"] is True
    assert seen["session_cookie_secure"] is True
    assert seen["nosniff"] == "nosniff"
    assert seen["frame"] == "DENY"


def test_a_run_on_localhost_stays_plain_http(tmp_path):
    # what scripts/run-site and the tests get: DEBUG off, ALLOWED_HOSTS left at localhost
    seen = probe(tmp_path, "127.0.0.1", DEBUG="0")
    assert seen["plain_status"] == 200
    assert seen["plain_location"] is None
    assert seen["plain_hsts"] is None
    assert seen["https_hsts"] is None
    assert seen["csrf_cookie_secure"] is False


def test_secure_0_switches_https_off_for_a_plain_http_run_on_other_names(tmp_path):
    seen = probe(tmp_path, "arena.example.org", SECURE="0", **PRODUCTION)
    assert seen["plain_status"] == 200
    assert seen["https_hsts"] is None


def test_it_refuses_a_negative_proxy_count(tmp_path):
    done = run(tmp_path, ["manage.py", "check"], TRUSTED_PROXIES="-1")
    assert done.returncode != 0
    assert "TRUSTED_PROXIES=-1 must be 0 or more" in done.stderr


ASGI_APP = "cardsite.asgi:application"


def test_daphne_serves_the_log_in_page_over_plain_http_on_localhost(tmp_path):
    """The way scripts/run-site serves the site: no redirect to https, no HSTS."""
    port = free_port()
    daphne = subprocess.Popen(
        [sys.executable, "-m", "cardsite.serve", "-b", "127.0.0.1", "-p", str(port), ASGI_APP],
        cwd=ROOT,
        env=environment(tmp_path, DEBUG="0"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/") as page:
                    status, headers, body = page.status, page.headers, page.read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                assert daphne.poll() is None, daphne.stderr.read().decode()
                assert time.monotonic() < deadline, "daphne did not answer"
                time.sleep(0.2)
    finally:
        daphne.terminate()
        daphne.wait(timeout=30)
        daphne.stderr.close()
    assert status == 200
    assert page.url == f"http://127.0.0.1:{port}/accounts/login/"
    assert headers.get("Strict-Transport-Security") is None
    assert 'name="csrfmiddlewaretoken"' in body


# The client's address ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.5", "192.0.2.1"),  # nobody is trusted: the header is ignored
        (1, "10.9.9.9, 203.0.113.5", "203.0.113.5"),  # the proxy appended the real address
        (2, "10.9.9.9, 203.0.113.5, 198.51.100.2", "203.0.113.5"),
        (2, "203.0.113.5", "192.0.2.1"),  # fewer entries than proxies: not believed
        (1, "not-an-address", "192.0.2.1"),
        (1, "", "192.0.2.1"),
        (1, "2001:db8::1", "2001:db8::"),  # an IPv6 client is its /64 (test_ipv6_clients)
    ],
)
def test_it_believes_a_forwarded_address_only_from_trusted_proxies(
    settings, proxies, forwarded, expected
):
    settings.TRUSTED_PROXIES = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


def test_the_default_trusts_no_proxy(tmp_path):
    script = "import django; django.setup(); from django.conf import settings; "
    done = run(tmp_path, ["-c", script + "print(settings.TRUSTED_PROXIES)"], **PRODUCTION)
    assert done.stdout.strip() == "0", done.stderr
