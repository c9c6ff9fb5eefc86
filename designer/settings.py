"""One settings file, driven by the environment (strict parsing, see designer/env.py).

Variables: DEBUG, SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL, CELERY_BROKER_URL,
CELERY_RESULT_BACKEND, VAR_DIR. Defaults need no server: SQLite (WAL) in var/ and
kombu's filesystem broker in var/broker/.

Runs from a checkout (templates/, static/, examples/ and var/ at its top level) and from an
installed wheel, which carries templates/, static/ and examples/ as designer/_data/… (pyproject.toml);
installed, VAR_DIR must be set when DEBUG is off (with DEBUG on it defaults to ./var).
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
import plotly
from django.core.exceptions import ImproperlyConfigured

from designer.env import env_bool, env_int, env_list, env_str, env_trusted_proxy_count

BASE_DIR = Path(__file__).resolve().parent.parent
# templates/, static/ and examples/: the wheel's copies (designer/_data/), else the checkout's (top level; also
# what an editable install uses). Installed, BASE_DIR is site-packages: nothing is looked for or written there.
_PACKAGED = Path(__file__).resolve().parent / "_data"
FROM_WHEEL = (_PACKAGED / "templates").is_dir()
DATA_DIR = _PACKAGED if FROM_WHEEL else BASE_DIR
TEMPLATES_DIR = DATA_DIR / "templates"
EXAMPLES_DIR = DATA_DIR / "examples"  # `load_demo`'s designs

DEBUG = env_bool("DEBUG", False)
if env_str("VAR_DIR"):
    VAR_DIR = Path(env_str("VAR_DIR"))
elif not FROM_WHEEL:
    VAR_DIR = BASE_DIR / "var"
elif DEBUG:
    VAR_DIR = Path.cwd() / "var"
else:
    raise ImproperlyConfigured("VAR_DIR must be set when DEBUG is off (the database, static files and broker)")
VAR_DIR.mkdir(parents=True, exist_ok=True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "bom.apps.BomConfig",
    "designer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "designer.security.SecurityHeadersMiddleware",
    "designer.api.not_found.ApiJsonNotFoundMiddleware",
    "designer.api.limits.ApiBodyLimitMiddleware",  # a body over DATA_UPLOAD_MAX_MEMORY_SIZE: JSON 413 under /api/
    "designer.api.cycles.DetachRenderedResponseMiddleware",  # a rendered DRF response freed with the request
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "designer.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [TEMPLATES_DIR],
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
WSGI_APPLICATION = "designer.wsgi.application"

_default_db = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
try:
    DATABASES = {"default": dj_database_url.parse(env_str("DATABASE_URL") or _default_db, conn_max_age=60)}
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets the web server read while the worker writes; IMMEDIATE avoids
        # "database is locked" upgrades from read to write transactions.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=10000;",
        "transaction_mode": "IMMEDIATE",
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
# plotly.js is served from the plotly package itself (no CDN, nothing vendored into git)
STATICFILES_DIRS = [DATA_DIR / "static", ("vendor/plotly", Path(plotly.__file__).parent / "package_data")]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# whitenoise serves the collected files (`cluster-designer manage collectstatic`) when DEBUG is off
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- HTTPS (behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER=1) ------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# the largest request body read (form fields or JSON; uploaded files are not counted): a trace may have
# MAX_TRACE_CHARS = 5 MiB (designer/simulations.py), which JSON escapes (a newline is \n) can double;
# Django's 2.5 MB default made that limit unreachable. Over it: a JSON 413 under /api/ (designer/api/limits.py)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_BODY_BYTES", 12 * 2**20, minimum=2**20)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "designer.api.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "designer.api.auth.ReadOnlyTokenPermission",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # request bodies are JSON objects (as documented); a form or multipart body is a 415, not a silent no-op;
    # nested at most 64 deep, no lone surrogates (designer/api/parsers.py)
    "DEFAULT_PARSER_CLASSES": ["designer.api.parsers.StrictJSONParser"],
    # every list is paginated: ?limit=&offset= (count, next, previous, results)
    "DEFAULT_PAGINATION_CLASS": "designer.api.pagination.Pages",
    "PAGE_SIZE": 50,
    # field errors under "errors"; duplicates 409, references to missing rows 422 (designer/api/strict.py)
    "EXCEPTION_HANDLER": "designer.api.strict.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU cluster designer API",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "ENUM_NAME_OVERRIDES": {"SimulationKindEnum": "designer.models.SimulationRun.Kind"},
    "COMPONENT_SPLIT_REQUEST": True,  # request bodies have their own schemas (no read-only fields, amounts as numbers)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "designer.api.schema.add_error_responses",
    ],
}
LOGIN_URL = "login"
LOGIN_MAX_FAILURES = env_int("LOGIN_MAX_FAILURES", 5, minimum=1)  # per user name, from any address
LOGIN_MAX_FAILURES_PER_IP = env_int("LOGIN_MAX_FAILURES_PER_IP", 20, minimum=1)  # per client address
LOGIN_LOCKOUT_S = env_int("LOGIN_LOCKOUT_S", 900, minimum=1)
# proxies in front of the app that each append to X-Forwarded-For (0: the peer is the client)
TRUSTED_PROXY_COUNT = env_trusted_proxy_count()
LOGIN_REDIRECT_URL = "design-list"
LOGOUT_REDIRECT_URL = "home"

# --- Celery -------------------------------------------------------------------------------
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or f"file://{VAR_DIR / 'celery-results'}"
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's filesystem transport with atomic message writes (see designer/broker.py)
    CELERY_BROKER_TRANSPORT = "designer.broker:Transport"
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # kombu's virtual transports poll an empty queue once a second by default, and with late
        # acks and prefetch 1 a worker polls again after every chunk: each chunk then waited half
        # an interval on average (benchmarks/sweep_e2e.py, 1 M points in 21 chunks, one worker:
        # 2.1–2.4 s at 0.1 s, 1.65–1.75 s at 0.02 s). An idle worker listing the folder 50 times
        # a second costs ≈ 0.9 % of one core (measured over 10 s).
        "polling_interval": 0.02,
    }
elif CELERY_BROKER_URL.split("://", 1)[0] not in {"redis", "rediss", "amqp", "amqps", "pyamqp", "memory"}:
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: use filesystem://, redis://…, amqp://… or memory://"
    )
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE = {
    "reap-stale-sweep-chunks": {"task": "designer.reap_stale_chunks", "schedule": 15.0},
    "reap-stale-simulations": {"task": "designer.reap_stale_simulations", "schedule": 30.0},
    "reap-export-jobs": {"task": "designer.reap_export_jobs", "schedule": 60.0},
    "reap-stale-search-chunks": {"task": "designer.reap_stale_search_chunks", "schedule": 15.0},
}
# after a process's first response its long-lived heap leaves the garbage collector's scans (designer/heap.py)
GC_FREEZE_AFTER_FIRST_REQUEST = env_bool("GC_FREEZE_AFTER_FIRST_REQUEST", True)
# … and reserves (touches once) this much heap for the large requests' arrays, glibc only; 0: none (designer/heap.py)
HEAP_RESERVE_MB = env_int("HEAP_RESERVE_MB", 160, minimum=0)
# the largest design a web or API request plans (bounded time and memory per request)
MAX_REQUEST_GPUS = env_int("MAX_REQUEST_GPUS", 262_144, minimum=1)
# … and at most this many storage + management + login servers (each a management port and a rack slot)
MAX_REQUEST_SERVERS = env_int("MAX_REQUEST_SERVERS", 10_000, minimum=1)
SWEEP_LEASE_S = env_int("SWEEP_LEASE_S", 60, minimum=1)
SWEEP_MAX_ATTEMPTS = env_int("SWEEP_MAX_ATTEMPTS", 5, minimum=1)
SWEEP_CHUNK_POINTS = env_int("SWEEP_CHUNK_POINTS", 50000, minimum=100)
# the failure page's Monte Carlo runs in the request only when its estimate (samples × one max-flow) fits this [ms]
FAILURE_REQUEST_MS = env_int("FAILURE_REQUEST_MS", 1000, minimum=1)
# the sweep form's time estimate before a user has finished sweeps of their own (then their measured rate is used):
# a deliberately low planning figure, points per second of wall time; `make bench` prints this machine's own rate
SWEEP_POINTS_PER_S_ESTIMATE = env_int("SWEEP_POINTS_PER_S_ESTIMATE", 100_000, minimum=1)
# a sweep's variants (designs × varied values) are planned in the request: at most this many, and at most this
# many GPUs planned over all of them (each one ≤ MAX_REQUEST_GPUS); counted from the spec before any is planned
SWEEP_MAX_VARIANTS = env_int("SWEEP_MAX_VARIANTS", 1024, minimum=1)
SWEEP_MAX_PLANNED_GPUS = env_int("SWEEP_MAX_PLANNED_GPUS", 1_048_576, minimum=1)
# design searches (designer/searches.py): candidates a search may have (the grid, from the spec, before any work;
# cluster.search.MAX_CANDIDATES is the CLI's) and candidates per Celery chunk (≈ 1.5 s of work at 16k GPUs)
SEARCH_MAX_CANDIDATES = env_int("SEARCH_MAX_CANDIDATES", 20_000, minimum=1)
SEARCH_CHUNK_CANDIDATES = env_int("SEARCH_CHUNK_CANDIDATES", 50, minimum=1)
# exports that build the floor plan (bom.xlsx, netbox.zip, cabling.csv, racks.csv, elevations.svg) of a revision
# with more links than this are built by a Celery job (designer/export_jobs.py); at 6,000 the slowest, bom.xlsx,
# takes < 1 s in the request (the 2,000-GPU demo has 5,710 links). Finished files are kept EXPORT_JOB_TTL_S.
EXPORT_INLINE_MAX_LINKS = env_int("EXPORT_INLINE_MAX_LINKS", 6000, minimum=0)
EXPORT_JOB_TTL_S = env_int("EXPORT_JOB_TTL_S", 86400, minimum=60)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO" if DEBUG else "WARNING"},
}
