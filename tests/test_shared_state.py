"""State every worker and app server must share: the cache behind throttles, lock-outs and
cached pages (REDIS_URL, else the database in production), and whose address a request is
counted against (TRUSTED_PROXY_COUNT)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache.backends.db import DatabaseCache
from django.test import RequestFactory, override_settings

from dbd_site.client_address import client_address
from dbd_site.models import RateCounter
from dbd_site.throttles import scope_and_bucket
from tests.conftest import throttle_rates

ROOT = Path(__file__).resolve().parent.parent
# Whatever the shell running the tests has set, each case states the whole environment.
SETTINGS_ENV = ("DEBUG", "REDIS_URL", "SECRET_KEY", "TRUSTED_PROXY_COUNT", "RELEASE")
PRINT_SETTINGS = """
import json
from django.conf import settings
print(json.dumps({
    "cache": settings.CACHES["default"],
    "num_proxies": settings.REST_FRAMEWORK["NUM_PROXIES"],
    "axes_client_ip": settings.AXES_CLIENT_IP_CALLABLE,
    "release": settings.RELEASE,
}))
"""


def production_settings(**env: str) -> dict:
    """dbd_site.settings as a fresh process reads it from `env` (DEBUG off unless given)."""
    environ = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    environ |= {
        "DJANGO_SETTINGS_MODULE": "dbd_site.settings",
        "SECRET_KEY": "a-private-key-for-this-test-only-0123456789abcdef",
        **env,
    }
    done = subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- which cache ----------------------------------------------------------------------------


def test_redis_url_puts_the_cache_in_redis():
    found = production_settings(REDIS_URL="redis://127.0.0.1:6379/5")
    assert found["cache"] == {
        "BACKEND": "dbd_site.redis_cache.KeptClientRedisCache",
        "LOCATION": "redis://127.0.0.1:6379/5",
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }


def test_redis_url_wins_in_development_too():
    found = production_settings(REDIS_URL="redis://127.0.0.1:6379/5", DEBUG="1")
    assert found["cache"]["BACKEND"] == "dbd_site.redis_cache.KeptClientRedisCache"


def test_production_without_redis_shares_the_database_cache():
    found = production_settings()
    assert found["cache"] == {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "dbd_cache",
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    }


def test_development_without_redis_keeps_the_cache_in_memory():
    found = production_settings(DEBUG="1")
    assert found["cache"] == {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


def test_the_release_is_the_package_version_unless_named():
    assert production_settings()["release"] == "0.1.0"
    assert production_settings(RELEASE="2026.11.22-abc123")["release"] == "2026.11.22-abc123"


@pytest.mark.django_db
def test_migrate_makes_the_database_cache_table():
    # The test database was made by the migrations alone: the table must be there.
    shared = DatabaseCache(settings.CACHE_TABLE, {})
    shared.set("shared-state-test", {"answer": 42}, 30)
    assert shared.get("shared-state-test") == {"answer": 42}
    shared.delete("shared-state-test")
    assert shared.get("shared-state-test") is None


# --- whose address --------------------------------------------------------------------------


def test_proxy_count_defaults_to_zero_for_throttles_and_axes():
    found = production_settings()
    assert found["num_proxies"] == 0
    assert found["axes_client_ip"] == "dbd_site.client_address.client_address"
    assert production_settings(TRUSTED_PROXY_COUNT="2")["num_proxies"] == 2


def test_a_negative_proxy_count_stops_start_up():
    environ = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    environ |= {
        "DJANGO_SETTINGS_MODULE": "dbd_site.settings",
        "SECRET_KEY": "a-private-key-for-this-test-only-0123456789abcdef",
        "TRUSTED_PROXY_COUNT": "-1",
    }
    done = subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "TRUSTED_PROXY_COUNT must be 0 or more." in done.stderr


def anon_throttle_key(**headers: str) -> str:
    """The anonymous API throttle's bucket for a request from 192.0.2.10 with `headers`."""
    request = RequestFactory().get("/api/v1/rules/", REMOTE_ADDR="192.0.2.10", **headers)
    request.user = AnonymousUser()
    scope, bucket = scope_and_bucket(request)
    assert scope == "anon"
    return bucket


def test_with_no_trusted_proxy_a_forged_forwarded_for_changes_nothing():
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0
    plain = anon_throttle_key()
    assert plain == "api:anon:192.0.2.10"
    for forged in ("203.0.113.7", "203.0.113.7, 198.51.100.1", "anything at all"):
        assert anon_throttle_key(HTTP_X_FORWARDED_FOR=forged) == plain
        request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.10", HTTP_X_FORWARDED_FOR=forged)
        assert client_address(request) == "192.0.2.10"


def test_behind_one_proxy_the_client_is_the_address_the_proxy_saw():
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}):
        # The proxy appends the address it was called from; what the client wrote before
        # it (to the left) is not trusted.
        seen = anon_throttle_key(HTTP_X_FORWARDED_FOR="198.51.100.1")
        forged = anon_throttle_key(HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1")
        assert seen == forged == "api:anon:198.51.100.1"
        request = RequestFactory().get(
            "/", REMOTE_ADDR="192.0.2.10", HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1"
        )
        assert client_address(request) == "198.51.100.1"
        # Nothing forwarded (a request that did not come through the proxy): the peer.
        assert anon_throttle_key() == "api:anon:192.0.2.10"


@pytest.mark.django_db  # the page and the rules read the catalogue
def test_forged_forwarded_for_does_not_escape_the_anonymous_limit(client):
    with throttle_rates(anon="2/minute"):
        url = "/api/v1/rules/"
        assert client.get(url, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 200
        assert client.get(url, HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 200
        refused = client.get(url, HTTP_X_FORWARDED_FOR="203.0.113.3")
    assert refused.status_code == 429
    assert [e["code"] for e in refused.json()["errors"]] == ["throttled"]


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=2)
def test_forged_forwarded_for_does_not_escape_a_login_lock_out(client, django_user_model):
    django_user_model.objects.create_user("alice", password="the-right-password-9")
    login = "/accounts/login/"
    bad = {"username": "alice", "password": "wrong"}
    assert client.post(login, bad, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 200
    assert client.post(login, bad, HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 429
    good = {"username": "alice", "password": "the-right-password-9"}
    assert client.post(login, good, HTTP_X_FORWARDED_FOR="203.0.113.3").status_code == 429


@pytest.mark.django_db
def test_the_database_cache_counts_for_every_worker(client):
    """Production without Redis: the throttle's count lives in the shared table, where any
    other worker's or server's own connection finds it and adds to it."""
    database_cache = {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": settings.CACHE_TABLE,
    }
    with override_settings(CACHES={"default": database_cache}), throttle_rates(anon="2/minute"):
        assert client.get("/api/v1/rules/").status_code == 200
        # Another worker: a connection of its own, the same table.
        assert RateCounter.objects.get(bucket="rate:api:anon:127.0.0.1:60").hits == 1
        assert client.get("/api/v1/rules/").status_code == 200
        assert client.get("/api/v1/rules/").status_code == 429
        RateCounter.objects.filter(bucket="rate:api:anon:127.0.0.1:60").delete()
        assert client.get("/api/v1/rules/").status_code == 200  # its count gone, for all
