"""Fixtures of the site's page tests: a signed-up person and their signed-in client (a file
may define its own of the same name where it needs another)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="x" * 12)


@pytest.fixture
def owner(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def fresh_counters():
    """The site's counters (sign-ups, failed log-ins, wrong passwords) live in the cache,
    which outlives a test's database: emptied before and after (a file asks for it with
    ``pytestmark = pytest.mark.usefixtures("fresh_counters")``)."""
    cache.clear()
    yield
    cache.clear()
