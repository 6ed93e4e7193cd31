"""Migration `campaign/0004_campaign_force_tallies` fills the tallies of existing campaign
forces from their battles and ledger (R14, R15, R15a), and `0006_campaign_battles_played`
each campaign's count of confirmed battles, on SQLite and on PostgreSQL."""

import datetime

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from campaign.models import Campaign, CampaignForce
from campaign.tallies import TALLIES
from rules.loader import clear_catalogue_cache

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("campaign", "0003_entered_rolls_allowed")]
AFTER = [("campaign", "0004_campaign_force_tallies")]


@pytest.fixture(autouse=True)
def _latest_schema_and_rules():
    """Whatever happens, the next test finds the latest schema and the rules loaded."""
    yield
    call_command("migrate", verbosity=0)
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def migrate(targets):
    """Campaign migrated to `targets`; the models as they were then, every other app's as
    they are now."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    others = [leaf for leaf in executor.loader.graph.leaf_nodes() if leaf[0] != "campaign"]
    return executor.loader.project_state([*targets, *others]).apps


def test_existing_campaign_forces_get_their_tallies():
    apps = migrate(BEFORE)
    user_model = apps.get_model("auth", "User")
    force_model = apps.get_model("roster", "Force")
    campaign_model = apps.get_model("campaign", "Campaign")
    cf_model = apps.get_model("campaign", "CampaignForce")
    battle_model = apps.get_model("campaign", "Battle")
    bf_model = apps.get_model("campaign", "BattleForce")
    ledger_model = apps.get_model("campaign", "LedgerEntry")

    olga = user_model.objects.create(username="olga")
    campaign = campaign_model.objects.create(name="Old League", organiser=olga)
    forces = []
    for name in ("Red", "Blue", "Idle"):
        owner = user_model.objects.create(username=name.lower())
        force = force_model.objects.create(owner=owner, name=name, resources=45, rules_version="1")
        forces.append(cf_model.objects.create(campaign=campaign, player=owner, force=force))
        ledger_model.objects.create(
            campaign=campaign, campaign_force=forces[-1], amount=45, kind="start", reason="R11"
        )
    red, blue, idle = forces
    # Confirmed: Red won, then a draw; voided: a Blue win; pending: a Red win.
    for status, winner in (
        ("confirmed", red),
        ("confirmed", None),
        ("void", blue),
        ("pending", red),
    ):
        battle = battle_model.objects.create(
            campaign=campaign,
            played_on=datetime.date(2025, 3, 1),
            scenario="Skirmish",
            status=status,
            winner=winner,
        )
        for cf in (red, blue):
            outcome = "draw" if winner is None else ("win" if winner == cf else "loss")
            bf_model.objects.create(battle=battle, campaign_force=cf, outcome=outcome)
            if status != "pending":
                amount = {"win": 10, "draw": 7, "loss": 5}[outcome]
                ledger_model.objects.create(
                    campaign=campaign,
                    campaign_force=cf,
                    amount=amount,
                    kind="battle",
                    reason="Reward",
                    battle=battle,
                )
            if status == "void":
                ledger_model.objects.create(
                    campaign=campaign,
                    campaign_force=cf,
                    amount=-amount,
                    kind="reversal",
                    reason="Voided",
                    battle=battle,
                )

    migrate(AFTER)
    tallies = {
        pk: dict(zip(TALLIES, values, strict=True))
        for pk, *values in CampaignForce.objects.values_list("pk", *TALLIES)
    }
    assert tallies == {
        red.pk: {"won": 1, "drawn": 1, "lost": 0, "balance": 45 + 10 + 7},
        blue.pk: {"won": 0, "drawn": 1, "lost": 1, "balance": 45 + 5 + 7},
        idle.pk: {"won": 0, "drawn": 0, "lost": 0, "balance": 45},
    }


def test_existing_campaigns_get_their_battles_played():
    apps = migrate([("campaign", "0005_drop_ledger_balance_index")])
    user_model = apps.get_model("auth", "User")
    campaign_model = apps.get_model("campaign", "Campaign")
    battle_model = apps.get_model("campaign", "Battle")
    olga = user_model.objects.create(username="olga")
    busy, quiet = (
        campaign_model.objects.create(name=name, organiser=olga) for name in ("Busy", "Quiet")
    )
    # Two confirmed battles count; a voided one (R15a) and a pending one do not.
    for status in ("confirmed", "confirmed", "void", "pending"):
        battle_model.objects.create(
            campaign=busy, played_on=datetime.date(2025, 3, 1), scenario="Skirmish", status=status
        )

    migrate([("campaign", "0006_campaign_battles_played")])
    played = dict(Campaign.objects.values_list("pk", "battles_played"))
    assert played == {busy.pk: 2, quiet.pk: 0}
