"""The atomic rate counter (`dbd_site.rate_limits`) in each of its stores: the database
(the suite's own, SQLite or PostgreSQL), Redis and one process's memory.

Exactness under concurrency is shown with threads released together, each with its own
connection: every request gets a different number, so exactly `limit` are allowed.
"""

import os

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from dbd_site import rate_limits
from dbd_site.models import RateCounter
from dbd_site.rate_limits import Rate, hit
from tests.concurrency import at_once

# A Redis to count in (CI starts one); the keys carry a prefix of their own and go after.
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/1")
STORES = {
    "database": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": settings.CACHE_TABLE,
    },
    "redis": {
        "BACKEND": "dbd_site.redis_cache.KeptClientRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "rate-limit-test",
    },
    "in-process": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}


def _clear_redis_keys() -> None:
    client = caches["default"]._cache.get_client(None, write=True)
    for key in client.scan_iter("rate-limit-test:*"):
        client.delete(key)


def _use(store: str):
    override = override_settings(CACHES={"default": STORES[store]})
    override.enable()
    if store == "redis":
        try:
            _clear_redis_keys()
        except RedisConnectionError:
            override.disable()
            pytest.skip(f"no Redis at {REDIS_URL} (CI starts one)")
    return override


def _each_store(request):
    override = _use(request.param)
    yield request.param
    if request.param == "redis":
        _clear_redis_keys()
    override.disable()


@pytest.fixture(params=list(STORES))
def store(request, db):
    yield from _each_store(request)


@pytest.fixture(params=list(STORES))
def store_for_threads(request, transactional_db):
    """As `store`, with committed data: each thread's own connection sees the table."""
    yield from _each_store(request)


# --- rates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("60/minute", Rate(60, 60)),
        ("600/min", Rate(600, 60)),
        ("5/s", Rate(5, 1)),
        ("20/hour", Rate(20, 3600)),
        ("1000/day", Rate(1000, 86400)),
        (" 7 / m ", Rate(7, 60)),
    ],
)
def test_rates_are_read_as_drf_writes_them(text, rate):
    assert Rate.parse(text) == rate


@pytest.mark.parametrize("text", ["", "60", "60/fortnight", "0/minute", "-1/minute", "x/m"])
def test_a_rate_that_does_not_parse_is_refused(text):
    with pytest.raises(ValueError, match="A rate is a number of requests per"):
        Rate.parse(text)


# --- counting, in each store ------------------------------------------------------------------


def test_the_limit_holds_and_then_refuses(store):
    rate = Rate(3, 60)
    counts = [hit("client-a", rate) for _ in range(5)]
    assert [c.hits for c in counts] == [1, 2, 3, 4, 5]
    assert [c.allowed for c in counts] == [True, True, True, False, False]
    assert [c.remaining for c in counts] == [2, 1, 0, 0, 0]
    assert all(1 <= c.reset_seconds <= 60 for c in counts)
    assert counts[0].headers() == {
        "RateLimit-Limit": "3",
        "RateLimit-Remaining": "2",
        "RateLimit-Reset": str(counts[0].reset_seconds),
    }
    assert counts[4].headers() == {
        "RateLimit-Limit": "3",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": str(counts[4].reset_seconds),
        "Retry-After": str(counts[4].reset_seconds),
    }


def test_each_bucket_and_each_period_counts_alone(store):
    assert hit("client-a", Rate(1, 60)).allowed
    assert not hit("client-a", Rate(1, 60)).allowed
    assert hit("client-b", Rate(1, 60)).allowed
    assert hit("client-a", Rate(1, 3600)).allowed  # another limit on the same client


@pytest.mark.parametrize("store_name", ["database", "in-process"])
def test_a_window_ends_when_its_period_is_over_and_refusals_do_not_extend_it(
    db, monkeypatch, store_name
):
    override = _use(store_name)
    clock = [1_000_000_000_000]
    monkeypatch.setattr(rate_limits, "_now_ms", lambda: clock[0])
    try:
        rate = Rate(2, 60)
        assert [hit("c", rate).hits for _ in range(3)] == [1, 2, 3]
        clock[0] += 59_000
        refused = hit("c", rate)
        assert (refused.hits, refused.allowed, refused.reset_ms) == (4, False, 1_000)
        clock[0] += 1_000  # the window opened 60 s ago: the next request opens another
        fresh = hit("c", rate)
        assert (fresh.hits, fresh.allowed, fresh.reset_ms) == (1, True, 60_000)
    finally:
        override.disable()


def test_the_database_keeps_about_one_row_per_client_of_the_last_period(db, monkeypatch):
    override = _use("database")
    clock = [1_000_000_000_000]
    monkeypatch.setattr(rate_limits, "_now_ms", lambda: clock[0])
    try:
        for client in ("a", "b", "c"):
            hit(client, Rate(5, 60))
        clock[0] += 61_000
        hit("d", Rate(5, 60))  # a window opens: those that ended are swept away
        assert list(RateCounter.objects.values_list("bucket", flat=True)) == ["rate:d:60"]
    finally:
        override.disable()


def test_a_very_long_identity_is_hashed_into_the_key(store):
    long_identity = "x" * 500
    assert hit(long_identity, Rate(1, 60)).allowed
    assert not hit(long_identity, Rate(1, 60)).allowed
    if store == "database":
        (bucket,) = RateCounter.objects.values_list("bucket", flat=True)
        assert bucket.startswith("rate:")
        assert len(bucket) == len("rate:") + 64


def test_parallel_requests_each_get_their_own_number(store_for_threads):
    """Twenty connections at once, five requests each, against a limit of 37: every
    request is counted exactly once, so exactly 37 are allowed."""
    rate = Rate(37, 3600)

    def five(_: int) -> list[int]:
        return [hit("crowd", rate).hits for _ in range(5)]

    results = at_once(20, five)
    assert not [r for r in results if isinstance(r, Exception)]
    numbers = sorted(n for r in results for n in r)
    assert numbers == list(range(1, 101))
    assert sum(1 for n in numbers if n <= rate.limit) == 37
