"""Running work in threads released together, for the concurrency tests.

Each thread has its own database connection (closed when it is done); a barrier releases
them together; nothing waits on time.
"""

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run `work(i)` in `count` threads released together; each result or exception."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except Exception as exc:
            results[i] = exc
        finally:
            connections.close_all()  # each thread's own connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results
