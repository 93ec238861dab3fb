"""Settings for Aoristos Table: one module, configured by the environment.

SQLite and the in-process defaults need no configuration at all; set DATABASE_URL
(PostgreSQL) to scale out. Every variable is listed in docs/operations.md.
"""

import os
import secrets
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from django.utils.csp import CSP

from core.private import make_private

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def envint(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def envlist(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()] or default


def database_from_url(url: str) -> dict:
    """Turn DATABASE_URL (postgresql://user:pass@host:port/name) into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"DATABASE_URL: unsupported scheme {parsed.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")),
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


# Writable state (SQLite database, generated secret key) lives outside git.
# Every file the process makes is its owner's alone (0600, folders 0700), and so is what
# an older version left in DATA_DIR (core.private).
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
make_private(DATA_DIR, *(Path(p) for p in [os.environ.get("SQLITE_PATH")] if p))
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700


def secret_key() -> str:
    """SECRET_KEY from the environment, else one generated on first run and kept in DATA_DIR."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    path = DATA_DIR / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = secret_key()
DEBUG = envbool("DEBUG", False)
# A table's server is reached by LAN address (192.168.x.y) or mDNS name, which the host
# cannot know in advance; set ALLOWED_HOSTS to pin it down on a public server.
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["*"])
# Where the server listens (`make serve` sets it from HOST): on 127.0.0.1 alone the
# invitation link says that phones cannot reach it (core.network.share_host).
LISTEN_HOST = os.environ.get("LISTEN_HOST", "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# Django's admin site is off unless asked for: one more login page to guess at on a LAN.
ADMIN_ENABLED = envbool("ADMIN_ENABLED", False)

INSTALLED_APPS = [
    *(["django.contrib.admin"] if ADMIN_ENABLED else []),
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "core",
    "characters",
    "campaigns",
    "campaign_log",
    "table",
    "combat",
    "archive",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The database or Redis away: 503 with Retry-After, one log line per outage. Outside
    # SessionMiddleware, whose session load and save need the database (core.outage).
    "core.middleware.OutageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "aoristos_site.urls"
WSGI_APPLICATION = "aoristos_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.table_link",
                "core.context_processors.onward",
            ],
            "builtins": ["django.templatetags.i18n", "django.templatetags.static"],
        },
    },
]

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["DATABASE_URL"])}
else:
    DATABASES = {
        "default": {
            # Django's SQLite backend whose writers queue in order inside the process
            # (core/db/sqlite3/base.py) instead of sleeping in SQLite's busy handler.
            "ENGINE": "core.db.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH") or DATA_DIR / "db.sqlite3",
            # Each page thread keeps its connection between requests: opening one runs the
            # PRAGMAs, and closing the last one checkpoints the WAL.
            "CONN_MAX_AGE": 600,
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so concurrent read-modify-write
                # transactions queue (in line, see core.db.sqlite3) instead of failing
                # "database is locked". The timeout bounds that wait.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                ),
            },
            # Tests use a file too: the live-table tests reach it from server threads and
            # processes, which an in-memory database cannot serve. One per test process.
            "TEST": {"NAME": Path(tempfile.gettempdir()) / f"aoristos-test-{os.getpid()}.db"},
        }
    }

# Live-table events go through Redis pub/sub when set, so several processes share tables;
# otherwise an in-process broadcaster (one server process) is used.
REDIS_URL = os.environ.get("REDIS_URL", "")
# The pub/sub channels' name (default: from the database's name), for sites sharing a Redis.
REDIS_CHANNEL_PREFIX = os.environ.get("REDIS_CHANNEL_PREFIX", "")


def cache_from_url(url: str) -> dict:
    """The Redis cache (login throttle counts, shared by every process). Socket timeouts
    are short: the throttle fails open, so a frozen Redis costs a login at most ~0.1 s."""
    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": "aoristos",
        "OPTIONS": {"socket_timeout": 0.1, "socket_connect_timeout": 0.1},
    }


CACHES = {
    "default": cache_from_url(REDIS_URL)
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
# Behind a reverse proxy: the header that carries the client's address, for the throttle.
CLIENT_ADDRESS_HEADER = os.environ.get("CLIENT_ADDRESS_HEADER", "")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"  # the table of one's campaign, see core.views.home
LOGOUT_REDIRECT_URL = "home"

# Swedish first: the game's own terms. English through the language switch.
LANGUAGE_CODE = "sv"
LANGUAGES = [("sv", "Svenska"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Stockholm")
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

SESSION_COOKIE_AGE = 60 * 60 * 24 * 30  # a campaign lasts; stay logged in for a month
SESSION_ENGINE = "core.sessions"  # database sessions; odd keys in a cookie are no session
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# Plain HTTP on a LAN by default. Served over HTTPS (make serve with SSL_CERTFILE and
# SSL_KEYFILE, or behind a TLS proxy) set SECURE_COOKIES=1: secure cookies, HSTS and a
# redirect from http:// to https://. `manage.py check --deploy` is clean then.
SECURE_COOKIES = envbool("SECURE_COOKIES", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_COOKIES
# Browsers ignore Cross-Origin-Opener-Policy on a plain-HTTP LAN address and log a warning
# on every page: send it only over HTTPS, where it works.
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin" if SECURE_COOKIES else None
if SECURE_COOKIES:
    # HSTS is per host name, every port included, and browsers ignore it for IP
    # addresses. A day by default: a laptop that later serves plain HTTP again under
    # the same name is not locked out for long. A public server: HSTS_SECONDS=31536000.
    SECURE_HSTS_SECONDS = envint("HSTS_SECONDS", 60 * 60 * 24)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = envbool("HSTS_PRELOAD", False)
    # Off behind a TLS proxy that redirects by itself.
    SECURE_SSL_REDIRECT = envbool("SSL_REDIRECT", True)
    # Subdomains and the browsers' preload list are a choice for the owner of the whole
    # domain, not a default; the deploy check warns while they are off.
    SILENCED_SYSTEM_CHECKS = [
        *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
        *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
    ]
# Behind a TLS proxy: the header it sets to "https" (e.g. X-Forwarded-Proto). Only set
# it when the proxy always sets or overwrites that header.
if os.environ.get("PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = (
        "HTTP_" + os.environ["PROXY_SSL_HEADER"].strip().upper().replace("-", "_"),
        "https",
    )

# Content Security Policy: scripts, styles and images only from this site, no inline
# script or style at all (htmx's own indicator style is off: templates/base.html), no
# plugins, no framing, forms post only here.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    # The keep-awake fallback's silent video is a data: URI (static/vendor/nosleep).
    "media-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # 400/403/404 are answers, not faults: one line each, without a traceback. A 503 while
    # the database or Redis is away is not logged per request at all: core.outage logs
    # one line when the outage starts and one when it ends.
    "filters": {
        "no_4xx_tracebacks": {"()": "core.logging.DropClientErrorTracebacks"},
        "no_outage_answers": {"()": "core.logging.DropOutageAnswers"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["no_4xx_tracebacks"]}},
    # On the logger, not the handler: the record is dropped for every handler.
    "loggers": {"django.request": {"filters": ["no_outage_answers"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Simulated fights (issue 29; combat/simulations.py, docs/operations.md#limits). Runs the
# whole site may have queued or playing, and of them one account and one campaign; how
# often an idle server process looks for runs queued on another (0: never, seconds);
# how long an API request with "wait": true may wait for its run, and how many may wait
# at once (0: a quarter of PAGE_THREADS, at least 1).
SIMULATION_QUEUE = max(1, envint("SIMULATION_QUEUE", 8))
SIMULATION_CLAIM_SECONDS = max(0, envint("SIMULATION_CLAIM_SECONDS", 1))
SIMULATION_RUNS_PER_USER = envint("SIMULATION_RUNS_PER_USER", 2)
SIMULATION_RUNS_PER_CAMPAIGN = envint("SIMULATION_RUNS_PER_CAMPAIGN", 2)
SIMULATION_WAIT_SECONDS = envint("SIMULATION_WAIT_SECONDS", 10)
SIMULATION_WAITERS = envint("SIMULATION_WAITERS", 0)
# Worker processes that play a server process's simulated fights (issue 46; 0: one fewer
# than the cores, shared among `serve`'s WORKERS, at least 1, a core left for the
# pages), and their CPU priority (nice, 0-19): below the pages, never starved.
SIMULATION_PROCESSES = max(0, envint("SIMULATION_PROCESSES", 0))
SIMULATION_NICE = max(0, min(19, envint("SIMULATION_NICE", 10)))

# Campaign imports (archive/, docs/archive.md#limits): the most rows and unpacked bytes one
# archive may hold. A decade of weekly play with a fight every evening is some 160,000 rows
# (50,000 rolls, 100,000 fight records) and 150 MB, plus its map pictures (5 MB at most).
IMPORT_MAX_ROWS = envint("IMPORT_MAX_ROWS", 500_000)
IMPORT_MAX_BYTES = envint("IMPORT_MAX_BYTES", 1024 * 1024 * 1024)
