"""`manage.py import_campaign <file>`: bring in a dbd-campaign/1 file made by
export_campaign (or the export page). All or nothing."""

import json
import sys
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaign.exports import CampaignImportError, import_campaign


class Command(BaseCommand):
    help = (
        "Import a campaign exported as dbd-campaign/1 JSON. Its users are created with "
        "unusable passwords; usernames that already exist are refused unless --reuse-users."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", help="The .json file to import ('-' for standard input).")
        parser.add_argument(
            "--reuse-users",
            action="store_true",
            help="Attach the campaign to existing users of the same names.",
        )

    def handle(self, *args: Any, file: str, reuse_users: bool, **options: Any) -> None:
        try:
            raw = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Could not read {file}: {exc.strerror or exc}.") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{file} is not a UTF-8 text file.") from exc
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"{file} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
            ) from exc
        try:
            campaign = import_campaign(data=data, reuse_users=reuse_users)
        except CampaignImportError as exc:
            hint = ""
            if "already exist" in str(exc) and not reuse_users:
                hint = " Import into an empty site, or add --reuse-users to use those accounts."
            raise CommandError(f"Nothing was imported: {exc}{hint}") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported “{campaign.name}” as campaign {campaign.pk}: "
                f"{campaign.players.count()} players, {campaign.forces.count()} forces, "
                f"{campaign.battles.count()} battles."
            )
        )
