"""The first answer to each write a user sent with an `Idempotency-Key` (docs/idempotency.md).

A row is written in the same transaction as the write it answers, so either both are
stored or neither is: a retry finds the answer exactly when the change was made.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotentRequest(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    # SHA-256 of the method, the path and the body: the same key with another request is
    # refused rather than answered with what was done for the first.
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    headers = models.JSONField(default=list)
    body = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="unique_idempotency_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"
