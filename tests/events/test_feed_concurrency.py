"""The feed's cursor under concurrent writers: never an event skipped, never one twice.

Ids are handed out when a row is inserted, not when its transaction commits: a
transaction that wrote an event early and commits late would have its event appear
below a cursor a reader already holds. The feed shows an event only once every older
transaction has ended (`events.selectors`); these tests hold it to that with real
threads and their own connections, against committed data. Nothing waits on time:
threads are held and released with events and barriers.
"""

import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.db.models import Q

from events import kinds
from events.models import Event
from events.selectors import Position, feed
from events.services import emit
from roster import services as roster_services
from rules.loader import clear_catalogue_cache
from tests.campaign.conftest import freeform_force

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def in_thread(work) -> threading.Thread:
    def run() -> None:
        try:
            work()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def once_visible(user, after: Position | None, count: int) -> list[Event]:
    """The feed from `after`, once it shows all `count` committed events. Another
    transaction on the database server (another test process's) that began before they
    were written holds them back until it ends: a moment, so this asks again until then
    (failing after a minute, never sleeping)."""
    deadline = time.monotonic() + 60
    while len(shown := feed(user=user, after=after, limit=count + 1)) < count:
        assert time.monotonic() < deadline, "the feed never showed every committed event"
    return shown


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite runs one write transaction at a time"
)
def test_an_event_committed_late_is_not_passed_over(alice):
    """A writes an event and stays open; B writes one after it and commits. A reader
    then sees neither (B's would put its cursor past A's), and both once A commits."""
    a_wrote, b_committed, a_may_commit = threading.Event(), threading.Event(), threading.Event()

    def writer_a() -> None:
        with transaction.atomic():
            emit(kinds.FORCE_CHANGED, [alice.pk], data={"by": "a"})
            a_wrote.set()
            assert a_may_commit.wait(30)

    def writer_b() -> None:
        assert a_wrote.wait(30)
        emit(kinds.FORCE_CHANGED, [alice.pk], data={"by": "b"})
        b_committed.set()

    threads = [in_thread(writer_a), in_thread(writer_b)]
    try:
        assert b_committed.wait(30)
        assert feed(user=alice, after=None, limit=10) == []
    finally:
        a_may_commit.set()
        for thread in threads:
            thread.join(30)
    assert [e.data["by"] for e in once_visible(alice, None, 2)] == ["a", "b"]
    # Ordered by id alone, B's event (the larger id) would have been read while A was
    # open, and A's (the smaller) never after it.
    a, b = (Event.objects.get(data__by=who).pk for who in "ab")
    assert a < b


WRITERS = 4
WRITES = 8


def test_paging_while_writers_write_reads_every_event_once(alice):
    """Writers change Alice's forces through the write path while she pages through her
    feed; what she read, once they are done and their events shown, is each of her events
    once, in order."""
    forces = [freeform_force(alice, f"Club {i}") for i in range(WRITERS)]
    start = Event.objects.filter(user=alice).order_by("txid", "id").last()
    barrier = threading.Barrier(WRITERS + 1)
    done = threading.Event()
    finished = []

    def writer(i: int):
        def work() -> None:
            barrier.wait(30)
            for n in range(WRITES):
                force = roster_services.update_force_details(
                    force=forces[i], actor=alice, name=f"Club {i} take {n}"
                )
                forces[i] = force
            finished.append(i)
            if len(finished) == WRITERS:
                done.set()

        return work

    threads = [in_thread(writer(i)) for i in range(WRITERS)]
    read: list[int] = []
    after = Position.of(start)
    barrier.wait(30)
    while not done.is_set():  # paging while they write
        page = feed(user=alice, after=after, limit=3)
        read += [e.pk for e in page]
        after = Position.of(page[-1]) if page else after
    for thread in threads:
        thread.join(30)
    once_visible(alice, Position.of(start), WRITERS * WRITES)
    while page := feed(user=alice, after=after, limit=3):  # and on to the end
        read += [e.pk for e in page]
        after = Position.of(page[-1])
    expected = list(
        Event.objects.filter(user=alice)
        .filter(Q(txid__gt=start.txid) | Q(txid=start.txid, id__gt=start.pk))
        .order_by("txid", "id")
        .values_list("pk", flat=True)
    )
    assert len(expected) == WRITERS * WRITES
    assert read == expected
