"""The project's settings as the layers that run bots read them.

Django's settings once they are loaded (the site, a worker, the tests: their overrides
count); else the settings module that ``DJANGO_SETTINGS_MODULE`` names, read as the plain
module it is, without Django's set-up. That is ``manage.py arena``'s case: a local tournament
needs no app, no database and no server, and starts sooner without importing them."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any


def project_settings() -> Any | None:
    """The settings (attributes such as ``SANDBOX_SLOTS``), or None where none are named."""
    conf = sys.modules.get("django.conf")
    if conf is not None and conf.settings.configured:
        return conf.settings
    name = os.environ.get("DJANGO_SETTINGS_MODULE")
    return importlib.import_module(name) if name else None
