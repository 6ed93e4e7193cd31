"""Settings for the test suite: the real settings plus a throw-away key and fast hashing."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-deployment")

from dbd_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# The manifest storage needs `collectstatic`; tests render templates without it.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True  # serve from the finders; no collectstatic in tests
# The suite makes thousands of API calls from one address; throttling has its own tests.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
}
# The test client's host, and schemathesis' in-process requests' host.
ALLOWED_HOSTS = ["testserver", "localhost"]
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    VAR_DIR.mkdir(exist_ok=True)  # noqa: F405
    # A file, not Django's default in-memory database, so the concurrency tests' threads
    # (each with its own connection) share it and queue on its write lock as the site
    # does. pytest-xdist gives each worker its own copy (`test-db.sqlite3_gw0`, ...).
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}  # noqa: F405
# Each test process keeps its own cache, whatever REDIS_URL says: xdist workers clear it
# between tests (tests/conftest.py) and must not clear each other's.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Tasks are queued in memory and run by the test that wants them (`tests/events/`), so
# no test needs a worker; webhook receivers in the tests listen on loopback over http.
TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
WEBHOOK_HTTPS_ONLY = False
