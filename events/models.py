"""What happened, per user (the feed), and the webhooks that carry it to a user's tools.

An `Event` is stored once per recipient, in the transaction of the change it tells of,
and never changed. Its ids (campaign, force, battle) are plain numbers, not foreign
keys: an event outlives what it names (a deleted force's last event stays).

`txid` is the PostgreSQL transaction that wrote it (`pg_current_xact_id()`; 0 on SQLite,
where writers queue and commit in id order): the feed orders by (txid, id) and shows an
event only once every transaction that started before its own has ended
(`events.selectors.feed`), so a cursor never passes an event still being committed.
"""

import secrets
from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone

from events.kinds import KINDS


class Event(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=40, choices=[(k, k) for k in KINDS])
    created_at = models.DateTimeField(default=timezone.now)
    txid = models.BigIntegerField(default=0, editable=False)
    campaign_id = models.BigIntegerField(null=True, blank=True)
    force_id = models.BigIntegerField(null=True, blank=True)
    battle_id = models.BigIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["txid", "id"]
        indexes = [models.Index(fields=["user", "txid", "id"], name="event_feed")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id} ({self.pk})"


def new_secret() -> str:
    """A webhook's signing secret: 32 random bytes, URL-safe, with a prefix to tell it by."""
    return "whsec_" + secrets.token_urlsafe(32)


class Webhook(models.Model):
    """A URL a user's tool listens on, the event kinds it wants, and the secret that
    signs what is sent to it (shown once, when the hook is made)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=500)
    kinds = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    secret = models.CharField(max_length=64, default=new_secret)
    # The secret a rotation replaced, still signing beside the new one until it expires,
    # so the receiver can switch without losing a delivery (`events.services.rotate_secret`).
    previous_secret = models.CharField(max_length=64, blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.url

    def signing_secrets(self, at: datetime) -> list[str]:
        """What a try made at `at` is signed with: the secret, then the one it replaced
        while that one's grace period lasts."""
        expires = self.previous_secret_expires_at
        if self.previous_secret and expires is not None and at < expires:
            return [self.secret, self.previous_secret]
        return [self.secret]


class Delivery(models.Model):
    """One event (or a ping) to send to one hook: its body is fixed when it is made, so
    every try sends the same bytes (each signed again, with the time of the try)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"  # every try failed
        CANCELLED = "cancelled", "Cancelled"  # the hook was deactivated

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(
        Event, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=40)
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["webhook", "-id"], name="delivery_log")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.webhook_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One try of a delivery: when, what the receiver answered (or the error), how long."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="tries")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    duration_ms = models.PositiveIntegerField()

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="unique_delivery_try")
        ]

    def __str__(self) -> str:
        return f"try {self.number} of {self.delivery_id}"
