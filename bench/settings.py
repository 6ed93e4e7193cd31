"""Settings for `python -m bench`: the site's own settings, production-like, on a
throw-away PostgreSQL database.

Differences from `dbd_site.settings`, each needed to measure rather than to change what
is measured:

- ROOT_URLCONF adds the floor view (`bench.urls`).
- DEBUG is off; SECRET_KEY is a throw-away (the bench passes one to gunicorn too).
- The database is `BENCH_DATABASE_URL` (default: the local `dbd_bench`), never
  `DATABASE_URL`, so a benchmark cannot touch a real database.
- Static files use Django's ManifestStaticFilesStorage (hashed names, as in production)
  collected into `BENCH_STATIC_ROOT`; WhiteNoise's compressed variant takes a minute to
  pre-compress the admin and Swagger files, which no measured page serves.
- API throttling stays on (its one atomic count in the cache is part of every API
  request) but with rates no benchmark reaches: thousands of requests from one user are
  the point.
- The cache is Redis (`REDIS_URL`, set by `python -m bench` to a database of its own), as
  the site is deployed (docker-compose.yml); without Redis the site falls back to a table.
- "testserver" is an allowed host, for the in-process measurements.
"""

import os

os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-only-throw-away-key-4d3c2b1a0f9e8d7c6b5a")

import dj_database_url

from dbd_site.settings import *  # noqa: F403
from dbd_site.settings import BASE_DIR, REST_FRAMEWORK, STORAGES

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/dbd_bench"

DEBUG = False
ROOT_URLCONF = "bench.urls"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
        conn_max_age=60,
        conn_health_checks=True,
    )
}

STATIC_ROOT = os.environ.get("BENCH_STATIC_ROOT", str(BASE_DIR / "var" / "bench-static"))
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}

REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"anon": "1000000/second", "user": "1000000/second"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
