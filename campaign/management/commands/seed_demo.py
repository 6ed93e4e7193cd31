"""Seed a demo player, a legal example force and a small campaign; only with DEBUG on."""

import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaign import services as campaign_services
from campaign.services import MemberOutcome
from roster import services
from roster.demo import (
    DEMO_BATTLES,
    DEMO_PASSWORD,
    DEMO_USERNAME,
    RIVAL_USERNAME,
    demo_force,
    rival_force,
)


class Command(BaseCommand):
    help = (
        "Create the demo user, its force and a demo campaign (DEBUG only; once; not into "
        "a database that holds other people's accounts unless --force)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="Seed even though the database holds other people's accounts.",
        )

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        if not settings.DEBUG:
            raise CommandError("seed_demo only runs with DEBUG on: it creates a known password.")
        users = get_user_model()
        if users.objects.filter(username=DEMO_USERNAME).exists():
            self.stdout.write(f"Demo user already there: {DEMO_USERNAME} / {DEMO_PASSWORD}")
            return
        others = users.objects.exclude(username__in=[DEMO_USERNAME, RIVAL_USERNAME]).count()
        if others and not options["force"]:
            # Two accounts with a published password do not belong in a real database,
            # which is what one with other people in it most likely is.
            raise CommandError(
                f"Not seeding: this database holds {others} other account(s), so it may be "
                "a real one, and the demo accounts have a published password. Use "
                "--force to seed it anyway."
            )
        demo = users.objects.create_user(DEMO_USERNAME, password=DEMO_PASSWORD)
        rival = users.objects.create_user(RIVAL_USERNAME, password=DEMO_PASSWORD)
        force = services.import_force(owner=demo, document=demo_force())
        opponents = services.import_force(owner=rival, document=rival_force())
        self._campaign(demo, rival, force, opponents)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo user created: log in as {DEMO_USERNAME} / {DEMO_PASSWORD} to see "
                f"'{force.name}' and the campaign 'Spring Term League' "
                f"(the opponent, {RIVAL_USERNAME}, has the same password)."
            )
        )

    def _campaign(self, demo, rival, force, opponents) -> None:
        """Three confirmed battles between the two forces (R14-R16), so the dashboard,
        the standings and the charts have something to show."""
        campaign = campaign_services.create_campaign(organiser=demo, name="Spring Term League")
        campaign_services.join_campaign(user=rival, token=campaign.invite_token)
        sides = {
            "demo": campaign_services.enter_force(campaign=campaign, player=demo, force=force),
            "rival": campaign_services.enter_force(
                campaign=campaign, player=rival, force=opponents
            ),
        }
        first_day = datetime.date.today() - datetime.timedelta(days=7 * len(DEMO_BATTLES))
        for week, (scenario, winner, results) in enumerate(DEMO_BATTLES):
            credited = sum(enemies for enemies, _ in results)
            outcomes = {}
            for side in sides.values():
                members = list(side.force.members.all())[: len(results)]
                # R14b: the enemies one side takes Out of Action are the other side's
                # members marked so (both sides credit the same numbers here).
                out = {m.pk for m in members[len(members) - credited :]}
                outcomes[side] = [
                    MemberOutcome(
                        member=member,
                        out_of_action=member.pk in out,
                        enemies_out_of_action=enemies,
                        objectives=objectives,
                    )
                    for member, (enemies, objectives) in zip(members, results, strict=True)
                ]
            battle = campaign_services.record_battle(
                campaign=campaign,
                by=demo,
                played_on=first_day + datetime.timedelta(days=7 * week),
                scenario=scenario,
                winner=sides[winner] if winner else None,
                results=outcomes,
            )
            campaign_services.confirm_battle(battle=battle, by=rival)
