"""`manage.py export_campaign <id> [-o file]`: a whole campaign as dbd-campaign/1 JSON."""

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaign.exports import export_campaign
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Export a whole campaign (players, forces, ledger, battles, log) as one JSON file."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign_id", type=int, help="The campaign's id (see the admin).")
        parser.add_argument(
            "-o",
            "--output",
            help="Write to this file instead of standard output.",
        )

    def handle(self, *args: Any, campaign_id: int, output: str | None, **options: Any) -> None:
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            raise CommandError(f"There is no campaign with id {campaign_id}.")
        text = json.dumps(export_campaign(campaign=campaign), indent=2, ensure_ascii=False) + "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Could not write {output}: {exc.strerror or exc}.") from exc
        self.stderr.write(self.style.SUCCESS(f"Exported “{campaign.name}” to {output}."))
