"""Webhook deliveries: signed, sent by the background worker, retried with backoff.

Each delivery is a task of Django's tasks framework (`django-tasks`; the database
backend unless the settings name another): `deliver` makes one try and, when it failed
and tries are left, queues the next one `backoff(n)` later (`run_after`). Every try is
logged (`DeliveryAttempt`: when, the status code or the error, how long).

A try never holds the database while it waits on the receiver, and never waits more
than `WEBHOOK_TIMEOUT` seconds in all (connect, send, the answer's head): a watchdog
shuts the connection at the deadline, so a receiver that hangs or drips cannot stall
the worker.

The signature (docs/events.md, "Verifying a delivery"): header `DBD-Signature:
t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the hook's secret>`, and a second
`v1` with the secret it replaced while a rotation's grace period lasts.
"""

import contextlib
import hashlib
import hmac
import http.client
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from events import addresses
from events.kinds import PING
from events.models import Delivery, DeliveryAttempt

SIGNATURE_HEADER = "DBD-Signature"
USER_AGENT = "DBD-Force-Builder-Webhooks/1"
# The first retry 30 s after a failure, each later one 4 times as long, at most 12 hours
# apart: 8 tries span about a day.
FIRST_RETRY = timedelta(seconds=30)
BACKOFF_FACTOR = 4
LONGEST_WAIT = timedelta(hours=12)


def sign(secret: str, body: str, timestamp: int, *older: str) -> str:
    """The `DBD-Signature` header's value for `body` sent at `timestamp`: one `v1` for
    `secret`, then one for each `older` secret still signing (a rotation's grace period),
    as Stripe does, so a receiver that holds either secret finds its signature."""
    signed = f"{timestamp}.{body}".encode()
    macs = [hmac.new(key.encode(), signed, hashlib.sha256).hexdigest() for key in (secret, *older)]
    return ",".join([f"t={timestamp}", *(f"v1={mac}" for mac in macs)])


def backoff(tries: int) -> timedelta:
    """How long after the `tries`-th failed try the next one is made."""
    wait: timedelta = FIRST_RETRY * BACKOFF_FACTOR ** (tries - 1)
    return min(wait, LONGEST_WAIT)


def max_tries(delivery: Delivery) -> int:
    """A ping is tried once (it is a test); an event up to WEBHOOK_MAX_TRIES times."""
    return 1 if delivery.kind == PING else int(settings.WEBHOOK_MAX_TRIES)


@dataclass(frozen=True, slots=True)
class Answer:
    status_code: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> Answer:
    """POST `body` to `url` (its address checked, `events.addresses`), within `timeout`
    seconds in all; the receiver's status code, or what went wrong."""
    parts = urlsplit(url)
    try:
        address = addresses.resolve(parts)
    except addresses.Refused as exc:
        return Answer(None, str(exc))
    except OSError as exc:
        return Answer(None, f"Could not resolve {parts.hostname}: {exc}")
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname or "", parts.port, timeout=timeout)

    def pinned(where: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        return socket.create_connection((address, where[1]), *args, **kwargs)

    connection._create_connection = pinned  # type: ignore[attr-defined]
    expired = threading.Event()

    def shut() -> None:
        expired.set()
        if connection.sock is not None:
            with contextlib.suppress(OSError):  # closed already
                connection.sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(timeout, shut)
    watchdog.daemon = True
    watchdog.start()
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("POST", path, body=body, headers=headers)
        return Answer(connection.getresponse().status)
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set() or isinstance(exc, TimeoutError):
            return Answer(None, f"No answer within {timeout:g} s.")
        return Answer(None, (f"{type(exc).__name__}: {exc}")[:200])
    finally:
        watchdog.cancel()
        connection.close()


def attempt(
    delivery_id: int,
    *,
    now: Callable[[], datetime] = timezone.now,
    send: Callable[[str, bytes, dict[str, str], float], Answer] = post,
) -> Delivery | None:
    """One try of a delivery, logged; the delivery as it is after it (None: gone with its
    hook). A delivered, failed or cancelled one is left as it is; one whose hook was
    deactivated is cancelled without a try."""
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != Delivery.Status.PENDING:
        return delivery
    hook = delivery.webhook
    if not hook.active:
        delivery.status = Delivery.Status.CANCELLED
        delivery.next_attempt_at = None
        delivery.save(update_fields=["status", "next_attempt_at"])
        return delivery
    at = now()
    newest, *older = hook.signing_secrets(at)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "DBD-Event": delivery.kind,
        "DBD-Delivery": str(delivery.pk),
        SIGNATURE_HEADER: sign(newest, delivery.body, int(at.timestamp()), *older),
    }
    started = time.monotonic()
    answer = send(hook.url, delivery.body.encode(), headers, float(settings.WEBHOOK_TIMEOUT))
    duration_ms = round((time.monotonic() - started) * 1000)
    number = delivery.attempts + 1
    if answer.ok:
        status, next_at = Delivery.Status.DELIVERED, None
    elif number >= max_tries(delivery):
        status, next_at = Delivery.Status.FAILED, None
    else:
        status, next_at = Delivery.Status.PENDING, at + backoff(number)
    with transaction.atomic():
        moved = Delivery.objects.filter(
            pk=delivery.pk, status=Delivery.Status.PENDING, attempts=delivery.attempts
        ).update(status=status, attempts=number, next_attempt_at=next_at)
        if not moved:  # deleted with its hook meanwhile, or tried by another worker
            return Delivery.objects.filter(pk=delivery.pk).first()
        DeliveryAttempt.objects.create(
            delivery=delivery,
            number=number,
            at=at,
            status_code=answer.status_code,
            error=answer.error[:200],
            duration_ms=duration_ms,
        )
    delivery.status, delivery.attempts, delivery.next_attempt_at = status, number, next_at
    return delivery


@task()
def deliver(delivery_id: int) -> str:
    """The worker's task: one try, and the next one queued for later when this failed."""
    delivery = attempt(delivery_id)
    if delivery is None:
        return "gone"
    if delivery.status == Delivery.Status.PENDING and delivery.next_attempt_at is not None:
        deliver.using(run_after=delivery.next_attempt_at).enqueue(delivery_id)
    return str(delivery.status)


def enqueue(delivery_id: int) -> None:
    """Queue a delivery's first try (after the transaction that made it committed)."""
    deliver.enqueue(delivery_id)
