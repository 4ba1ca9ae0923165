"""Settings, all from the environment (django-environ). See .env.example for every variable.

Secrets have no default outside DEBUG; each integration is off until configured.
"""

from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
if DEBUG:
    SECRET_KEY = env("DJANGO_SECRET_KEY", default="dev-only-insecure-key-do-not-use-in-production")
else:
    SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # runserver (`make run`) serves /static/ through WhiteNoise too, as every other role does.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "market",
    "market.api",
    "market.payments",
    "verifiers",
    "activity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files in every role, before anything that touches the session or the database.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.middleware.PrivateCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.DebugProductNotFoundMiddleware",  # DEBUG only
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Redis (the rate counters) not answering: 503 with Retry-After, never a 500.
    "market.api.throttling.UnavailableMiddleware",
    # Last: turns a login refused by the guard into its 429 answer (market/login_guard.py).
    "axes.middleware.AxesMiddleware",
]
CSRF_FAILURE_VIEW = "market.views.errors.csrf_failure"

ROOT_URLCONF = "config.urls"

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

WSGI_APPLICATION = "config.wsgi.application"

# PostgreSQL is the only database (the engine is its functions and triggers) and Redis the
# only broker. `make run` and `make test` start private ones and write their URLs to
# var/stack.env (scripts/stack.py), read here after .env in development (DEBUG) only:
# `manage.py` then finds the servers of a running `make run` by itself.
if DEBUG:
    environ.Env.read_env(VAR_DIR / "stack.env", overwrite=False)
if not env("DATABASE_URL", default=""):
    raise ImproperlyConfigured(
        "DATABASE_URL is not set: start `make run` (which writes var/stack.env) or set "
        "DATABASE_URL=postgres://..."
    )
DATABASES = {"default": env.db("DATABASE_URL")}
if "postgresql" not in DATABASES["default"]["ENGINE"]:
    # The matching engine, the ledger's guards and the fan-out are PL/pgSQL (issue 26 removed
    # SQLite and the Python engine): another database would run without them.
    raise ImproperlyConfigured(
        "DATABASE_URL must name a PostgreSQL database (postgres://...), the only engine the "
        "market runs on; `make run` and `make test` start a private one"
    )
# Each web process keeps its connection between requests (checked before reuse): a request
# then skips connecting (a new backend process) and the engine functions' first-call
# compilation, about 20 ms of a placement's 34 ms through the API (docs/market.md). Celery's
# Django fix-up still closes a worker's connection around each task.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Django's backend, whose health check asks the server (SELECT 1) only when the idle
# connection's socket has something to read: an ended connection always has (config/postgresql).
DATABASES["default"]["ENGINE"] = "config.postgresql"
DATABASES["default"]["TEST"] = {"NAME": env("TEST_DATABASE_NAME", default=None)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Password guessing (market/login_guard.py; docs/production.md): django-axes counts failures
# per normalised username in the throttle cache; the guard also bounds failures per address.
AUTHENTICATION_BACKENDS = [
    "market.login_guard.LoginGuardBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Counts in Redis, shared by every process.
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
AXES_CACHE = "throttle"
AXES_FAILURE_LIMIT = env.int("LOGIN_MAX_FAILURES_PER_USERNAME", default=10)
AXES_COOLOFF_TIME = timedelta(seconds=env.int("LOGIN_LOCKOUT_S", default=15 * 60))
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_USERNAME_CALLABLE = "market.login_guard.normalised_username"
AXES_CLIENT_IP_CALLABLE = "market.login_guard.client_address"
AXES_LOCKOUT_CALLABLE = "market.login_guard.lockout_response"
AXES_RESET_ON_SUCCESS = True
# A guess while locked out does not extend the lockout (nor is its password checked).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False
# axes.W006 asks for ip_address in AXES_LOCKOUT_PARAMETERS; the guard bounds each address with
# its own, larger limit instead (one shared office address must not lock everyone out).
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env("DJANGO_STATIC_ROOT", default=str(VAR_DIR / "static")))
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
# WhiteNoise serves /static/ in every role. Without DEBUG the files come from `collectstatic`
# (in the image) with content-hashed names, cached for a year as immutable; under DEBUG
# (`make run`) straight from the source folders, so no collectstatic is needed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
# Source maps are fetched only by a developer's browser tools: serving them uncompressed
# spares collectstatic brotli at quality 11 on 11 MB of maps (about half its CPU time).
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security behind TLS (docs/production.md) ------------------------------------------------
# On by default without DEBUG. The TLS proxy in front must set X-Forwarded-Proto (and strip
# any the client sent): Django trusts it to know that a request came over HTTPS.
if env.bool("DJANGO_BEHIND_TLS_PROXY", default=not DEBUG):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
# No script reads the CSRF cookie: page forms carry the token in a hidden field and htmx only
# polls with GET. API clients use tokens (no CSRF); the API docs' "Try it out" too.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# Scripts, styles and everything else from this site only: no inline scripts, handlers or
# style attributes anywhere (templates, static/js, static/css), and the pages may not be framed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
    },
}

# --- Celery ---------------------------------------------------------------------------------
# Redis is the broker (kombu's filesystem transport, the former embedded default, lost messages
# read half-written: kombu issue 1551), the throttle's and the login guard's store.
REDIS_URL = env("REDIS_URL", default="")
if not REDIS_URL:
    # Also the store of the rate limits and lockouts, which every web process must share.
    raise ImproperlyConfigured(
        "REDIS_URL is required when DJANGO_DEBUG=0, and in development too: start `make run` "
        "(which writes var/stack.env) or set REDIS_URL=redis://..."
    )
CELERY_BROKER_URL = REDIS_URL
# visibility_timeout is set with the judge's settings below (it must fit the longest task).
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
CELERY_TASK_IGNORE_RESULT = True
# Judge tasks are idempotent (claims, one verdict record), so late acks are safe and a task
# whose worker died is delivered again: at once when only the pool child died
# (reject_on_worker_lost), after the visibility timeout when the whole worker died. See
# docs/judging.md for every fault and its bound.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A lost broker connection (Redis restarted) does not cancel a verdict in progress: it is
# written to PostgreSQL, and a duplicate delivery finds it judged.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # keep reconnecting while Redis restarts
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fix-up closes a task's database connections before and after every task
# unless this is set: a new PostgreSQL backend (fork, SCRAM handshake, session set-up) per
# verdict, the largest share of the judge worker's and the server's CPU per verdict (issue 29,
# docs/performance.md). With it a pool child keeps its connection like a web process does
# (DB_CONN_MAX_AGE, checked before each task by config/celery.py as Django checks before
# each request), and the fix-up still closes it after this many tasks.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}
# The practice bot re-places its standing bid on each demo problem after a fill.
CELERY_BEAT_SCHEDULE["practice-bot-bids"] = {
    "task": "market.refresh_practice_bids",
    "schedule": env.float("PRACTICE_BOT_REFRESH_S", default=10.0),
    "options": {"queue": "default", "expires": 30},
}

# --- The market -----------------------------------------------------------------------------
MARKET_FEE_BPS = env.int("MARKET_FEE_BPS", default=500)  # 5 % of each trade to the platform
MARKET_MAX_ORDER_QUANTITY = env.int("MARKET_MAX_ORDER_QUANTITY", default=1000)
MARKET_MAX_PRICE_MINOR = env.int("MARKET_MAX_PRICE_MINOR", default=100_000_000)
DEMO_SIGNUP_GRANT_MINOR = env.int("DEMO_SIGNUP_GRANT_MINOR", default=100_000)  # 1 000.00 DEMO

# --- The judge ------------------------------------------------------------------------------
JUDGE_PYTHON_MAX_TIME_S = env.float("JUDGE_PYTHON_MAX_TIME_S", default=60.0)
JUDGE_PYTHON_MAX_MEMORY_MB = env.int("JUDGE_PYTHON_MAX_MEMORY_MB", default=1024)
JUDGE_LEAN_MAX_TIME_S = env.float("JUDGE_LEAN_MAX_TIME_S", default=600.0)
JUDGE_LEAN_MAX_MEMORY_MB = env.int("JUDGE_LEAN_MAX_MEMORY_MB", default=8192)
# A worker's claim on a solution or dry run lives this long without a heartbeat (the worker
# renews it every third of it while judging): a dead worker's claim expires within it.
JUDGE_CLAIM_LEASE_S = env.float("JUDGE_CLAIM_LEASE_S", default=60.0)
# The sweep (every JUDGE_REQUEUE_EVERY_S) re-sends RUNNING work whose claim expired, and
# PENDING work older than JUDGE_REQUEUE_AFTER_S (a lost message, retries exhausted, a Lean
# toolchain that arrived since). Bounds: docs/judging.md.
JUDGE_REQUEUE_AFTER_S = env.float("JUDGE_REQUEUE_AFTER_S", default=300.0)
JUDGE_REQUEUE_EVERY_S = env.float("JUDGE_REQUEUE_EVERY_S", default=60.0)
CELERY_BEAT_SCHEDULE["judge-requeue-pending"] = {
    "task": "market.requeue_pending_solutions",
    "schedule": JUDGE_REQUEUE_EVERY_S,
    "options": {"queue": "default", "expires": JUDGE_REQUEUE_EVERY_S * 2},
}
CELERY_BEAT_SCHEDULE["judge-requeue-dry-runs"] = {
    "task": "verifiers.requeue_stale_dry_runs",
    "schedule": JUDGE_REQUEUE_EVERY_S,
    "options": {"queue": "default", "expires": JUDGE_REQUEUE_EVERY_S * 2},
}
# Redis re-delivers an unacknowledged message after this long: longer than the longest
# verdict (a Lean job may build its verifier first, then judge, each up to the cap), so a
# running task is not delivered twice; a duplicate would find a live claim and do nothing.
JUDGE_VISIBILITY_TIMEOUT_S = env.float(
    "JUDGE_VISIBILITY_TIMEOUT_S",
    default=max(JUDGE_PYTHON_MAX_TIME_S, 2 * JUDGE_LEAN_MAX_TIME_S) + 2 * JUDGE_CLAIM_LEASE_S,
)
CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = JUDGE_VISIBILITY_TIMEOUT_S

# --- Activity webhooks (activity/; docs/agents.md) -------------------------------------------
# Loopback/private/link-local targets (and plain http) are refused unless this is set
# (development and tests, whose receivers listen on 127.0.0.1).
WEBHOOK_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", default=DEBUG)
WEBHOOK_TIMEOUT_S = env.float("WEBHOOK_TIMEOUT_S", default=10.0)
ACTIVITY_BADGE_POLL_S = env.int("ACTIVITY_BADGE_POLL_S", default=15)  # header badge refresh
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=8)
WEBHOOK_RETRY_BASE_S = env.float("WEBHOOK_RETRY_BASE_S", default=30.0)  # 30 s, 1 min, 2 min...
WEBHOOK_RETRY_MAX_S = env.float("WEBHOOK_RETRY_MAX_S", default=6 * 3600.0)
# The engine's fan-out outbox (activity.services.fanout): resting bids announced to the users
# who could sell to them, traders' webhooks dispatched. Drained when a change commits (beat's
# LISTEN activity_fanout, activity.services.listener); this sweep is only the backstop.
ACTIVITY_FANOUT_LISTEN = env.bool("ACTIVITY_FANOUT_LISTEN", default=True)
# At most one drain per this many seconds while commits keep coming (one after a quiet spell
# is sent at once): a bid is announced, a webhook dispatched, at most this much later.
ACTIVITY_FANOUT_COALESCE_S = env.float("ACTIVITY_FANOUT_COALESCE_S", default=0.1)
CELERY_BEAT_SCHEDULE["activity-drain-fanout"] = {
    "task": "activity.drain_fanout",
    "schedule": env.float("ACTIVITY_FANOUT_EVERY_S", default=30.0),
    "options": {"queue": "default", "expires": 10},
}
CELERY_BEAT_SCHEDULE["activity-sweep-webhooks"] = {
    "task": "activity.sweep_webhooks",
    "schedule": env.float("WEBHOOK_SWEEP_EVERY_S", default=60.0),
    "options": {"queue": "default", "expires": 120},
}

# --- Stripe (USD is disabled until STRIPE_SECRET_KEY is set) ----------------------------------
STRIPE_SECRET_KEY = env("STRIPE_SECRET_KEY", default="")
STRIPE_WEBHOOK_SECRET = env("STRIPE_WEBHOOK_SECRET", default="")
if STRIPE_SECRET_KEY:
    # Deposits and payout onboarding post a form that redirects to Stripe's hosted pages;
    # browsers apply form-action to that redirect.
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"] += [
        "https://checkout.stripe.com",
        "https://connect.stripe.com",
    ]
# Payments (market/payments; docs/payments.md). Amounts in USD cents.
STRIPE_WEBHOOK_TOLERANCE_S = env.int("STRIPE_WEBHOOK_TOLERANCE_S", default=300)
STRIPE_MAX_NETWORK_RETRIES = env.int("STRIPE_MAX_NETWORK_RETRIES", default=2)
STRIPE_CONNECT_COUNTRY = env("STRIPE_CONNECT_COUNTRY", default="us")
STRIPE_CONNECT_DASHBOARD = env("STRIPE_CONNECT_DASHBOARD", default="express")
PAYMENTS_PUBLIC_BASE_URL = env("PAYMENTS_PUBLIC_BASE_URL", default="")
DEPOSIT_MIN_MINOR = env.int("DEPOSIT_MIN_MINOR", default=500)
DEPOSIT_MAX_MINOR = env.int("DEPOSIT_MAX_MINOR", default=100_000)
PAYOUT_MIN_MINOR = env.int("PAYOUT_MIN_MINOR", default=1_000)
PAYOUT_FEE_FIXED_MINOR = env.int("PAYOUT_FEE_FIXED_MINOR", default=25)
PAYOUT_FEE_BPS = env.int("PAYOUT_FEE_BPS", default=0)
PROCEEDS_HOLD_WINDOW_S = env.int("PROCEEDS_HOLD_WINDOW_S", default=7 * 24 * 3600)
PAYOUT_STUCK_AFTER_S = env.int("PAYOUT_STUCK_AFTER_S", default=15 * 60)
CELERY_BEAT_SCHEDULE["payments-release-proceeds"] = {
    "task": "payments.release_matured_proceeds",
    "schedule": env.float("PROCEEDS_RELEASE_EVERY_S", default=300.0),
    "options": {"queue": "default", "expires": 600},
}
CELERY_BEAT_SCHEDULE["payments-retry-stuck-withdrawals"] = {
    "task": "payments.retry_stuck_withdrawals",
    "schedule": env.float("PAYOUT_RETRY_EVERY_S", default=600.0),
    "options": {"queue": "default", "expires": 1200},
}
if STRIPE_SECRET_KEY:
    # The ledger against Stripe's balance transactions (docs/payments.md); only where USD is on.
    CELERY_BEAT_SCHEDULE["payments-reconcile-with-stripe"] = {
        "task": "payments.reconcile_with_stripe",
        "schedule": env.float("RECONCILE_EVERY_S", default=24 * 3600.0),
        "options": {"queue": "default", "expires": 3600},
    }

# Uploads stay in memory, capped at the largest file the site accepts (market/api/uploads.py).
FILE_UPLOAD_HANDLERS = ["market.api.uploads.CappedMemoryUploadHandler"]

# --- REST API (market/api; docs/api.md) ------------------------------------------------------
# Throttle counters live in their own cache, in Redis (shared by all web processes).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "throttle": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL},
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "market.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "market.api.parsers.JSONParser",  # DRF's, with a nesting bound (no 500)
        "rest_framework.parsers.MultiPartParser",
        "rest_framework.parsers.FormParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "market.api.throttling.ReadThrottle",
        "market.api.throttling.WriteThrottle",
    ],
    # How many proxies in front of web append to X-Forwarded-For (compose: Caddy, 1). Unset,
    # the client address is REMOTE_ADDR (a client-written header is never trusted).
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
    "DEFAULT_THROTTLE_RATES": {
        "read": env("API_THROTTLE_READ", default="600/min"),
        "write": env("API_THROTTLE_WRITE", default="120/min"),
    },
    "DEFAULT_PAGINATION_CLASS": "market.api.pagination.IdCursorPagination",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "market.api.errors.exception_handler",
    "DEFAULT_METADATA_CLASS": "market.api.metadata.Metadata",  # OPTIONS without a 500
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
# How many requests of one web process may wait for a verdict at once (GET
# /api/v1/solutions/<id>/?wait=<s>, market/verdict_waits.py): each holds a thread, so give
# gunicorn more threads than this (the images: --threads 8). A request beyond it, or on a
# server without threads (sync workers), is answered at once, as if it had not asked to wait.
API_SOLUTION_WAIT_SLOTS = env.int("API_SOLUTION_WAIT_SLOTS", default=4)
SPECTACULAR_SETTINGS = {
    "TITLE": "FormalMarket API",
    "DESCRIPTION": "Problems, solutions, order books, orders and authoring. See docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "OrderStatusEnum": "market.models.orders.OrderStatus",
        "OrderSideEnum": "market.models.orders.OrderSide",
        "SolutionStatusEnum": "market.models.problems.SolutionStatus",
        "ProblemStatusEnum": "market.models.problems.ProblemStatus",
        "PublicProblemStatusEnum": ["published", "retired"],
    },
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999},
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "market.api.schema.add_error_responses",
    ],
    "PREPROCESSING_HOOKS": ["market.api.schema.only_api_endpoints"],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
