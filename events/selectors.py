"""Reads of the events app, every one filtered by the user who asks.

The feed's order and its cursor: events are listed by (txid, id), `txid` being the
PostgreSQL transaction that wrote them. Ids are handed out when rows are inserted, not
when their transaction commits, so "every event after id N" could pass over an event
with a smaller id still being committed. The feed therefore shows only events whose
transaction is older than the oldest one still running (the snapshot's `xmin`): no
transaction that could still add an event below that line is running, so a cursor
(txid, id) taken from a page never has an event appear before it later. On SQLite
every write transaction holds the one write lock until it commits, so ids are committed
in order and `txid` is 0 throughout.

An event is visible to its own writing transaction too (`pg_current_xact_id_if_assigned`):
a test's transaction reads what it wrote.
"""

import base64
import binascii
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from dbd_site.errors import Invalid, NotFound
from events.models import Delivery, Event, Webhook

_HORIZON = RawSQL("pg_snapshot_xmin(pg_current_snapshot())::text::bigint", ())
_OWN = RawSQL("pg_current_xact_id_if_assigned()::text::bigint", ())


@dataclass(frozen=True, slots=True)
class Position:
    """Where a reader of the feed is: just after this event."""

    txid: int
    id: int

    @classmethod
    def of(cls, event: Event) -> "Position":
        return cls(event.txid, event.pk)

    def cursor(self) -> str:
        """Opaque to the caller: only sent back as `after`."""
        raw = f"{self.txid}.{self.id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def from_cursor(cls, cursor: str) -> "Position":
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
            txid, _, id_ = raw.partition(".")
            if not (txid.isascii() and txid.isdigit() and id_.isascii() and id_.isdigit()):
                raise ValueError(raw)
            position = cls(int(txid), int(id_))
            if position.cursor() != cursor or max(position.txid, position.id) >= 2**63:
                raise ValueError(cursor)  # only the feed's own spelling of a place
            return position
        except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
            raise Invalid(
                "invalid-cursor", "This cursor is not one the feed gave.", pointer="/after"
            ) from exc


def feed(*, user: User, after: Position | None, limit: int) -> list[Event]:
    """The user's events after `after` (from the first kept one without it), oldest
    first, at most `limit`."""
    events = Event.objects.filter(user_id=user.pk)
    if connection.vendor == "postgresql":
        events = events.filter(Q(txid__lt=_HORIZON) | Q(txid=_OWN))
    if after is not None:
        events = events.filter(Q(txid__gt=after.txid) | Q(txid=after.txid, id__gt=after.id))
    return list(events.order_by("txid", "id")[:limit])


def webhooks_for(*, user: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(user_id=user.pk).order_by("id")


def get_webhook(*, user: User, webhook_id: int) -> Webhook:
    """The user's own hook; anyone else's is not found (nothing leaks)."""
    hook = webhooks_for(user=user).filter(pk=webhook_id).first()
    if hook is None:
        raise NotFound("not-found", "No such webhook, or not yours.")
    return hook


def deliveries(*, webhook: Webhook) -> QuerySet[Delivery]:
    """The hook's delivery log, newest first, each with its tries."""
    return webhook.deliveries.prefetch_related("tries").order_by("-id")
