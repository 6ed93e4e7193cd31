"""Delete events, and finished webhook deliveries, older than a number of days (90
unless given). A cursor a tool holds still works: the feed reads on from its place."""

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from events.models import Delivery, Event


class Command(BaseCommand):
    help = "Delete events and finished webhook deliveries older than --days (90)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=90)

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        before = timezone.now() - timedelta(days=max(days, 1))
        deliveries, _ = (
            Delivery.objects.filter(created_at__lt=before)
            .exclude(status=Delivery.Status.PENDING)
            .delete()
        )
        events, _ = Event.objects.filter(created_at__lt=before).delete()
        self.stdout.write(
            f"Deleted {events} event(s) and {deliveries} row(s) of finished deliveries "
            f"older than {days} days."
        )
