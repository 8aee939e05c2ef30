"""Accounts: sign up, log in (rate-limited), log out, password change."""

from __future__ import annotations

urlpatterns: list = []
