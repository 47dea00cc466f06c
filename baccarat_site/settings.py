"""Settings, read from the environment (typed helpers in baccarat_site.env).

Every value a deployment changes comes from an environment variable; see the
configuration table in docs/configuration.md. Without ``DATABASE_URL`` / ``REDIS_URL`` (development only) they point
at the embedded PostgreSQL and Redis under ``var/`` (baccarat_site.embedded). Importing the settings starts
nothing: ``manage.py``, ``make run`` (baccarat_site.run) and the test set-up (tests/conftest.py) start those
servers first and pass their URLs on in the environment.
"""

from __future__ import annotations

import os
import re
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from baccarat_site import embedded
from baccarat_site.env import development_mode, env_bool, env_int, env_list, env_networks, env_str
from baccarat_site.redis_config import cache_backend, celery_broker, channel_layer_host, redis_sentinel_from_env

BASE_DIR = Path(__file__).resolve().parent.parent


def env_prepare_threshold() -> int | None:
    """``DB_PREPARE_THRESHOLD``: executions of a statement before psycopg prepares it (default 5, or off under
    ``DB_TRANSACTION_POOLING``); "off" never."""
    pooled = env_bool("DB_TRANSACTION_POOLING")
    value = os.environ.get("DB_PREPARE_THRESHOLD", "off" if pooled else "5").strip().lower()
    threshold = None if value in {"", "off", "none", "no", "false"} else int(value)
    if pooled and threshold is not None:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"DB_PREPARE_THRESHOLD={threshold} with DB_TRANSACTION_POOLING: a transaction-mode pooler hands each "
            "transaction to any server connection, where a statement prepared on another does not exist. "
            "Leave DB_PREPARE_THRESHOLD unset (or off)."
        )
    return threshold


def database_from_url(url: str, *, variable: str = "DATABASE_URL") -> dict[str, Any]:
    """``postgresql://user:pass@host:port/name?host=/socket/dir`` → Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"{variable} must be a postgresql:// URL, got {parts.scheme!r}")
    query = parse_qs(parts.query)
    host = query.get("host", [unquote(parts.hostname or "")])[0]
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "baccarat",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        # DB_POOL=1: a psycopg connection pool per process (Django 5.1+). Under ASGI every request
        # runs in a fresh thread, so without it each request opens a new connection.
        "CONN_MAX_AGE": 0 if env_bool("DB_POOL") else env_int("DB_CONN_MAX_AGE", 0),
        "OPTIONS": {
            # Django turns psycopg's prepared statements off (for transaction-mode poolers); the money
            # path's raw statements (baccarat_site.db.prepared_cursor) were then parsed and planned on
            # every call: half of PostgreSQL's CPU per confirm. On by default; "off" behind a pooler
            # that cannot carry them.
            "prepare_threshold": env_prepare_threshold(),
            **(
                {"pool": {"min_size": 2, "max_size": env_int("DB_POOL_SIZE", 20), "timeout": 10}}
                if env_bool("DB_POOL")
                else {}
            ),
        },
        "CONN_HEALTH_CHECKS": True,
        "ATOMIC_REQUESTS": False,
        # DB_TRANSACTION_POOLING=1 (PgBouncer's pool_mode = transaction): each transaction may run on another
        # server connection, so nothing may outlive one. QuerySet.iterator() outside a transaction (the CSV
        # exports) would DECLARE a cursor WITH HOLD on one and FETCH from another: fetch client-side instead.
        "DISABLE_SERVER_SIDE_CURSORS": env_bool("DB_TRANSACTION_POOLING"),
        "TEST": {"NAME": env_str("TEST_DATABASE_NAME") or None},
    }


#: Seconds to wait for the replica to accept a connection before reading from the primary instead (libpq's least).
REPLICA_CONNECT_TIMEOUT = 2


def replica_from_url(url: str) -> dict[str, Any]:
    """``DATABASE_REPLICA_URL`` → the ``replica`` alias: built like ``default`` (pooling, prepared statements,
    DB_TRANSACTION_POOLING), but quick to give up on connecting (the router then reads the primary), and in tests a
    mirror of ``default`` (no database of its own)."""
    replica = database_from_url(url, variable="DATABASE_REPLICA_URL")
    options = replica["OPTIONS"]
    options["connect_timeout"] = REPLICA_CONNECT_TIMEOUT
    if "pool" in options:
        options["pool"] = {**options["pool"], "timeout": REPLICA_CONNECT_TIMEOUT}
    replica["TEST"] = {"MIRROR": "default"}
    return replica


DEVELOPMENT = development_mode()
DATABASE_URL = env_str("DATABASE_URL")
REDIS_URL = env_str("REDIS_URL")
# REDIS_SENTINELS (host:port,host:port), REDIS_SENTINEL_MASTER, REDIS_SENTINEL_DB: every Redis user goes through
# the sentinels to the current primary, and REDIS_URL is not used (baccarat_site.redis_config). A malformed value
# stops the start (ImproperlyConfigured).
REDIS_SENTINEL = redis_sentinel_from_env()
if not DEVELOPMENT:
    _needed = ("SECRET_KEY", "DATABASE_URL") if REDIS_SENTINEL else ("SECRET_KEY", "DATABASE_URL", "REDIS_URL")
    _missing = [name for name in _needed if not env_str(name)]
    if _missing:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"Refusing a production start without {', '.join(_missing)}. Set them (docs/deployment.md), or set "
            "BACCARAT_DEV=1 to develop on the embedded PostgreSQL and Redis with a development key."
        )
# Development without URLs: where the embedded servers answer (or will, once a launcher starts them);
# nothing is started or created here (embedded.ensure_services does that, before the settings are read).
DATABASE_URL = DATABASE_URL or embedded.postgres_url()
# With sentinels and no REDIS_URL it stays empty: nothing connects to it then.
REDIS_URL = REDIS_URL or ("" if REDIS_SENTINEL else embedded.redis_url())

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or "dev-only-insecure-key-never-used-in-production"  # production requires one
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI / ReDoc files for /api/docs/, served from static/ (no CDN)
    "channels",
    "auditlog",
    "axes",  # login throttling: locks out repeated failed sign-ins (pages, admin, API token)
    "wallets",
    "tables",
    "baccarat_site.accounts",
]

MIDDLEWARE = [
    # First: a body over API_MAX_BODY_BYTES under /api/ is refused (413) before anything reads or parses it.
    "baccarat_site.bodylimit.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Who changed what: the signed-in operator becomes the actor of every audit entry of the request, and
    # its username is stored on the entry (auditlog's middleware, extended in baccarat_site/audit.py).
    "baccarat_site.audit.AuditMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Answers a locked-out sign-in with the lockout page (or JSON under /api/): after the others, as axes asks.
    "axes.middleware.AxesMiddleware",
    # Gives a browser its device cookie when it first signs in (the risk alerts' linked accounts).
    "baccarat_site.accounts.middleware.DeviceCookieMiddleware",
    # Signs out a player whom a suspension, closure, time-out or self-exclusion has just stopped.
    "baccarat_site.accounts.middleware.RestrictedSessionMiddleware",
    "baccarat_site.middleware.SyncMiddlewareChain",  # last: the chain runs in one thread under ASGI
]

# Passwords: Argon2id for new and re-hashed passwords; the older hashers stay so existing hashes still verify
# (and are upgraded to Argon2 at the user's next sign-in).
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
# django-axes checks every sign-in first (and counts failures); Django's backend then authenticates.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
# After AXES_FAILURE_LIMIT wrong passwords for one username from one address, that pair is locked out for
# AXES_COOLOFF_MINUTES (a lock per username alone would let anyone lock a player out; per address alone,
# a whole office behind one NAT). A successful sign-in clears the count.
AXES_FAILURE_LIMIT = int(env_str("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(env_str("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "baccarat_site.accounts.lockout.lockout_response"
AXES_VERBOSE = False
# The address is the client's (baccarat_site.client_address): the connection's, or behind a trusted proxy the one
# it forwards; a client-sent X-Forwarded-For is never believed (it would let an attacker pick a new one per try).
AXES_CLIENT_IP_CALLABLE = "baccarat_site.client_address.axes_client_address"

# API tokens (POST /api/auth/token/) expire this many seconds after they were issued; asking again after
# that issues a new one (the old key stops working).
API_TOKEN_TTL_SECONDS = int(env_str("API_TOKEN_TTL_SECONDS", str(7 * 24 * 3600)))

# Sign-in records (accounts.SignIn) and the device cookie (signed, two years) every browser is given on its first page.
DEVICE_COOKIE_NAME = env_str("DEVICE_COOKIE_NAME", "casino_device")
DEVICE_COOKIE_AGE = env_int("DEVICE_COOKIE_AGE", 2 * 365 * 24 * 3600)
# The client's address (baccarat_site.client_address), for the sign-in lockout, the sign-up limits, the socket caps
# and the sign-in records: the connection's own, unless the connection comes from one of TRUSTED_PROXIES
# (addresses or networks, comma-separated; none by default), whose CLIENT_ADDRESS_HEADER is then read (its
# right-most address that is not a trusted proxy). Behind a proxy not listed here every client has its address.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")
CLIENT_ADDRESS_HEADER = env_str("CLIENT_ADDRESS_HEADER", "X-Forwarded-For").strip()
if not re.fullmatch(r"[A-Za-z0-9_-]*", CLIENT_ADDRESS_HEADER):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        f"CLIENT_ADDRESS_HEADER={CLIENT_ADDRESS_HEADER!r} is not a header name (e.g. X-Forwarded-For or X-Real-IP)."
    )
if env_str("SIGNIN_ADDRESS_HEADER"):
    # It trusted its header from anyone and served the sign-in records only; left in an environment it would now
    # be ignored without a word, and every per-address control behind the proxy would count the proxy again.
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        "SIGNIN_ADDRESS_HEADER is no longer read: set TRUSTED_PROXIES to the proxy's address (and, if it is not "
        "X-Forwarded-For, CLIENT_ADDRESS_HEADER to the header it sets), then remove SIGNIN_ADDRESS_HEADER."
    )
# Exclusion follows the person (accounts.services.person_stop_check): a sign-up or sign-in is refused when it looks
# like the person of an account a restriction stops now: the same device cookie, a name or e-mail with the same
# key, or the same address used by that account within the last LINKED_ADDRESS_DAYS (0: addresses never link).
LINKED_ADDRESS_DAYS = env_int("LINKED_ADDRESS_DAYS", 7)

# Risk alerts on the live floor (tables.services.risk): a single bet, a player's winnings on one round, and a
# round's worst-case exposure above these raise an alert; so do linked accounts (a shared sign-in address or
# device within RISK_LINK_DAYS) backing Player and Banker in the same round.
RISK_BET_THRESHOLD = env_str("RISK_BET_THRESHOLD", "5000.00")
RISK_WIN_THRESHOLD = env_str("RISK_WIN_THRESHOLD", "20000.00")
RISK_EXPOSURE_THRESHOLD = env_str("RISK_EXPOSURE_THRESHOLD", "50000.00")
RISK_LINK_DAYS = env_int("RISK_LINK_DAYS", 30)

# Request bodies under /api/ larger than this are refused with 413 body_too_large before they are parsed
# (baccarat_site.bodylimit); every API request is a small JSON object.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 64 * 1024)

# Open WebSockets (tables and lobby together) one signed-in player, and one address, may hold at once; the next
# is closed with 4430 (tables.socketcap). 0: no cap.
WS_MAX_SOCKETS_PER_PLAYER = env_int("WS_MAX_SOCKETS_PER_PLAYER", 10)
WS_MAX_SOCKETS_PER_ADDRESS = env_int("WS_MAX_SOCKETS_PER_ADDRESS", 50)

# Table chat (tables.services.chat): messages older than CHAT_HISTORY_MINUTES are no longer shown (history on
# connect, the admin keeps them); a player may send CHAT_RATE_COUNT messages in any CHAT_RATE_SECONDS (a sliding
# window in Redis); a message is at most CHAT_MAX_CHARS characters after trimming.
CHAT_HISTORY_MINUTES = env_int("CHAT_HISTORY_MINUTES", 30)
CHAT_HISTORY_LIMIT = env_int("CHAT_HISTORY_LIMIT", 100)
CHAT_RATE_COUNT = env_int("CHAT_RATE_COUNT", 5)
CHAT_RATE_SECONDS = env_int("CHAT_RATE_SECONDS", 10)
CHAT_MAX_CHARS = env_int("CHAT_MAX_CHARS", 200)

# Sign-ups per address (the client's, as for the sign-in throttle): at most SIGNUP_LIMIT_PER_ADDRESS in a clock
# hour; of an address's sign-ups in a UTC day only the first SIGNUP_CREDITED_PER_ADDRESS_PER_DAY get the
# starting play money (the others open at 0.00 and may first refill an hour later).
SIGNUP_LIMIT_PER_ADDRESS = env_int("SIGNUP_LIMIT_PER_ADDRESS", 5)
SIGNUP_CREDITED_PER_ADDRESS_PER_DAY = env_int("SIGNUP_CREDITED_PER_ADDRESS_PER_DAY", 3)

ROOT_URLCONF = "baccarat_site.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "baccarat_site.asgi.application"

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
                "django.template.context_processors.i18n",
                "baccarat_site.accounts.context_processors.account",
            ],
        },
    },
]

DATABASES = {"default": database_from_url(DATABASE_URL)}
# DATABASE_REPLICA_URL: a streaming replica of that PostgreSQL. The pages marked replica-tolerant (bet record,
# lobby, reports) read the casino's tables from it while its replay lag is at most REPLICA_MAX_LAG_SECONDS;
# everything else, and every write, stays on the primary (baccarat_site.db_router, docs/replica.md).
DATABASE_REPLICA_URL = env_str("DATABASE_REPLICA_URL")
REPLICA_MAX_LAG_SECONDS = float(env_str("REPLICA_MAX_LAG_SECONDS") or 5)
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = replica_from_url(DATABASE_REPLICA_URL)
    DATABASE_ROUTERS = ["baccarat_site.db_router.ReplicaRouter"]
# Behind a transaction-mode pooler (PgBouncer's pool_mode = transaction): no session state may outlive a
# transaction (database_from_url's options; tables.services.ticker's runner lock).
DB_TRANSACTION_POOLING = env_bool("DB_TRANSACTION_POOLING")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = {
    "default": {
        **cache_backend(REDIS_URL, REDIS_SENTINEL),
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "baccarat"),
    }
}

CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "baccarat_site.channel_layer.RedisChannelLayer",
        "CONFIG": {
            # redis-py 8 defaults to a 5 s socket timeout and 100 connections per pool: the first
            # kills the channel layer's blocking 5 s BZPOPMIN (an idle consumer crashes every 5 s),
            # the second refuses the group_add/discard bursts of a thousand sockets connecting.
            "hosts": [
                channel_layer_host(
                    REDIS_URL,
                    REDIS_SENTINEL,
                    socket_timeout=15,
                    socket_connect_timeout=5,
                    max_connections=env_int("CHANNELS_MAX_CONNECTIONS", 2000),
                )
            ],
            "prefix": env_str("CHANNELS_PREFIX", "asgi"),
            # Capacity is per Redis key, and all of one process's sockets share one key: a table
            # event is one message per process, but a settlement sends one personal message per
            # player, so a process holding thousands of players needs room for thousands at once
            # (over capacity, channels_redis drops silently; see docs/configuration.md, CHANNELS_CAPACITY).
            "capacity": env_int("CHANNELS_CAPACITY", 20000),
            "expiry": env_int("CHANNELS_EXPIRY", 60),
            "group_expiry": env_int("CHANNELS_GROUP_EXPIRY", 86400),
        },
    }
}

_broker_url, CELERY_BROKER_TRANSPORT_OPTIONS = celery_broker(REDIS_URL, REDIS_SENTINEL)
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or _broker_url
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "celery")
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TIMEZONE = "UTC"
# Celery's Django fixup closes every database connection after each task, whatever CONN_MAX_AGE says, unless this is
# set; then it closes them only every this many tasks, and baccarat_site.celery treats each task as Django treats a
# request (CONN_MAX_AGE and the health checks decide). With CONN_MAX_AGE 0 (the default) that still closes after
# every task; the worker's DB_CONN_MAX_AGE=600 (deploy/, baccarat_site.run) keeps it.
CELERY_DB_REUSE_MAX = 1000
# JSON only (Celery's default, stated because `make run` relies on it: a worker that takes no pickle runs no code
# from the broker, which is why Celery's warning about a worker running as root is silenced there; docs/development.md).
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_BEAT_SCHEDULE = {
    "advance-tables": {
        "task": "tables.tasks.tables_sweep",
        "schedule": float(env_str("TICK_SECONDS", "0.5")),
        "options": {"expires": 5},
    },
}

# Django's four validators (their messages re-declared in the project's six languages).
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "baccarat_site.accounts.passwords.UserAttributeSimilarityValidator"},
    {"NAME": "baccarat_site.accounts.passwords.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "baccarat_site.accounts.passwords.CommonPasswordValidator"},
    {"NAME": "baccarat_site.accounts.passwords.NumericPasswordValidator"},
]

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "baccarat_site.accounts.tokens.PreparedTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": [
        "baccarat_site.jsonlimits.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "baccarat_site.api.errors.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "bet_place": env_str("BET_THROTTLE_RATE", "20/second"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Baccarat casino API",
    "DESCRIPTION": "Tables, rounds, bets, the bet record, wallets and the ledger.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/docs/ loads Swagger UI from drf-spectacular-sidecar's static files, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("fa", "فارسی"),
    ("hi", "हिन्दी"),
    ("vi", "Tiếng Việt"),
    ("ru", "Русский"),
    ("pt", "Português"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where `manage.py collectstatic` puts the files a web server (nginx, deploy/nginx/baccarat.conf) serves itself.
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
# WhiteNoise serves static/ through the finders; STATIC_ROOT holds files only after `manage.py collectstatic` (for a
# CDN), so its absence is the normal case, not worth WhiteNoise's "No directory at" warning on every start.
if not STATIC_ROOT.is_dir():
    warnings.filterwarnings("ignore", message=f"No directory at: {re.escape(str(STATIC_ROOT))}", category=UserWarning)
# Re-read static files on every request (development: edits show without a restart).
WHITENOISE_AUTOREFRESH = env_bool("WHITENOISE_AUTOREFRESH", DEBUG)

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Game defaults an operator can override per variant/table in the admin.
CURRENCY = env_str("CURRENCY", "CHIPS")
# A new player's play money, and what a refill tops a short balance back up to (through the ledger).
STARTING_BALANCE = env_str("STARTING_BALANCE", "1000.00")
# Four-eyes: a staff deposit, withdrawal or adjustment larger than this (in absolute value) is created as a request
# that a second, different member of staff with wallets.approve_money must approve before it is applied.
MONEY_APPROVAL_THRESHOLD = env_str("MONEY_APPROVAL_THRESHOLD", "1000.00")
# ... counted over a rolling period: a movement that would take the staff movements of the last N hours to that
# player, or by that member of staff, past the threshold waits for approval too (wallets.services.wallet_move_once).
MONEY_APPROVAL_WINDOW_HOURS = env_int("MONEY_APPROVAL_WINDOW_HOURS", 24)
# Structuring: this many staff movements to one player within MONEY_STRUCTURING_HOURS, each of at least 80% of the
# threshold (applied, or asked for and waiting), raise a money alert (wallets.models.MoneyAlert).
MONEY_STRUCTURING_COUNT = env_int("MONEY_STRUCTURING_COUNT", 3)
MONEY_STRUCTURING_HOURS = env_int("MONEY_STRUCTURING_HOURS", 168)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "pgserver": {"level": "WARNING"}},
}
# Log every Celery tick at INFO (beat's "Sending due task", the worker's "Task ... received/succeeded": about 440
# lines a minute at a 0.5 s tick)? Off in development, where `make run` should show the start and the warnings
# (baccarat_site.celery quiets them); LOG_TICKS=1 or LOG_LEVEL=DEBUG brings them back.
LOG_TICKS = env_bool("LOG_TICKS", not DEVELOPMENT or env_str("LOG_LEVEL", "INFO").upper() == "DEBUG")

# Production is HTTPS, secure by default (``manage.py check --deploy`` is clean); each can be turned off for a
# deployment that needs it. Behind a TLS-terminating proxy, set SECURE_PROXY_SSL_HEADER=1 so a request the
# proxy marks ``X-Forwarded-Proto: https`` counts as secure (the proxy must set or strip that header).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEVELOPMENT)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEVELOPMENT)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEVELOPMENT)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEVELOPMENT else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEVELOPMENT)
# "preload" in the header only allows submitting the domain to the browsers' preload list (a manual step).
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEVELOPMENT)
if env_bool("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
