"""Card Arena settings, read from the environment with safe defaults for a laptop.

Environment variables (all optional):
    DEBUG              1 to enable Django's debug mode (off by default)
    SECRET_KEY         otherwise generated once into var/secret_key
    ALLOWED_HOSTS      comma-separated; default localhost,127.0.0.1,[::1]
    CSRF_TRUSTED_ORIGINS  comma-separated origins, e.g. https://arena.example.org
    DATABASE_URL       e.g. postgres://user:pass@host:5432/name; default SQLite in var/
    REDIS_URL          e.g. redis://127.0.0.1:6379/0; default in-memory channel layer
    CARD_ARENA_VAR     folder for the SQLite database, secret key and logs; default ./var
    SECURE             1 behind HTTPS: secure cookies, HSTS, SSL redirect
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

from cardsite.env import envbool, envint, envlist, secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CARD_ARENA_VAR", BASE_DIR / "var")).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = envbool("DEBUG", False)
SECRET_KEY = secret_key(VAR_DIR)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "games",
    "bots",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "cardsite.urls"
ASGI_APPLICATION = "cardsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            # Wait for a writer instead of failing at once when the web server and the
            # worker write at the same time.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed copies made by collectstatic; plain names (no manifest), so pages render
    # the same whether or not collectstatic has run.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from static/ when collectstatic has not run (tests, first start).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SECURE = envbool("SECURE", False)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000 if SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Competition (docs/competition.md): bot uploads and the tournament worker.
BOT_MAX_CODE_BYTES = envint("BOT_MAX_CODE_BYTES", 256 * 1024)
#: new versions one user may upload from the site in any hour (docs/uploading.md)
BOT_UPLOADS_PER_HOUR = envint("BOT_UPLOADS_PER_HOUR", 10)
BOT_VALIDATION_MATCHES = envint("BOT_VALIDATION_MATCHES", 2)
PLACEMENT_DEALS = envint("PLACEMENT_DEALS", 2)
WORKER_LEASE_S = envint("WORKER_LEASE_S", 60)
WORKER_MAX_ATTEMPTS = envint("WORKER_MAX_ATTEMPTS", 3)
LADDER_INTERVAL_S = envint("LADDER_INTERVAL_S", 3600)
WORKER_PROCESS_CACHE = envint("WORKER_PROCESS_CACHE", 8)
