"""dbd-campaign/1: export a whole campaign, import it into an empty site, nothing lost."""

import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.db.models.deletion import RestrictedError

from campaign import selectors, services
from campaign.exports import FORMAT, CampaignImportError, export_campaign, import_campaign
from campaign.models import Battle, Campaign, CampaignEvent, LedgerEntry
from dbd_site.errors import Conflict
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.models import Force, Member, SkillRoll
from tests.campaign.conftest import TODAY, everyone, freeform_force, make_user, problems, record
from tests.roster.builders import student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db


def busy_campaign(organiser, alice, bob) -> Campaign:
    """A campaign with a bit of everything: house rules, battles confirmed, voided and
    pending, spends, an adjustment, a level-up roll, a recruit, a retired member and a
    retired force."""
    campaign = services.create_campaign(
        organiser=organiser, name="Autumn Cup", resources_for_draw=6, level_thresholds=[0, 3, 6]
    )
    carol = make_user("carol")
    for user in (alice, bob, carol):
        services.join_campaign(user=user, token=campaign.invite_token)
    red = services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "Red"))
    blue = services.enter_force(campaign=campaign, player=bob, force=freeform_force(bob, "Blue"))
    green = services.enter_force(
        campaign=campaign, player=carol, force=freeform_force(carol, "Green")
    )
    first = record(
        campaign,
        alice,
        red,
        blue,
        played_on=TODAY - datetime.timedelta(days=7),
        red_results=everyone(red, Ann={"enemies_out_of_action": 1, "objectives": 1}),
        blue_results=everyone(blue, Ben={"unconscious": True, "out_of_action": True}),
    )
    services.confirm_battle(battle=first, by=bob)
    ann = Member.objects.get(force_id=red.force_id, name="Ann")
    services.take_level_up(campaign_force=red, by=alice, member=ann, line=4, rng=ScriptedDice(2))
    services.spend(campaign_force=red, amount=3, reason="Snacks", by=alice)
    services.adjust_resources(campaign_force=blue, amount=2, reason="Hosting", by=organiser)
    roster_services.add_member(force=blue.force, actor=bob, data=student("Dan"))
    roster_services.remove_member(
        force=blue.force,
        actor=bob,
        member_id=Member.objects.get(force_id=blue.force_id, name="Ben").pk,
    )
    draw = services.record_battle(
        campaign=campaign,
        by=organiser,
        played_on=TODAY - datetime.timedelta(days=3),
        scenario="Three-way",
        winner=None,
        results={red: everyone(red), blue: everyone(blue), green: everyone(green)},
    )
    services.confirm_battle(battle=draw, by=carol)  # R14a: not the organiser who recorded it
    services.void_battle(battle=draw, by=organiser, reason="Wrong day")
    services.retire_campaign_force(campaign_force=green, by=carol)
    record(campaign, bob, red, blue, scenario="Pending", winner="blue")
    return campaign


def test_export_import_round_trip_loses_nothing(organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    exported = json.loads(json.dumps(export_campaign(campaign=campaign)))
    assert exported["format"] == FORMAT
    assert len(exported["forces"]) == 3
    assert len(exported["battles"]) == 3
    assert {b["status"] for b in exported["battles"]} == {"confirmed", "void", "pending"}
    assert any(
        r["member"] is None for b in exported["battles"] for f in b["forces"] for r in f["results"]
    )  # Ben retired: his results stay, by name
    assert exported["forces"][0]["rolls"][0]["slot"] == "level_ups/0"
    token = campaign.invite_token

    # An empty site: the campaign, then every user (and with them every force), gone.
    Campaign.objects.all().delete()
    get_user_model().objects.all().delete()
    assert not Force.objects.exists()
    assert not LedgerEntry.objects.exists()

    imported = import_campaign(data=exported)
    again = json.loads(json.dumps(export_campaign(campaign=imported)))
    assert again == exported
    assert imported.invite_token != token  # a new secret

    # And it works as a campaign: standings, balances, verified rolls, usable services.
    rows = {
        r.name: (r.played, r.points, r.resources) for r in selectors.standings(campaign=imported)
    }
    assert rows["Red"] == (1, 3, 45 + 10 - 3)
    assert rows["Blue"] == (1, 0, 45 + 5 + 2)
    red = imported.forces.get(force__name="Red")
    force = roster_selectors.get_force(user=red.player, force_id=red.force_id)
    assert force.evaluation["members"][1]["unverified_rolls"] == 0
    assert not get_user_model().objects.get(username="alice").has_usable_password()
    pending = imported.battles.get(status=Battle.Status.PENDING)
    services.confirm_battle(battle=pending, by=get_user_model().objects.get(username="alice"))


def test_event_data_ids_are_translated(organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    exported = export_campaign(campaign=campaign)
    voided = next(e for e in exported["log"] if e["kind"] == "battle-voided")
    assert voided["data"]["battle"] == 1  # the second battle, by position
    reversals = [i for i, e in enumerate(exported["ledger"]) if e["kind"] == "reversal"]
    assert voided["data"]["reversed_entries"] == reversals


def test_a_campaign_cannot_be_deleted_from_under_its_history(organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    red = campaign.forces.get(force__name="Red")
    with pytest.raises(RestrictedError):
        red.force.delete()  # the roster force of a campaign force keeps its ledger
    with pytest.raises(Conflict) as refused:
        roster_services.delete_force(force=red.force, actor=alice)  # the policy says no
    assert problems(refused) == [("", "campaign-force")]
    with pytest.raises(RestrictedError):
        roster_services.delete_force(force=red.force, actor=None)  # and the model too
    assert LedgerEntry.objects.filter(campaign_force=red).exists()


def test_imports_that_are_refused_create_nothing(organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    exported = export_campaign(campaign=campaign)
    with pytest.raises(CampaignImportError, match="already exist"):
        import_campaign(data=exported)
    with pytest.raises(CampaignImportError, match="not a dbd-campaign/1"):
        import_campaign(data={"format": "dbd-roster/1"})
    Campaign.objects.all().delete()
    get_user_model().objects.all().delete()
    damaged = json.loads(json.dumps(exported))
    damaged["ledger"][3]["amount"] = -500
    with pytest.raises(CampaignImportError, match="below 0"):
        import_campaign(data=damaged)
    damaged = json.loads(json.dumps(exported))
    del damaged["battles"][0]["scenario"]
    with pytest.raises(CampaignImportError, match="incomplete"):
        import_campaign(data=damaged)
    damaged = json.loads(json.dumps(exported))
    damaged["forces"][1]["document"]["members"][0]["base"] = "strong"
    with pytest.raises(CampaignImportError, match="dbd-roster/1"):
        import_campaign(data=damaged)
    damaged = json.loads(json.dumps(exported))
    damaged["campaign"]["house_rules"]["level_thresholds"] = [1, 2]
    with pytest.raises(CampaignImportError, match="house rules"):
        import_campaign(data=damaged)
    assert not Campaign.objects.exists()
    assert not get_user_model().objects.exists()
    assert not SkillRoll.objects.exists()
    assert not CampaignEvent.objects.exists()


def test_a_force_on_an_older_edition_is_restored_on_it(organiser, alice, bob):
    """Through the write path (`roster.services.restore_force`), as the app's own
    bookkeeping: the edition it was built under stays for its player to move (issue #13)."""
    exported = json.loads(
        json.dumps(export_campaign(campaign=busy_campaign(organiser, alice, bob)))
    )
    exported["forces"][0]["rules_version"] = "dbd-core-0"
    Campaign.objects.all().delete()
    get_user_model().objects.all().delete()

    imported = import_campaign(data=exported)

    red = imported.forces.get(force__name="Red").force
    assert red.rules_version == "dbd-core-0"
    assert [r.slot for r in SkillRoll.objects.filter(member__force=red)] == ["level_ups/0"]
    assert export_campaign(campaign=imported)["forces"][0]["rules_version"] == "dbd-core-0"
