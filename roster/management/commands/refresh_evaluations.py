"""`manage.py refresh_evaluations`: work stored evaluations out again after the rules'
content or the engine's code changed (run after `loaddata rules` and after a deploy;
`make run` and the Docker start do).

Every force on the catalogue's edition whose stored evaluation was worked out with other
content or another engine (`Force.evaluation_version`) is refreshed through the write path
(`roster.services.refresh_evaluation`), in batches, each force in its own transaction.
A force whose answer is unchanged keeps its version; one whose answer changed moves on.
Forces built under another edition are left as they are: their players review and
accept the move (issue #13). Running it again refreshes nothing.

The rules tables hold one edition's content; a fixture of a new edition adds its
`RulesVersion` row beside the old one. With two rows the site could not tell which edition
it plays, so the command stops (and the Docker start with it) until the old row is deleted.
"""

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from dbd_site.errors import DomainError
from roster import engine, selectors, services
from roster.models import Force
from rules.loader import get_catalogue
from rules.models import RulesVersion


class Command(BaseCommand):
    help = "Work stored evaluations out again with the current rules' content and engine."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--batch-size",
            type=int,
            default=200,
            help="Forces read per query (each is refreshed in its own transaction).",
        )

    def handle(self, *args: Any, batch_size: int, **options: Any) -> None:
        editions = sorted(RulesVersion.objects.values_list("code", flat=True))
        if len(editions) > 1:
            raise CommandError(
                f"{len(editions)} editions of the rules are loaded ({', '.join(editions)}); "
                "the tables hold only the newest one's content. Delete the editions no "
                "longer played (admin: Rules versions) and run this again."
            )
        catalogue = get_catalogue()
        stale = selectors.stale_forces().order_by("pk")
        changed = unchanged = refused = 0
        after = 0
        while batch := list(stale.filter(pk__gt=after).defer("evaluation")[:batch_size]):
            for force in batch:
                version = force.version
                try:
                    services.refresh_evaluation(force=force)
                except DomainError as exc:
                    refused += 1
                    self.stderr.write(f"Force {force.pk} not refreshed: {exc}")
                    continue
                if force.version != version:
                    changed += 1
                else:
                    unchanged += 1
            after = batch[-1].pk
        waiting = Force.objects.exclude(rules_version=catalogue.rules_version).count()
        self.stdout.write(
            f"Rules {catalogue.rules_version} (content {catalogue.content_version}, engine "
            f"{engine.ENGINE_VERSION}): "
            f"{changed + unchanged} evaluations refreshed ({changed} changed, {unchanged} "
            f"unchanged), {refused} refused; {waiting} forces on another edition await "
            "their players."
        )
