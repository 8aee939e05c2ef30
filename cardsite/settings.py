"""Card Arena settings, read from the environment with safe defaults for a laptop.

Environment variables (all optional):
    DEBUG              1 to enable Django's debug mode (off by default)
    SECRET_KEY         otherwise generated once into var/secret_key
    ALLOWED_HOSTS      comma-separated; default localhost,127.0.0.1,[::1]
    CSRF_TRUSTED_ORIGINS  comma-separated origins, e.g. https://arena.example.org
    DATABASE_URL       e.g. postgres://user:pass@host:5432/name; default SQLite in var/
    DB_POOL, DB_POOL_MAX, DB_POOL_TIMEOUT, DB_POOL_CHECK  PostgreSQL's connection pool: on,
                       its most connections (16), the seconds a request waits for one (5),
                       and whether each is checked as it is handed out (on; docs/deploy.md)
    REDIS_URL          e.g. redis://127.0.0.1:6379/0; default in-memory channel layer
    CARD_ARENA_VAR     folder for the SQLite database, secret key and logs; default ./var
    SECURE             HTTPS: secure cookies, HSTS, redirect to https. Default: on when DEBUG is
                       off and ALLOWED_HOSTS names a host other than localhost/loopback (a
                       production site), off otherwise; 0 for a plain-http run on other names
    SECURE_HSTS_SECONDS, SECURE_HSTS_INCLUDE_SUBDOMAINS, SECURE_HSTS_PRELOAD  fine-tune HSTS
    TRUSTED_PROXIES    number of reverse proxies in front of the site that append the client's
                       address to X-Forwarded-For; default 0: trust no forwarded address
    LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES  failed log-ins (for one username from one
                       address) before log-in is refused, and for how long; default 5 and 15
    LOGIN_ADDRESS_FAILURE_LIMIT  failed log-ins from one address, whatever the usernames, in
                       each window of LOGIN_LOCKOUT_MINUTES before it may not log in; default 20
    SIGNUP_LIMIT, SIGNUP_WINDOW_MINUTES  sign-up attempts per address per window; 10 and 60
    TABLE_HEARTBEAT_S, TABLE_HOST_STALE_S, TABLE_RESUME_WINDOW_S  how often a web process
                       says its live tables are alive, after how long without a word another
                       takes a table over, and until when; default 5, 20 and 600 seconds
    LIVE_BOT_TABLES_PER_PERSON, LIVE_BOT_TABLES_PER_ADDRESS,
    LIVE_BOT_TABLES_PER_GUEST_ADDRESS, LIVE_BOT_TABLES_TOTAL
                       live tables with uploaded bots open or being played at once, for one
                       signed-in person, for the signed-in people of one address, for the
                       guests of one address, on the whole site; default 2, 4, 2 and 24
                       (docs/live-tables.md)
    LIVE_TABLES_PER_PERSON, LIVE_TABLES_PER_GUEST_ADDRESS  live tables of every kind open or
                       being played at once where one person (a signed-in user, a guest's
                       session) sits, and of the guests of one address together; default 5, 20
    LIVE_TABLES_CREATED_PER_WINDOW, LIVE_TABLES_WINDOW_MINUTES  live tables one signed-in
                       person, or the guests of one address together, may open in each window;
                       default 60 per 10 minutes (docs/live-tables.md)
    LIVE_SOCKETS_PER_ADDRESS  live tables' websockets open at once from one client address,
                       across every web process (counted in Redis with REDIS_URL); default 50
                       (0: no limit, for a load test whose clients all come from one machine)
    SANDBOX_WORKER_RESERVE, SANDBOX_SLOT_WAIT_S  sandbox slots live tables may never take (they
                       stay for the workers), and how long a worker's bot waits for a free one;
                       default 16 (of 64) and 30 seconds (docs/sandbox.md)
    CARD_ARENA_REPOSITORY  where the site's code is published (a git URL), for the pages
                       that tell bot authors to run the arena on their own machine; default
                       none (the pages then say to ask the site's operators)
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from cardsite.env import (
    envbool,
    envint,
    envints,
    envlist,
    private_dir,
    secret_key,
    shares_services,
    sqlite_database,
    usable_dir,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# Mode 0700, and the database and secret key in it 0600: other users of the machine read none
# of it (looser modes found there are tightened, with a log line).
#: where this site's code can be cloned from (pages tell bot authors to run the arena there)
CARD_ARENA_REPOSITORY = os.environ.get("CARD_ARENA_REPOSITORY", "").strip()
try:
    VAR_DIR = private_dir(
        Path(os.environ.get("CARD_ARENA_VAR", BASE_DIR / "var")).resolve(),
        "the site's folder (CARD_ARENA_VAR)",
    )
    #: collectstatic's copies (served by the web process, which only reads them)
    STATIC_ROOT = usable_dir(
        VAR_DIR / "staticfiles", "the folder of static files", write=False, mode=0o755
    )
    SECRET_KEY = secret_key(VAR_DIR, shared=shares_services())
except ImproperlyConfigured as exc:
    # one line, not a traceback: every process of the site stops here, before it serves
    raise SystemExit(f"ImproperlyConfigured: {exc}") from None

DEBUG = envbool("DEBUG", False)
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
    "axes",
    "games",
    "bots",
]

MIDDLEWARE = [
    # First, so that every response gets the Content-Security-Policy header (cardsite/csp.py).
    "cardsite.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # An empty 405 (a GET of a POST-only address) becomes the site's own page (cardsite/errors.py).
    "cardsite.errors.NotAllowedPageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a log-in refused for too many failures into the lockout page (docs/accounts.md).
    "axes.middleware.AxesMiddleware",
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
#: seconds a request waits for a database connection from the pool (PostgreSQL)
DB_POOL_TIMEOUT = envint("DB_POOL_TIMEOUT", 5)
if DB_POOL_TIMEOUT < 1:
    raise ImproperlyConfigured(f"DB_POOL_TIMEOUT={DB_POOL_TIMEOUT} must be at least 1 (seconds)")
if DATABASE_URL:
    # Under ASGI Django runs sync code in short-lived threads (one per request or websocket
    # consumer call): persistent connections would be left to the garbage collector, and a
    # new connection per call is slow under load. PostgreSQL therefore goes through a
    # connection pool (psycopg_pool, built into Django 5.1+): a "closed" connection goes back
    # to it. DB_POOL_MAX bounds one process's connections; DB_POOL=0 turns the pool off.
    # DB_POOL_CHECK (CONN_HEALTH_CHECKS): with the pool, a connection is checked as it is
    # handed out (one round trip, about 0.3 ms): one the server closed (PostgreSQL restarted)
    # is replaced then, never given to a request
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=0, conn_health_checks=envbool("DB_POOL_CHECK", True)
        )
    }
    if DATABASES["default"]["ENGINE"].endswith("postgresql") and envbool("DB_POOL", True):
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": envint("DB_POOL_MAX", 16),
            # how long a request waits for a connection before it fails (a page answers 500):
            # while PostgreSQL is away, a few seconds, not half a minute of a hanging page
            "timeout": DB_POOL_TIMEOUT,
            # how long the pool tries, more and more seldom, to make a connection before it
            # leaves the next try to the next request: its pauses stay short, so it connects
            # within a few seconds of PostgreSQL's return (docs/deploy.md)
            "reconnect_timeout": DB_POOL_TIMEOUT,
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": sqlite_database(VAR_DIR),
            # Wait for a writer instead of failing at once when the web server and the
            # worker write at the same time.
            "OPTIONS": {
                "timeout": envint("SQLITE_BUSY_TIMEOUT", 20),
                "transaction_mode": "IMMEDIATE",
            },
        }
    }

#: the web process's garbage collector (cardsite/collector.py): its thresholds, and whether
#: the objects of start-up are set aside (frozen) once the application is loaded
GC_THRESHOLDS = envints("GC_THRESHOLDS", (700, 10, 100), 3)
GC_FREEZE = envbool("GC_FREEZE", True)

REDIS_URL = os.environ.get("REDIS_URL", "")
#: messages waiting for one web process. channels-redis queues every message for the sockets
#: of a process in one list, so its capacity (100 by default) bounds all of them together:
#: a few hundred live tables need far more (over capacity, group messages are dropped)
CHANNEL_CAPACITY = envint("CHANNEL_CAPACITY", 20000)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "capacity": CHANNEL_CAPACITY},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": CHANNEL_CAPACITY},
        }
    }

#: live tables that survive their web process (docs/live-tables.md): each process says every
#: TABLE_HEARTBEAT_S that its tables are alive (and sweeps up tables whose host died); a table
#: silent for TABLE_HOST_STALE_S is taken over by another process and resumed, unless it has
#: been silent for over TABLE_RESUME_WINDOW_S (its people are gone): then it is abandoned
TABLE_HEARTBEAT_S = envint("TABLE_HEARTBEAT_S", 5)
TABLE_HOST_STALE_S = envint("TABLE_HOST_STALE_S", 20)
TABLE_RESUME_WINDOW_S = envint("TABLE_RESUME_WINDOW_S", 600)
#: live tables with uploaded bots (each bot holds a sandbox slot while its table plays) open
#: or being played at once: a signed-in person's, the signed-in people of one address
#: together, a guest address's, the whole site's
#: (counted in the database: every web process counts them together)
LIVE_BOT_TABLES_PER_PERSON = envint("LIVE_BOT_TABLES_PER_PERSON", 2)
LIVE_BOT_TABLES_PER_ADDRESS = envint("LIVE_BOT_TABLES_PER_ADDRESS", 4)
LIVE_BOT_TABLES_PER_GUEST_ADDRESS = envint("LIVE_BOT_TABLES_PER_GUEST_ADDRESS", 2)
LIVE_BOT_TABLES_TOTAL = envint("LIVE_BOT_TABLES_TOTAL", 24)
#: live tables of every kind (docs/live-tables.md, "How many tables"): open or being played
#: at once where one person sits, and of the guests of one address together; and opened per
#: window by one signed-in person, or by the guests of one address (counted in the database)
LIVE_TABLES_PER_PERSON = envint("LIVE_TABLES_PER_PERSON", 5)
LIVE_TABLES_PER_GUEST_ADDRESS = envint("LIVE_TABLES_PER_GUEST_ADDRESS", 20)
LIVE_TABLES_CREATED_PER_WINDOW = envint("LIVE_TABLES_CREATED_PER_WINDOW", 60)
LIVE_TABLES_WINDOW_MINUTES = envint("LIVE_TABLES_WINDOW_MINUTES", 10)
#: live tables' websockets open at once from one client address (its keyed hash), across
#: every web process: in Redis with REDIS_URL, else in the one process's memory
LIVE_SOCKETS_PER_ADDRESS = envint("LIVE_SOCKETS_PER_ADDRESS", 50)
#: sandbox slots (SANDBOX_SLOTS, 64) that live tables may never take: they stay for the
#: workers' tournaments, validations and playground runs; and how long a worker's bot waits
#: for a free slot before its job is given back to the queue (docs/sandbox.md)
SANDBOX_WORKER_RESERVE = envint("SANDBOX_WORKER_RESERVE", 16)
SANDBOX_SLOT_WAIT_S = envint("SANDBOX_SLOT_WAIT_S", 30)
#: the machine's cache of compiled bots (VAR_DIR/compiled: C++ programs, Java jars), MiB:
#: past it, the least recently used entries are evicted (docs/sandbox.md, "Compiled languages")
COMPILE_CACHE_MB = envint("COMPILE_CACHE_MB", 1024)

# Django's caches (the "default" one is below). "replays" keeps the built replays of match
# pages (games/matchpages.py: a long match takes a while to replay, and a stored match never
# changes) where every web process finds them: in Redis when the site has one, else in files
# under VAR_DIR (shared by the processes of one machine, as its SQLite database is). A replay
# missing there, expired or never built, is built again: the cache saves time, never decides
# what a page shows.
REPLAY_CACHE_S = envint("REPLAY_CACHE_S", 24 * 3600)
#: files the replay cache keeps at most (a long match takes a few dozen); Redis has its own
#: memory limits
REPLAY_CACHE_ENTRIES = envint("REPLAY_CACHE_ENTRIES", 20000)
if REDIS_URL:
    _REPLAY_CACHE: dict = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
    }
else:
    _REPLAY_CACHE = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache" / "replays"),
        "OPTIONS": {"MAX_ENTRIES": REPLAY_CACHE_ENTRIES},
    }
# "default" holds counters every web process must share (the sign-up throttle): Redis when
# the site has one, so N processes count one limit together, not N limits; without Redis the
# site is one web process (scripts/run-site), whose own memory is enough.
if REDIS_URL:
    _DEFAULT_CACHE: dict = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "card-arena",
    }
else:
    _DEFAULT_CACHE = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
CACHES = {
    "default": _DEFAULT_CACHE,
    "replays": _REPLAY_CACHE | {"TIMEOUT": REPLAY_CACHE_S, "KEY_PREFIX": "card-arena-replays"},
}

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
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed copies made by collectstatic; plain names (no manifest), so pages render
    # the same whether or not collectstatic has run.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# The web process serves collectstatic's copies (compressed, and unchanged while it runs);
# straight from static/ only in DEBUG or where collectstatic has not run (tests, a first
# start). It served static/ always: a file of the checkout changed under a running site (an
# update, before its restart) was served with the size read at the start, cut short or
# padded, and every table page hung at "Connecting to the table...".
WHITENOISE_USE_FINDERS = DEBUG or not any(STATIC_ROOT.iterdir())
WHITENOISE_AUTOREFRESH = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# HTTPS (docs/accounts.md). A production site, reached by a real name, is served over HTTPS,
# usually with TLS ending at a reverse proxy that sets X-Forwarded-Proto. A run on this machine
# (scripts/run-site, the test client, the browser tests) serves plain http on localhost, where
# a redirect to https would break the site and HSTS would pin localhost in the browser; so
# SECURE defaults to on only when DEBUG is off and ALLOWED_HOSTS names another host.
# SECURE=0 is the switch for a plain-http run reached by other names (a LAN), SECURE=1 forces it.
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}


def _local_only(hosts: list[str]) -> bool:
    return all(
        host in _LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")
        for host in hosts
    )


SECURE = envbool("SECURE", not DEBUG and not _local_only(ALLOWED_HOSTS))
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000 if SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", SECURE)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", SECURE)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The client's address is the connection's own unless proxies are declared: then it is the
# X-Forwarded-For entry the outermost trusted proxy appended (cardsite.accounts.client_ip).
TRUSTED_PROXIES = envint("TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES={TRUSTED_PROXIES} must be 0 or more")

# Accounts (cardsite/accounts.py, docs/accounts.md).
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/my/bots/"
LOGOUT_REDIRECT_URL = "/"
AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses a locked-out log-in before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    # then a paused address (too many failed log-ins, whatever the usernames), on every
    # log-in path (the admin's too): refused before the password is checked
    "cardsite.accounts.AddressPauseBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_LOCKOUT_MINUTES", 15))
# The lock is on a username *at* an address: N failures for one username from one address lock
# that pair only. Locking a username for everyone would let anyone lock a player out of their
# account with a few wrong guesses (docs/accounts.md).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Failures expire only with the lockout time: a success would wipe the address's failures too,
# letting an attacker with an account interleave its own log-ins with guesses.
AXES_RESET_ON_SUCCESS = False
AXES_CLIENT_IP_CALLABLE = "cardsite.accounts.client_ip"
AXES_LOCKOUT_CALLABLE = "cardsite.accounts.locked_out"
# Keep failed attempts only (for the lockout and the admin), no log of every successful log-in.
AXES_DISABLE_ACCESS_LOG = True
# No start-up banner on every manage.py command; failed log-ins are still logged as warnings.
AXES_VERBOSE = False
# ... and on an address, whatever the usernames it tries: one guess at each of many accounts
# (password spraying). Counted in the "default" cache, in windows of LOGIN_LOCKOUT_MINUTES.
LOGIN_ADDRESS_FAILURE_LIMIT = envint("LOGIN_ADDRESS_FAILURE_LIMIT", 20)
SIGNUP_LIMIT = envint("SIGNUP_LIMIT", 10)
SIGNUP_WINDOW = timedelta(minutes=envint("SIGNUP_WINDOW_MINUTES", 60))
for _name, _value in [
    ("LOGIN_FAILURE_LIMIT", AXES_FAILURE_LIMIT),
    ("LOGIN_LOCKOUT_MINUTES", AXES_COOLOFF_TIME.total_seconds()),
    ("LOGIN_ADDRESS_FAILURE_LIMIT", LOGIN_ADDRESS_FAILURE_LIMIT),
    ("SIGNUP_LIMIT", SIGNUP_LIMIT),
    ("SIGNUP_WINDOW_MINUTES", SIGNUP_WINDOW.total_seconds()),
]:
    if _value < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Competition (docs/competition.md): bot uploads and the tournament worker.
BOT_MAX_CODE_BYTES = envint("BOT_MAX_CODE_BYTES", 256 * 1024)
#: the largest request body the server takes in at all (cardsite.serve): a request that says
#: it is larger is refused (413) before any of its body is read, and one that sends more
#: (chunked) is cut off there. Above the upload forms' own limit (twice the code limit and
#: 64 KiB: bots.pages.views.request_limit), whose page says what was too large.
REQUEST_BODY_MAX_BYTES = envint("REQUEST_BODY_MAX_BYTES", 4 * BOT_MAX_CODE_BYTES + 256 * 1024)
#: new versions one user may upload from the site in any hour (docs/uploading.md)
BOT_UPLOADS_PER_HOUR = envint("BOT_UPLOADS_PER_HOUR", 10)
#: versions of one bot made active again in any hour (My bots, "Make active"): each queues
#: placement matches ahead of the regular rounds (0: no limit)
BOT_REACTIVATIONS_PER_HOUR = envint("BOT_REACTIVATIONS_PER_HOUR", 3)
#: new versions the accounts of one client address may upload together in any hour (0: no
#: limit): an address may make SIGNUP_LIMIT accounts an hour, and each upload is compiled and
#: validated on a worker (bots.pages.upload_address, docs/uploading.md)
BOT_UPLOADS_PER_ADDRESS_PER_HOUR = envint("BOT_UPLOADS_PER_ADDRESS_PER_HOUR", 20)
#: bots one person may have competing in one game (0: no limit): more would let a person's
#: bots play into each other's hands, and take worker time from everyone else's
#: (docs/competition.md, "One bot per person in a game")
BOTS_PER_PERSON_PER_GAME = envint("BOTS_PER_PERSON_PER_GAME", 1)
BOT_VALIDATION_MATCHES = envint("BOT_VALIDATION_MATCHES", 2)
#: calls in a row over the per-call time that reject a version in validation
#: (see bots.competition.uploads)
BOT_VALIDATION_SLOW_CALLS = envint("BOT_VALIDATION_SLOW_CALLS", 3)
PLACEMENT_DEALS = envint("PLACEMENT_DEALS", 2)
WORKER_LEASE_S = envint("WORKER_LEASE_S", 60)
#: errors of the platform's own while playing or validating one job or version before it fails
WORKER_MAX_ATTEMPTS = envint("WORKER_MAX_ATTEMPTS", 3)
#: claims of one job or validation without a result (each of its workers was killed or lost
#: it) before it fails: a job that stops every worker that takes it must end some day
WORKER_MAX_CLAIMS = envint("WORKER_MAX_CLAIMS", 20)
#: the longest wait between tries while the database is away (the worker never gives up)
WORKER_DB_RETRY_MAX_S = envint("WORKER_DB_RETRY_MAX_S", 5)
LADDER_INTERVAL_S = envint("LADDER_INTERVAL_S", 3600)
WORKER_PROCESS_CACHE = envint("WORKER_PROCESS_CACHE", 8)
#: the most match jobs a worker claims at once, plays in turn and stores together (about a
#: second of play; fewer at the end of a queue, so workers share its last jobs)
WORKER_CLAIM = envint("WORKER_CLAIM", 32)
#: seconds of worker time (its matches' wall time, as the worker measures it and splits it
#: among their seats) each bot may use in one tournament: past it, the rest of its matches
#: there are forfeited (fault "time"); a tournament keeps the bound it was scheduled with
#: (``start_tournament --worker-seconds``); 0: no bound (docs/competition.md)
WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = envint("WORKER_SECONDS_PER_BOT_PER_TOURNAMENT", 300)

# The bot playground (docs/playground.md, bots/playground/__init__.py): runs played by the workers.
#: runs one signed-in person may start in any hour, matches in one run, runs queued or
#: running at once
PLAYGROUND_RUNS_PER_HOUR = envint("PLAYGROUND_RUNS_PER_HOUR", 20)
PLAYGROUND_MAX_MATCHES = envint("PLAYGROUND_MAX_MATCHES", 50)
PLAYGROUND_MAX_OPEN = envint("PLAYGROUND_MAX_OPEN", 2)
#: the same for a guest (known by their session only)
PLAYGROUND_GUEST_RUNS_PER_HOUR = envint("PLAYGROUND_GUEST_RUNS_PER_HOUR", 5)
PLAYGROUND_GUEST_MAX_MATCHES = envint("PLAYGROUND_GUEST_MAX_MATCHES", 10)
PLAYGROUND_GUEST_MAX_OPEN = envint("PLAYGROUND_GUEST_MAX_OPEN", 1)
#: the same for all guests of one client address together (its keyed hash, kept on each run
#: in the database): a new session is free to make, an address is not
PLAYGROUND_GUEST_ADDRESS_RUNS_PER_HOUR = envint("PLAYGROUND_GUEST_ADDRESS_RUNS_PER_HOUR", 10)
PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = envint("PLAYGROUND_GUEST_ADDRESS_MAX_OPEN", 2)
#: runs of all guests together queued or running at once (a new session is free to make)
PLAYGROUND_GUESTS_OPEN = envint("PLAYGROUND_GUESTS_OPEN", 20)
#: seconds of worker time one run may use, a signed-in person's and a guest's (0: no bound):
#: past it, its other matches are not played, and its page says so
PLAYGROUND_RUN_SECONDS = envint("PLAYGROUND_RUN_SECONDS", 300)
PLAYGROUND_GUEST_RUN_SECONDS = envint("PLAYGROUND_GUEST_RUN_SECONDS", 60)
#: seconds of worker time a signed-in person's runs may use in any hour, and all guests of
#: one client address together (0: no bound), counted from the runs' charged time; a run
#: queued or running holds its whole bound until it ends, and a new run gets what is left if
#: that is less than its bound
PLAYGROUND_SECONDS_PER_HOUR = envint("PLAYGROUND_SECONDS_PER_HOUR", 900)
PLAYGROUND_GUEST_ADDRESS_SECONDS_PER_HOUR = envint("PLAYGROUND_GUEST_ADDRESS_SECONDS_PER_HOUR", 300)
#: runs of everyone queued or running at once (0: no bound)
PLAYGROUND_OPEN = envint("PLAYGROUND_OPEN", 200)
#: claims of one run whose worker stopped each time before it fails
PLAYGROUND_MAX_CLAIMS = envint("PLAYGROUND_MAX_CLAIMS", 3)
#: days a finished run is kept (its page, matches and replays), a guest's and a user's
PLAYGROUND_GUEST_KEEP_DAYS = envint("PLAYGROUND_GUEST_KEEP_DAYS", 7)
PLAYGROUND_KEEP_DAYS = envint("PLAYGROUND_KEEP_DAYS", 30)

# The strategy explorer's solves, run by the workers (docs/explorer.md, games/solves.py).
#: solves queued or running at once: a request for another is refused (HTTP 429)
SOLVE_MAX_OPEN = envint("SOLVE_MAX_OPEN", 8)
#: of those, the most one signed-in person, and all guests of one client address together
#: (its keyed hash, kept on the solve), may have queued at once
SOLVE_MAX_OPEN_PER_PERSON = envint("SOLVE_MAX_OPEN_PER_PERSON", 2)
SOLVE_MAX_OPEN_PER_GUEST_ADDRESS = envint("SOLVE_MAX_OPEN_PER_GUEST_ADDRESS", 2)
#: solves running at once over all workers (the other workers play matches meanwhile)
SOLVE_MAX_RUNNING = envint("SOLVE_MAX_RUNNING", 2)
#: finished solves kept, the most recently used, and the largest result kept (bytes of JSON)
SOLVE_KEEP = envint("SOLVE_KEEP", 100)
#: of those, each asker's most recently used are kept first (a flood of one asker's forgets
#: their own); and the new solves one person, or the guests of one address, may ask the form
#: for in any hour (docs/explorer.md)
SOLVE_KEEP_PER_ASKER = envint("SOLVE_KEEP_PER_ASKER", 20)
SOLVE_MAX_NEW_PER_HOUR = envint("SOLVE_MAX_NEW_PER_HOUR", 20)
SOLVE_MAX_RESULT_BYTES = envint("SOLVE_MAX_RESULT_BYTES", 8 * 1024 * 1024)
#: claims of one solve whose worker stopped each time before it fails
SOLVE_MAX_CLAIMS = envint("SOLVE_MAX_CLAIMS", 3)
#: seconds a solve waits, none running, before its page says no worker seems to be there
SOLVE_STALLED_S = envint("SOLVE_STALLED_S", 30)
