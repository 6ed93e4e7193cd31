"""Seed a demo player and a legal example force; only ever with DEBUG on."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from roster import services
from roster.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_force


class Command(BaseCommand):
    help = "Create the demo user and its example force (DEBUG only; does nothing twice)."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        if not settings.DEBUG:
            raise CommandError("seed_demo only runs with DEBUG on: it creates a known password.")
        users = get_user_model()
        if users.objects.filter(username=DEMO_USERNAME).exists():
            self.stdout.write(f"Demo user already there: {DEMO_USERNAME} / {DEMO_PASSWORD}")
            return
        user = users.objects.create_user(DEMO_USERNAME, password=DEMO_PASSWORD)
        force = services.import_force(owner=user, document=demo_force())
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo user created: log in as {DEMO_USERNAME} / {DEMO_PASSWORD} "
                f"to see '{force.name}'."
            )
        )
