"""Queue again the webhook deliveries whose try is overdue: a delivery is stored with its
event and queued once that transaction commits, and each failed try queues the next; a
process that died between the two (a server killed at the wrong moment) leaves a pending
delivery nobody will try. Run it now and then (hourly from cron, say): a delivery counts
as lost only once its try is --minutes (15) overdue, so one merely waiting in a busy
queue is left alone (and if it was queued twice after all, the receiver drops the repeat
by the event's id)."""

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q
from django.utils import timezone

from events import delivery
from events.models import Delivery


class Command(BaseCommand):
    help = "Queue again pending webhook deliveries whose try is overdue by --minutes (15)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=int, default=15)

    def handle(self, *args: Any, minutes: int, **options: Any) -> None:
        overdue = timezone.now() - timedelta(minutes=max(minutes, 1))
        lost = Delivery.objects.filter(status=Delivery.Status.PENDING).filter(
            Q(next_attempt_at__lt=overdue) | Q(next_attempt_at=None, created_at__lt=overdue)
        )
        ids = list(lost.order_by("id").values_list("id", flat=True))
        for delivery_id in ids:
            delivery.enqueue(delivery_id)
        self.stdout.write(f"Queued {len(ids)} overdue delivery(ies) again.")
