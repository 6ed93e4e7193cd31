"""Deliveries to a receiver listening on loopback: signed (verified with the procedure
docs/events.md gives, read from that page), retried with backoff when the receiver
fails (each try in the log), stopped by deleting or deactivating the hook, cut off when
the receiver hangs; and run once by the real database worker.

Tries run when the test says: the test settings queue tasks in memory (`run_queued`),
or a test calls `attempt` with the clock it chooses. Nothing sleeps.
"""

import hashlib
import hmac
import json
import re
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from events import delivery, kinds, services
from events.models import Delivery, DeliveryAttempt, Event, Webhook
from tests.campaign.conftest import record
from tests.events.conftest import run_queued
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db
DOCS = Path(__file__).resolve().parents[2] / "docs" / "events.md"
T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)


def documented_verify():
    """The `verify` function of docs/events.md ("Verifying a delivery"), as printed."""
    section = DOCS.read_text().split("### Verifying a delivery", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(DOCS), "exec"), namespace)  # the page's own code, run as is
    return namespace["verify"]


def hook_for(user, receiver, *wanted: str) -> Webhook:
    return services.create_webhook(user=user, url=receiver.url, kinds=wanted or list(kinds.KINDS))


def tries(made: Delivery) -> list[tuple]:
    return list(
        DeliveryAttempt.objects.filter(delivery=made)
        .order_by("number")
        .values_list("number", "at", "status_code", "error")
    )


def test_an_event_reaches_its_hook_signed_as_documented(
    campaign, alice, bob, red, blue, receiver, queued, django_capture_on_commit_callbacks
):
    hook = hook_for(bob, receiver, kinds.AWAITING_CONFIRMATION)
    hook_for(alice, receiver, kinds.BATTLE_VOIDED)  # Alice's takes another kind
    with django_capture_on_commit_callbacks(execute=True):
        battle = record(campaign, alice, red, blue)
    assert len(queued) == 1  # queued once the change committed
    run_queued()
    [(headers, body)] = receiver.received
    event = Event.objects.get(user=bob, kind=kinds.AWAITING_CONFIRMATION)
    made = Delivery.objects.get()
    assert json.loads(body) == services.event_json(event)
    assert (json.loads(body)["battle"], headers["Content-Type"]) == (battle.pk, "application/json")
    assert (headers["DBD-Event"], headers["DBD-Delivery"]) == (
        kinds.AWAITING_CONFIRMATION,
        str(made.pk),
    )
    verify = documented_verify()
    assert verify(hook.secret, headers["DBD-Signature"], body)
    assert not verify(hook.secret, headers["DBD-Signature"], body.replace(b"alice", b"alicf"))
    assert not verify("whsec_another", headers["DBD-Signature"], body)
    made.refresh_from_db()
    assert (made.status, made.attempts, made.next_attempt_at) == ("delivered", 1, None)
    assert [(n, code, error) for n, _, code, error in tries(made)] == [(1, 200, "")]


def test_the_documented_check_refuses_an_old_signature():
    verify = documented_verify()
    body = '{"id":1}'
    now = int(datetime.now(UTC).timestamp())
    assert verify("whsec_s", delivery.sign("whsec_s", body, now), body.encode())
    assert not verify("whsec_s", delivery.sign("whsec_s", body, now - 301), body.encode())
    assert not verify("whsec_s", "v1=" + "0" * 64, body.encode())


def test_the_signature_is_hmac_sha256_over_time_and_body():
    mac = hmac.new(b"whsec_k", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assert delivery.sign("whsec_k", '{"a":1}', 1700000000) == f"t=1700000000,v1={mac}"


def test_a_failing_receiver_is_tried_again_with_backoff_until_the_last_try(
    alice, receiver, settings
):
    """Every try fails (503): each is logged, the next one `backoff(n)` after it (30 s,
    then 4 times longer each time, 12 h at most), and after the last the delivery fails."""
    settings.WEBHOOK_MAX_TRIES = 8
    receiver.statuses = [503]
    hook_for(alice, receiver, kinds.FORCE_CHANGED)
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7, data={"name": "Red"})
    made = Delivery.objects.get()
    at = T0
    schedule = []
    while made.status == "pending":
        made = delivery.attempt(made.pk, now=lambda at=at: at)
        schedule.append((at, made.next_attempt_at))
        at = made.next_attempt_at or at
    waits = [nxt - at for at, nxt in schedule if nxt is not None]
    assert waits == [
        timedelta(seconds=30),
        timedelta(minutes=2),
        timedelta(minutes=8),
        timedelta(minutes=32),
        timedelta(hours=2, minutes=8),
        timedelta(hours=8, minutes=32),
        timedelta(hours=12),  # the longest wait
    ]
    assert (made.status, made.attempts, made.next_attempt_at) == ("failed", 8, None)
    assert tries(made) == [(n, t, 503, "") for n, (t, _) in enumerate(schedule, start=1)]
    assert len(receiver.received) == 8
    assert delivery.attempt(made.pk, now=lambda: at) == made  # failed: no ninth try
    assert len(receiver.received) == 8


def test_the_worker_task_queues_the_retry_for_its_time(alice, receiver, queued):
    receiver.statuses = [500, 200]
    hook_for(alice, receiver, kinds.FORCE_CHANGED)
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    delivery.enqueue(Delivery.objects.get().pk)
    [first] = run_queued()
    assert first.task.run_after is None
    made = Delivery.objects.get()
    [(_, tried_at, status, _)] = tries(made)
    assert (made.status, status) == ("pending", 500)
    [retry] = queued
    assert retry.task.run_after == made.next_attempt_at == tried_at + timedelta(seconds=30)
    run_queued()
    made.refresh_from_db()
    assert (made.status, [t[2] for t in tries(made)], list(queued)) == (
        "delivered",
        [500, 200],
        [],
    )
    log = signed_in(alice).get(f"/api/v1/webhooks/{made.webhook_id}/deliveries/").json()
    [logged] = log["results"]
    assert [(t["number"], t["status_code"], t["error"]) for t in logged["tries"]] == [
        (1, 500, ""),
        (2, 200, ""),
    ]
    assert all(
        isinstance(t["duration_ms"], int) and t["duration_ms"] >= 0 for t in logged["tries"]
    )
    assert (logged["status"], logged["attempts"], logged["kind"]) == (
        "delivered",
        2,
        "force-changed",
    )


def test_a_deleted_hook_is_sent_nothing_more(
    alice, receiver, queued, django_capture_on_commit_callbacks
):
    receiver.statuses = [500]
    hook = hook_for(alice, receiver, kinds.FORCE_CHANGED)
    with django_capture_on_commit_callbacks(execute=True):
        services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    run_queued()  # the first try fails: a retry is queued
    assert (len(receiver.received), len(queued)) == (1, 1)
    assert signed_in(alice).delete(f"/api/v1/webhooks/{hook.pk}/").status_code == 204
    assert not Delivery.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    run_queued()  # the queued retry finds nothing to send
    assert (len(receiver.received), list(queued)) == (1, [])


def test_a_deactivated_hook_is_sent_nothing_and_its_queued_tries_cancelled(
    alice, receiver, queued, django_capture_on_commit_callbacks
):
    hook = hook_for(alice, receiver, kinds.FORCE_CHANGED)
    with django_capture_on_commit_callbacks(execute=True):
        services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    signed_in(alice).patch(f"/api/v1/webhooks/{hook.pk}/", {"active": False}, format="json")
    run_queued()
    with django_capture_on_commit_callbacks(execute=True):
        services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    assert (receiver.received, list(queued)) == ([], [])
    made = Delivery.objects.get()
    assert (made.status, made.attempts, tries(made)) == ("cancelled", 0, [])


@override_settings(WEBHOOK_TIMEOUT=0.5)
def test_a_hanging_receiver_is_cut_off_and_logged(alice, receiver):
    receiver.hang = True
    hook_for(alice, receiver, kinds.FORCE_CHANGED)
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    made = delivery.attempt(Delivery.objects.get().pk, now=lambda: T0)
    assert (made.status, made.next_attempt_at) == ("pending", T0 + timedelta(seconds=30))
    assert tries(made) == [(1, T0, None, "No answer within 0.5 s.")]
    assert receiver.got.wait(30)  # it did come in: the receiver just never answered
    assert len(receiver.received) == 1


@override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=False)
def test_an_address_refused_at_delivery_is_never_connected_to(alice, receiver):
    """A hook registered while loopback was allowed (or a name that now resolves to a
    private address) is refused at the try: nothing reaches the receiver."""
    hook = Webhook.objects.create(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    made = delivery.attempt(Delivery.objects.get(webhook=hook).pk, now=lambda: T0)
    [(_, _, status, error)] = tries(made)
    assert (status, error) == (
        None,
        "127.0.0.1 resolves to an address webhooks are not sent to (127.0.0.1).",
    )
    assert receiver.received == []


def test_a_ping_is_sent_once_and_logged(
    alice, receiver, queued, django_capture_on_commit_callbacks
):
    hook = hook_for(alice, receiver, kinds.INVITED)
    client = signed_in(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/api/v1/webhooks/{hook.pk}/ping/")
    assert answer.status_code == 202
    assert {k: answer.json()[k] for k in ("kind", "status", "attempts", "event", "tries")} == {
        "kind": "ping",
        "status": "pending",
        "attempts": 0,
        "event": None,
        "tries": [],
    }
    receiver.statuses = [404]
    run_queued()
    [(headers, body)] = receiver.received
    assert json.loads(body)["kind"] == headers["DBD-Event"] == "ping"
    assert json.loads(body)["data"] == {"webhook": hook.pk}
    assert documented_verify()(hook.secret, headers["DBD-Signature"], body)
    made = Delivery.objects.get()
    assert (made.status, made.attempts, list(queued)) == ("failed", 1, [])  # a ping: once


@pytest.mark.django_db(transaction=True)  # the worker opens and closes its own transactions
@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}, WEBHOOK_TIMEOUT=0.5
)
def test_the_database_worker_delivers_and_outlives_a_hanging_receiver(alice, bob, receiver):
    """The real worker (`manage.py db_worker --batch`) runs every queued try: a receiver
    that hangs is cut off and its retry queued for later; the next delivery still goes.
    The deliveries are queued in the database as the changes commit."""
    hanging = services.create_webhook(
        user=alice, url=receiver.url.replace("/hooks/", "/hang/"), kinds=[kinds.FORCE_CHANGED]
    )
    fine = hook_for(bob, receiver, kinds.FORCE_CHANGED)
    receiver.statuses = [204]
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)  # queued first
    services.emit(kinds.FORCE_CHANGED, [bob.pk], force_id=8)
    assert DBTaskResult.objects.filter(status="READY").count() == 2
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)
    stuck = Delivery.objects.get(webhook=hanging)
    assert (stuck.status, [t[3] for t in tries(stuck)]) == ("pending", ["No answer within 0.5 s."])
    assert stuck.next_attempt_at is not None  # its retry waits in the queue for its time
    assert DBTaskResult.objects.filter(status="READY").count() == 1  # the retry, for later
    sent = Delivery.objects.get(webhook=fine)
    assert (sent.status, [t[2] for t in tries(sent)]) == ("delivered", [204])


def test_overdue_deliveries_are_queued_again(alice, receiver, queued):
    """`manage.py requeue_deliveries`: a pending delivery whose first try or retry is 15
    minutes overdue (its process died before queuing it) is queued again; one on time is
    left alone."""
    hook = hook_for(alice, receiver, kinds.FORCE_CHANGED)
    for force_id in (1, 2, 3):  # stored, never queued (no commit in this test)
        services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=force_id)
    first_lost, retry_lost, on_time = Delivery.objects.filter(webhook=hook).order_by("id")
    long_ago = timezone.now() - timedelta(minutes=16)
    Delivery.objects.filter(pk=first_lost.pk).update(created_at=long_ago)
    Delivery.objects.filter(pk=retry_lost.pk).update(attempts=1, next_attempt_at=long_ago)
    call_command("requeue_deliveries", stdout=StringIO())
    assert [result.args for result in queued] == [[first_lost.pk], [retry_lost.pk]]
    run_queued()
    assert [json.loads(body)["force"] for _, body in receiver.received] == [1, 2]
    assert Delivery.objects.get(pk=on_time.pk).attempts == 0
