"""Helpers of the events and webhooks tests: what was emitted, the queued tasks, and a
receiver listening on loopback.

Tasks: the test settings queue them on django-tasks' dummy backend (in memory, never run
by themselves); `run_queued` runs what is queued, as the worker would, in order, and
returns what it ran, so a test runs each try when it means to, with no sleeping.
"""

import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import User
from django_tasks import default_task_backend

from events.models import Event
from tests.campaign.conftest import blue, red  # noqa: F401 (fixtures)

Row = tuple[str, str, int | None, int | None, int | None]


def events_since(mark: int) -> list[Row]:
    """Every event stored after id `mark`: (recipient, kind, campaign, force, battle),
    sorted by recipient, then as written."""
    rows = Event.objects.filter(pk__gt=mark).order_by("id")
    names = dict(User.objects.values_list("pk", "username"))
    return sorted(
        ((names[e.user_id], e.kind, e.campaign_id, e.force_id, e.battle_id) for e in rows),
        key=lambda row: row[0],
    )


def last_event_id() -> int:
    last = Event.objects.order_by("-id").first()
    return last.pk if last else 0


@pytest.fixture
def queued():
    """The dummy backend's queue, empty at the start and the end of the test."""
    default_task_backend.clear()  # type: ignore[attr-defined]
    yield default_task_backend.results  # type: ignore[attr-defined]
    default_task_backend.clear()  # type: ignore[attr-defined]


def run_queued() -> list:
    """Run every queued task once (what they queue in turn waits for the next call);
    the results that ran, with their `run_after`."""
    ran = list(default_task_backend.results)  # type: ignore[attr-defined]
    default_task_backend.clear()  # type: ignore[attr-defined]
    for result in ran:
        result.task.call(*result.args, **result.kwargs)
    return ran


@dataclass
class Receiver:
    """A webhook receiver on loopback: answers each POST with the next of `statuses`
    (the last one again when they run out), or hangs when told to (or on a path under
    /hang/); keeps what it got."""

    statuses: list[int] = field(default_factory=lambda: [200])
    hang: bool = False
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    url: str = ""
    release: threading.Event = field(default_factory=threading.Event)
    got: threading.Event = field(default_factory=threading.Event)  # a request came in


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append((dict(self.headers.items()), body))
            state.got.set()
            if state.hang or self.path.startswith("/hang/"):
                state.release.wait(30)  # until the test ends: the client gave up long ago
                return
            status = state.statuses[min(len(state.received), len(state.statuses)) - 1]
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/dbd"
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()
