"""Writes of the events app: events into the feed (with their webhook deliveries), and a
user's webhooks.

`emit` runs inside the transaction of the change it tells of (the receivers of the
apps' signals call it, `events.receivers`): the events and their deliveries commit or
roll back with the change, and a delivery is queued for the worker only once that
transaction has committed (`transaction.on_commit`).
"""

import json
from collections.abc import Collection, Iterable
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from dbd_site.errors import Invalid, declare_codes
from events import addresses
from events.kinds import KINDS, PING
from events.models import Delivery, Event, Webhook, new_secret

CODES = declare_codes(
    {
        "unknown-kind": "Not a kind of event (docs/events.md lists them).",
        "invalid-cursor": "The cursor is not one the feed gave; start again without it.",
        "url-not-allowed": "A webhook's URL is http(s) to a public address (https in "
        "production); loopback and private addresses are refused.",
        "too-many-webhooks": "A user has at most a few webhooks; delete one first.",
    }
)

MAX_WEBHOOKS = 10


def _txid() -> Any:
    """The writing transaction's id on PostgreSQL (the feed's horizon, `events.selectors`);
    0 elsewhere (SQLite's writers commit one at a time, in id order)."""
    if connection.vendor == "postgresql":
        return RawSQL("pg_current_xact_id()::text::bigint", ())
    return 0


def event_json(event: Event) -> dict[str, Any]:
    """One event as the feed lists it and a webhook receives it."""
    return {
        "id": event.pk,
        "kind": event.kind,
        "created": event.created_at.isoformat().replace("+00:00", "Z"),
        "campaign": event.campaign_id,
        "force": event.force_id,
        "battle": event.battle_id,
        "data": event.data,
    }


def body(payload: dict[str, Any]) -> str:
    """The exact text a webhook is sent (and its signature covers)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def emit(
    kind: str,
    recipients: Iterable[int | None],
    *,
    campaign_id: int | None = None,
    force_id: int | None = None,
    battle_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> list[Event]:
    """Store one event per recipient (in the caller's transaction) and queue its
    deliveries to their active webhooks that take this kind."""
    if kind not in KINDS:
        raise ValueError(f"Undeclared event kind {kind!r}.")
    users = sorted({pk for pk in recipients if pk is not None})
    if not users:
        return []
    now = timezone.now()
    events = Event.objects.bulk_create(
        Event(
            user_id=user,
            kind=kind,
            created_at=now,
            txid=_txid(),
            campaign_id=campaign_id,
            force_id=force_id,
            battle_id=battle_id,
            data=data or {},
        )
        for user in users
    )
    hooks = [
        hook
        for hook in Webhook.objects.filter(user_id__in=users, active=True)
        if kind in hook.kinds
    ]
    if hooks:
        by_user = {e.user_id: e for e in events}
        _queue(
            [
                Delivery(
                    webhook=hook,
                    event=by_user[hook.user_id],
                    kind=kind,
                    body=body(event_json(by_user[hook.user_id])),
                )
                for hook in hooks
            ]
        )
    return events


def _queue(deliveries: list[Delivery]) -> None:
    """Store the deliveries now; hand them to the worker once the transaction commits."""
    from events import delivery  # the task module imports this one

    Delivery.objects.bulk_create(deliveries)
    for made in deliveries:
        transaction.on_commit(partial(delivery.enqueue, made.pk))


# --- webhooks ---------------------------------------------------------------------------


def _kinds(kinds: Collection[str]) -> list[str]:
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise Invalid(
            "unknown-kind",
            f"Not a kind of event: {', '.join(unknown)}. Kinds: {', '.join(KINDS)}.",
            pointer="/kinds",
        )
    if not kinds:
        raise Invalid("required", "Name at least one kind of event.", pointer="/kinds")
    return [kind for kind in KINDS if kind in kinds]  # the declared order, once each


def _url(url: str) -> str:
    refusal = addresses.refusal(url)
    if refusal:
        raise Invalid("url-not-allowed", refusal, pointer="/url")
    return url


@transaction.atomic
def create_webhook(
    *, user: User, url: str, kinds: Collection[str], active: bool = True
) -> Webhook:
    """A new hook with its own secret (the caller shows it once)."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
    if Webhook.objects.filter(user=user).count() >= MAX_WEBHOOKS:
        raise Invalid(
            "too-many-webhooks", f"You have {MAX_WEBHOOKS} webhooks already; delete one first."
        )
    return Webhook.objects.create(user=user, url=_url(url), kinds=_kinds(kinds), active=active)


@transaction.atomic
def update_webhook(
    *,
    webhook: Webhook,
    url: str | None = None,
    kinds: Collection[str] | None = None,
    active: bool | None = None,
) -> Webhook:
    """Change a hook; deactivated, it delivers nothing more (queued tries are cancelled
    when their turn comes)."""
    if url is not None:
        webhook.url = _url(url)
    if kinds is not None:
        webhook.kinds = _kinds(kinds)
    if active is not None:
        webhook.active = active
    webhook.save(update_fields=["url", "kinds", "active"])
    return webhook


@transaction.atomic
def rotate_secret(*, webhook: Webhook, keep_previous: bool = True) -> Webhook:
    """A new secret for the hook (the caller shows it once). The one it replaces goes on
    signing beside it for WEBHOOK_SECRET_GRACE_HOURS, so the receiver can switch
    without losing a delivery; with `keep_previous` off (a leaked secret) it stops at
    once. Only the last one replaced is kept: one still in its grace period stops."""
    hook = Webhook.objects.select_for_update().get(pk=webhook.pk)  # one rotation at a time
    grace = timedelta(hours=settings.WEBHOOK_SECRET_GRACE_HOURS)
    hook.previous_secret = hook.secret if keep_previous else ""
    hook.previous_secret_expires_at = timezone.now() + grace if keep_previous else None
    hook.secret = new_secret()
    hook.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at"])
    return hook


@transaction.atomic
def delete_webhook(*, webhook: Webhook) -> None:
    """The hook and its delivery log go; tries already queued find nothing to send."""
    webhook.delete()


@transaction.atomic
def ping(*, webhook: Webhook) -> Delivery:
    """A test delivery (kind `ping`), tried once: the log shows what the receiver said."""
    payload = {
        "id": None,
        "kind": PING,
        "created": timezone.now().isoformat().replace("+00:00", "Z"),
        "campaign": None,
        "force": None,
        "battle": None,
        "data": {"webhook": webhook.pk},
    }
    made = Delivery(webhook=webhook, kind=PING, body=body(payload))
    _queue([made])
    return made
