"""Settings, all from the environment (django-environ). See .env.example for every variable.

Secrets have no default outside DEBUG; each integration is off until configured.
"""

from pathlib import Path

import environ

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
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "market",
    "market.api",
    "market.payments",
    "verifiers",
    "activity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

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

# The embedded default is SQLite; set DATABASE_URL for PostgreSQL (tests and production).
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["TEST"] = {"NAME": env("TEST_DATABASE_NAME", default=None)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A web server and a worker share the file: wait for the write lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
    # Take the write lock when a transaction begins: a deferred transaction that reads and
    # then writes fails at once with "database is locked" when the worker is writing.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

# --- Celery ---------------------------------------------------------------------------------
# With REDIS_URL set, Redis is the broker; otherwise kombu's filesystem transport, which needs
# no server (the embedded default of `make run`).
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600}
else:
    _broker_dir = Path(env("CELERY_FILESYSTEM_BROKER_DIR", default=str(VAR_DIR / "broker")))
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
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
# PENDING solutions older than this are sent to the judge again (a lost message, retries
# exhausted, a Lean toolchain that arrived since): a sweep every JUDGE_REQUEUE_EVERY_S.
JUDGE_REQUEUE_AFTER_S = env.float("JUDGE_REQUEUE_AFTER_S", default=300.0)
CELERY_BEAT_SCHEDULE["judge-requeue-pending"] = {
    "task": "market.requeue_pending_solutions",
    "schedule": env.float("JUDGE_REQUEUE_EVERY_S", default=300.0),
    "options": {"queue": "default", "expires": 600},
}

# --- Activity webhooks (activity/; docs/agents.md) -------------------------------------------
# Loopback/private/link-local targets (and plain http) are refused unless this is set
# (development and tests, whose receivers listen on 127.0.0.1).
WEBHOOK_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", default=DEBUG)
WEBHOOK_TIMEOUT_S = env.float("WEBHOOK_TIMEOUT_S", default=10.0)
ACTIVITY_BADGE_POLL_S = env.int("ACTIVITY_BADGE_POLL_S", default=15)  # header badge refresh
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=8)
WEBHOOK_RETRY_BASE_S = env.float("WEBHOOK_RETRY_BASE_S", default=30.0)  # 30 s, 1 min, 2 min...
WEBHOOK_RETRY_MAX_S = env.float("WEBHOOK_RETRY_MAX_S", default=6 * 3600.0)
CELERY_BEAT_SCHEDULE["activity-sweep-webhooks"] = {
    "task": "activity.sweep_webhooks",
    "schedule": env.float("WEBHOOK_SWEEP_EVERY_S", default=60.0),
    "options": {"queue": "default", "expires": 120},
}

# --- Stripe (USD is disabled until STRIPE_SECRET_KEY is set) ----------------------------------
STRIPE_SECRET_KEY = env("STRIPE_SECRET_KEY", default="")
STRIPE_WEBHOOK_SECRET = env("STRIPE_WEBHOOK_SECRET", default="")
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

# Uploads stay in memory, capped at the largest file the site accepts (market/api/uploads.py).
FILE_UPLOAD_HANDLERS = ["market.api.uploads.CappedMemoryUploadHandler"]

# --- REST API (market/api; docs/api.md) ------------------------------------------------------
# Throttle counters live in their own cache: Redis when configured (shared by all web
# processes), else process-local memory (the embedded default).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "throttle": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle"}
    ),
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
