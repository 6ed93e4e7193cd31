"""Settings for the DBD Force Builder, read from the environment.

`make run` sets DEBUG=1; everything else defaults to production-safe values.
"""

from importlib import metadata
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from dbd_site.env import env_bool, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

DEBUG = env_bool("DEBUG", default=False)

# A development key only while DEBUG is on: a production site must bring its own.
_DEV_SECRET_KEY = "dev-only-insecure-key-never-use-in-production-8c1f0b6e"
SECRET_KEY = env_str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else None)
if not DEBUG and SECRET_KEY == _DEV_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set to a private value when DEBUG is off.")

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "axes",
    "dbd_site",  # the shared cache table's migration
    "accounts",
    "idempotency",  # a write sent twice with one key is done once
    "rules",
    "roster",
    "campaign",
    "play",
    "events",  # the per-user feed and webhooks (docs/events.md)
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    # First: /healthz is answered before any host check, redirect, session or throttle.
    "dbd_site.health.HealthCheckMiddleware",
    # Before anything that answers: the read-only API's CORS headers (dbd_site.cors), on
    # its refusals and 429s too, and its preflights answered here.
    "corsheaders.middleware.CorsMiddleware",
    # Next: every answer under /api/ (a refusal by any layer below included) is counted
    # once against the client's limit and carries the rate-limit headers.
    "dbd_site.throttles.ApiRateLimitMiddleware",
    "dbd_site.middleware.RequestSizeLimitMiddleware",
    "dbd_site.middleware.UnstorableCharacterMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise (static files come pre-compressed and skip it), before everything
    # that writes an answer's body: pages and API answers gzipped, unless they show a
    # secret (docs/operations.md, "Compression").
    "dbd_site.compression.CompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "dbd_site.privacy.PrivatePagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns lockouts into a response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "dbd_site.urls"
WSGI_APPLICATION = "dbd_site.wsgi.application"

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
                "dbd_site.context_processors.navigation",
            ],
            "builtins": ["django_htmx.templatetags.django_htmx", "dbd_site.templatetags.words"],
        },
    }
]

# Request bodies: 1 MiB at most (413 beyond it); imported roster files have their own,
# smaller limit on the import page. Bodies without a length are capped when read.
MAX_REQUEST_BODY_BYTES = env_int("MAX_REQUEST_BODY_BYTES", default=1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", default=60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers queue instead of failing with "database is locked": every
    # transaction takes the write lock when it begins (so two never deadlock upgrading a
    # read lock), waits up to 20 s for it, and WAL lets readers go on meanwhile.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- State shared by every worker and every app server -----------------------------------
# API throttle counters, axes' lock-outs and the page and API caches must be the same for
# every gunicorn worker on every server, or each keeps its own and a limit multiplies.
# REDIS_URL: Redis (the database number in the URL keeps the site's keys apart). Without it,
# DEBUG (`make run`) keeps them in this process's memory, and production in the database
# (the table `dbd_site`'s migration makes), correct across workers if slower than Redis.
REDIS_URL = env_str("REDIS_URL", default="")
CACHE_TABLE = "dbd_cache"
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "dbd_site.redis_cache.KeptClientRedisCache",
            "LOCATION": REDIS_URL,
            # An unreachable Redis fails the request at once (503), instead of holding
            # a worker until the kernel gives up.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
elif DEBUG:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": CACHE_TABLE,
            # Past this many rows the expired go, then a third of the rest, throttle
            # counters included: room for a busy day's clients (Django's default is 300).
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        }
    }

# How many reverse proxies in front of the site append to X-Forwarded-For: the client is
# the address the outermost of them saw (`dbd_site.client_address`). 0: no proxy, the
# header is ignored, as a client could write anything in it.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", default=0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more.")

# This deployment's code: every cache key carries it (`dbd_site.cache_keys`), so a new
# release never serves a fragment an older one rendered. The package version unless the
# deployment names its release (a commit, a tag).
try:
    _PACKAGE_VERSION = metadata.version("dbd-force-builder")
except metadata.PackageNotFoundError:  # running from a checkout that was never installed
    _PACKAGE_VERSION = "0+unknown"
RELEASE = env_str("RELEASE", default=_PACKAGE_VERSION)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
# The site speaks English alone: no translations, no language per visitor. With USE_I18N
# on, every URL reverse and every number in a template asked Django for the active
# language, a thread-local read each time (bench/findings.md). Off, dates and numbers
# keep the en-GB formats that LANGUAGE_CODE names (tests/test_formats.py).
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
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

# Security headers. HTTPS-only settings switch on with SECURE_SSL_REDIRECT, which a
# deployment behind TLS sets; `make run` serves plain HTTP on loopback.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", default=False) else None
)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_SECURE = SECURE_SSL_REDIRECT
CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses logins while an address or a username is locked out.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_MINUTES", default=15) / 60  # hours
# Failures count per address (across usernames: one address trying many names) and
# per username (across addresses: one name tried from many), each locking at the limit.
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
# A success clears the failures of the username that succeeded, from that address only:
# never the address's failures for other usernames (`accounts.lockout`).
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "accounts.lockout.LockoutHandler"
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
# The client's address by the same rule as the API throttles (TRUSTED_PROXY_COUNT).
AXES_CLIENT_IP_CALLABLE = "dbd_site.client_address.client_address"
# The account forms' posts per client address, successes included (`accounts.throttles`).
ACCOUNT_FORM_RATES = {
    "signup": env_rate("SIGNUP_THROTTLE", default="20/hour"),
    "login": env_rate("LOGIN_THROTTLE", default="60/hour"),
    "password-change": env_rate("PASSWORD_CHANGE_THROTTLE", default="20/hour"),
}

# Content Security Policy (django-csp): scripts and styles only from this site, no
# inline scripts; htmx, Swagger UI and our own JS are all static files.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Under /api/ a refused CSRF check answers in the API's error shape (`dbd_site.api`).
CSRF_FAILURE_VIEW = "dbd_site.api.csrf_failure"

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "roster:list"
LOGOUT_REDIRECT_URL = "home"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "dbd_site.schema.AutoSchema",
    # Token first: DRF takes WWW-Authenticate from the first class, so anonymous callers
    # get 401 with `WWW-Authenticate: Token` rather than a bare 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Counted atomically in Redis or the database (`dbd_site.rate_limits`): anonymous
    # callers per client address (`dbd_site.client_address`), signed-in ones per user.
    "DEFAULT_THROTTLE_CLASSES": [
        "dbd_site.throttles.AnonThrottle",
        "dbd_site.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("API_THROTTLE_ANON", default="60/minute"),
        "user": env_rate("API_THROTTLE_USER", default="600/minute"),
    },
    # The client address's rule (`dbd_site.client_address`) reads it.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # JSON only, with the site's limits on depth, numbers and characters (dbd_site.inputs).
    "DEFAULT_PARSER_CLASSES": ["dbd_site.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "dbd_site.pagination.StrictLimitOffsetPagination",
    # No OPTIONS metadata: the schema at /api/schema/ describes every endpoint.
    "DEFAULT_METADATA_CLASS": None,
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "dbd_site.api.exception_handler",
}

# CORS (dbd_site.cors): enabled by `dbd_site.cors.read_only_api` (the API's reads) and by
# no address pattern; any origin, no credentials, reads only.
CORS_URLS_REGEX = r"(?!)"  # never matches: the signal alone decides
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")
CORS_ALLOW_HEADERS = ("accept", "accept-encoding", "authorization", "if-none-match")
CORS_EXPOSE_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)

SPECTACULAR_SETTINGS = {
    "TITLE": "DBD Force Builder API",
    "DESCRIPTION": (
        "The rules catalogue, roster validation, saved forces, campaigns and battles of "
        "Don't Be Defeated By A Friend. Authenticate with `Authorization: Token <token>` "
        '(read-only tokens change nothing). Every refusal is `{"errors": [{pointer, '
        "code, message}]}` with a code from `ErrorCode`. Writes take `Idempotency-Key`; "
        "what can change under you has an `ETag` to send back in `If-Match` (compared "
        "strongly) or `If-None-Match`. The site's docs/api.md tells more, with examples."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc are served from the sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Operations are named from the path after /api/v1/ (`rules_skills_list`).
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # 3.1 speaks plain JSON Schema, so the roster document schema is published as-is.
    "OAS_VERSION": "3.1.0",
    # Play mode's choice sets share field names with the campaign's ("status", "kind").
    "ENUM_NAME_OVERRIDES": {
        "PlayBattleStatusEnum": "play.serializers.BATTLE_STATUSES",
        "PlayFigureStatusEnum": "play.serializers.FIGURE_STATUSES",
        "PlayAttackKindEnum": "play.serializers.ATTACK_KINDS",
        "RuleCodeEnum": "roster.serializers.RULE_CODES",
        "FeedEventKindEnum": "events.serializers.KIND_CHOICES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "roster.schema.add_roster_document",
        "campaign.schema.add_campaign_document",
        "dbd_site.schema.add_common_error_responses",
    ],
}

# Background tasks (django-tasks, Django's tasks framework): webhook deliveries. The
# database backend by default, worked by `manage.py db_worker` (`make run` starts one;
# docker-compose runs it as the `worker` service). docs/events.md, "The worker".
# TASKS_QUEUE_URL (a Redis URL) queues them in Redis instead, through RQ
# (`django-tasks-rq`), worked by `manage.py rqworker` on any number of servers.
TASKS_QUEUE_URL = env_str("TASKS_QUEUE_URL", default="")
if TASKS_QUEUE_URL:
    if not TASKS_QUEUE_URL.startswith(("redis://", "rediss://", "unix://")):
        # Not echoed: the URL may carry Redis's password.
        raise ImproperlyConfigured(
            "TASKS_QUEUE_URL must be a Redis URL (redis://, rediss:// or unix://)."
        )
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    RQ_QUEUES = {"default": {"URL": TASKS_QUEUE_URL}}
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}}
else:
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# Webhooks (docs/events.md): each try waits on the receiver at most this long in all
# (seconds); a failed event is tried up to this many times, with exponential backoff.
WEBHOOK_TIMEOUT = 10
WEBHOOK_MAX_TRIES = 8
# A rotated secret goes on signing beside the new one this long (docs/events.md).
WEBHOOK_SECRET_GRACE_HOURS = 24
# SSRF: a production site sends webhooks to public addresses over https only
# (`events.addresses`); DEBUG (`make run`) and the tests let loopback receivers through.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = DEBUG
WEBHOOK_HTTPS_ONLY = not DEBUG

# The debug error page hides the database's address and password (DEBUG only).
DEFAULT_EXCEPTION_REPORTER_FILTER = "dbd_site.debug.ExceptionReporterFilter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", default="INFO")},
}
