"""Delete every stored answer older than 24 hours (each user's are also deleted as they
write; this clears those of users who stopped)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from idempotency.decorators import KEPT_FOR
from idempotency.models import IdempotentRequest


class Command(BaseCommand):
    help = "Delete the answers kept for Idempotency-Keys older than 24 hours."

    def handle(self, *args: Any, **options: Any) -> None:
        deleted, _ = IdempotentRequest.objects.filter(
            created_at__lt=timezone.now() - KEPT_FOR
        ).delete()
        self.stdout.write(f"Deleted {deleted} expired idempotency key(s).")
