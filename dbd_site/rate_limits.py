"""Rate limits that hold exactly, however many workers and servers count at once.

A limit is a number of requests per period ("60/minute", written as DRF writes rates). A
client's window opens with its first request and lasts one period; every request in it
counts, a refused one too, and the window's end is fixed when it opens, so refusals never
push it back. The next request after the end opens a new window.

Each request is counted in one atomic step in the store every worker shares:

- Redis, when the site's cache is Redis: `SET key 0 EX period NX`, `INCR key` and `PTTL key`
  in one MULTI/EXEC, so the window's expiry is set with its first count and no two
  requests ever read the same number.
- The database, when the site's cache is the database (production without Redis): one
  `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` on `dbd_rate_counter`
  (`dbd_site.models.RateCounter`; SQLite 3.35+ and PostgreSQL), which starts the window,
  or adds one to it in place, or starts the next one once it has ended.
- Otherwise (the in-memory cache of `make run` and the tests, one process) that cache,
  read and written under one lock of this process.

Django's cache `incr` cannot be used instead: the database cache's is a read and then a
write, so two workers both read 5 and both write 6, and neither backend sets an expiry
in the same step as the count.
"""

import hashlib
import math
import threading
import time
from dataclasses import dataclass

from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.redis import RedisCache
from django.db import connection

# The period's first letter, as DRF reads "60/minute", "1000/day", "5/s".
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# The database's counters (`dbd_site.models.RateCounter`): its table and longest key.
COUNTER_TABLE = "dbd_rate_counter"
MAX_KEY = 200


@dataclass(frozen=True, slots=True)
class Rate:
    limit: int  # requests allowed in one window
    period: int  # the window's length, in seconds

    @classmethod
    def parse(cls, text: str) -> "Rate":
        """`60/minute` is Rate(60, 60); a rate that does not parse is a ValueError."""
        count, _, period = str(text).strip().partition("/")
        seconds = _PERIODS.get(period.strip()[:1].lower())
        if not count.strip().isdigit() or seconds is None or int(count) < 1:
            raise ValueError(
                f"A rate is a number of requests per second, minute, hour or day, like "
                f"'60/minute', not {text!r}."
            )
        return cls(int(count), seconds)

    def __str__(self) -> str:
        return f"{self.limit}/{self.period}s"


@dataclass(frozen=True, slots=True)
class Count:
    """Where one request stands in its client's window."""

    rate: Rate
    hits: int  # this request's number in the window, 1 for the first
    reset_ms: int  # until the window ends, in milliseconds

    @property
    def allowed(self) -> bool:
        return self.hits <= self.rate.limit

    @property
    def remaining(self) -> int:
        return max(0, self.rate.limit - self.hits)

    @property
    def reset_seconds(self) -> int:
        """Whole seconds until the window ends (at least 1): `RateLimit-Reset`, and
        `Retry-After` on a refusal."""
        return max(1, math.ceil(self.reset_ms / 1000))

    def headers(self) -> dict[str, str]:
        """The rate-limit headers every answer of a limited endpoint carries."""
        headers = {
            "RateLimit-Limit": str(self.rate.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.reset_seconds)
        return headers


def _now_ms() -> int:
    """The wall clock, which every server shares (a window's end is stored as a time)."""
    return int(time.time() * 1000)


def hit(bucket: str, rate: Rate) -> Count:
    """Count one request against `bucket` (a limit's name and the client's identity)."""
    key = f"rate:{bucket}:{rate.period}"
    if len(key) > MAX_KEY:  # an identity from a header is as long as the header
        key = "rate:" + hashlib.sha256(key.encode()).hexdigest()
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        return _hit_redis(cache, key, rate)
    if isinstance(cache, DatabaseCache):
        return _hit_database(key, rate)
    return _hit_in_process(cache, key, rate)


def _hit_redis(cache: RedisCache, key: str, rate: Rate) -> Count:
    client = cache._cache.get_client(key, write=True)
    name = cache.make_and_validate_key(key)
    with client.pipeline(transaction=True) as pipe:
        pipe.set(name, 0, ex=rate.period, nx=True)
        pipe.incr(name)
        pipe.pttl(name)
        _, hits, left_ms = pipe.execute()
    return Count(rate, int(hits), max(0, int(left_ms)))


def _upsert_sql() -> str:
    table = connection.ops.quote_name(COUNTER_TABLE)
    return (
        f"INSERT INTO {table} (bucket, hits, ends_ms) VALUES (%s, 1, %s) "
        f"ON CONFLICT (bucket) DO UPDATE SET "
        f"hits = CASE WHEN {table}.ends_ms <= %s THEN 1 ELSE {table}.hits + 1 END, "
        f"ends_ms = CASE WHEN {table}.ends_ms <= %s THEN %s ELSE {table}.ends_ms END "
        f"RETURNING hits, ends_ms"
    )


def _hit_database(key: str, rate: Rate) -> Count:
    now_ms = _now_ms()
    new_end = now_ms + rate.period * 1000
    with connection.cursor() as cursor:
        cursor.execute(_upsert_sql(), [key, new_end, now_ms, now_ms, new_end])
        hits, ends_ms = cursor.fetchone()
        if hits == 1:
            # A window opened: the moment to sweep away every window that has ended, so
            # the table holds about one row per client of the last period.
            table = connection.ops.quote_name(COUNTER_TABLE)
            cursor.execute(f"DELETE FROM {table} WHERE ends_ms < %s", [now_ms])
    return Count(rate, int(hits), max(0, int(ends_ms) - now_ms))


_IN_PROCESS = threading.Lock()


def _hit_in_process(cache: BaseCache, key: str, rate: Rate) -> Count:
    now_ms = _now_ms()
    with _IN_PROCESS:
        hits, ends_ms = cache.get(key) or (0, 0)
        if ends_ms <= now_ms:
            hits, ends_ms = 0, now_ms + rate.period * 1000
        hits += 1
        cache.set(key, (hits, ends_ms), rate.period + 1)
    return Count(rate, hits, ends_ms - now_ms)
