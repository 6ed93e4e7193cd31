"""A cache that counts, for the bench only: the site's own cache backend inside, and
every `get` counted as a hit or a miss by what the key is for.

`bench.settings` puts it in front of the configured default cache. In-process, the bench
reads the counters directly; under gunicorn each worker writes its counters to
`BENCH_CACHE_STATS_DIR/<pid>.json` (at most twice a second, and on exit), and the bench
adds them up after the run, to report the miss rate a player sees with several workers.
"""

import atexit
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from django.core.cache.backends.base import BaseCache
from django.utils.module_loading import import_string

# What a key is for, by its start (as the code that caches names it).
KINDS = {
    "template.cache.roster-force-page.": "force page",
    "member-card:": "member cards",
    "roster-api-detail-json:": "API detail",
}

COUNTS: Counter = Counter()  # (kind, "hit" | "miss") -> n, for this process


def kind_of(key: str) -> str | None:
    for start, kind in KINDS.items():
        if key.startswith(start):
            return kind
    return None


class _Writer:
    def __init__(self) -> None:
        directory = os.environ.get("BENCH_CACHE_STATS_DIR")
        self.path = Path(directory) / f"{os.getpid()}.json" if directory else None
        self.written = 0.0
        if self.path is not None:
            atexit.register(self.write)

    def maybe_write(self) -> None:
        if self.path is not None and time.monotonic() - self.written > 0.5:
            self.write()

    def write(self) -> None:
        if self.path is None:
            return
        self.written = time.monotonic()
        data = [[kind, outcome, n] for (kind, outcome), n in COUNTS.items()]
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data))
        temporary.replace(self.path)


class CountingCache(BaseCache):
    """Delegates everything to the backend named in OPTIONS["INNER"]; counts `get`s."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        inner = dict(params.get("OPTIONS", {})["INNER"])
        super().__init__({k: v for k, v in params.items() if k != "OPTIONS"})
        backend = import_string(inner.pop("BACKEND"))
        self.inner = backend(inner.get("LOCATION", ""), inner)
        self.writer = _Writer()

    def get(self, key, default=None, version=None):
        missing = object()
        value = self.inner.get(key, missing, version=version)
        kind = kind_of(str(key))
        if kind is not None:
            COUNTS[(kind, "miss" if value is missing else "hit")] += 1
            self.writer.maybe_write()
        return default if value is missing else value

    def set(self, *args, **kwargs):
        return self.inner.set(*args, **kwargs)

    def add(self, *args, **kwargs):
        return self.inner.add(*args, **kwargs)

    def touch(self, *args, **kwargs):
        return self.inner.touch(*args, **kwargs)

    def delete(self, *args, **kwargs):
        return self.inner.delete(*args, **kwargs)

    def get_many(self, keys, version=None):
        found = self.inner.get_many(keys, version=version)
        counted = False
        for key in keys:
            kind = kind_of(str(key))
            if kind is not None:
                COUNTS[(kind, "hit" if key in found else "miss")] += 1
                counted = True
        if counted:
            self.writer.maybe_write()
        return found

    def set_many(self, *args, **kwargs):
        return self.inner.set_many(*args, **kwargs)

    def delete_many(self, *args, **kwargs):
        return self.inner.delete_many(*args, **kwargs)

    def has_key(self, *args, **kwargs):
        return self.inner.has_key(*args, **kwargs)

    def incr(self, *args, **kwargs):
        return self.inner.incr(*args, **kwargs)

    def decr(self, *args, **kwargs):
        return self.inner.decr(*args, **kwargs)

    def clear(self):
        return self.inner.clear()

    def close(self, **kwargs):
        return self.inner.close(**kwargs)


def wrap(caches: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`caches` (a CACHES setting) with the default alias counted."""
    default = caches["default"]
    return {
        **caches,
        "default": {"BACKEND": "bench.cache.CountingCache", "OPTIONS": {"INNER": default}},
    }


def read_stats(directory: Path) -> Counter:
    """The counters every worker wrote into `directory`, added up."""
    total: Counter = Counter()
    for path in directory.glob("*.json"):
        for kind, outcome, n in json.loads(path.read_text()):
            total[(kind, outcome)] += n
    return total
