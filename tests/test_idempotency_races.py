"""Requests racing with one Idempotency-Key: the write is done once, and every one of
them gets its answer (docs/idempotency.md).

Real threads with their own connections against committed data, as in
tests/campaign/test_concurrency.py: on PostgreSQL the second insert of the key waits for
the first transaction and then finds its answer; on SQLite every write transaction
queues on the write lock. Released together by a barrier; nothing waits on time.
"""

import pytest
from django.core.management import call_command

from campaign import services as campaign_services
from campaign.models import Battle as CampaignBattle
from campaign.models import LedgerEntry
from idempotency.models import IdempotentRequest
from play import services
from roster import services as roster_services
from roster.models import Force, SkillRoll
from rules.loader import clear_catalogue_cache
from tests.campaign.conftest import freeform_force
from tests.campaign.test_api import battle_body
from tests.campaign.test_concurrency import at_once
from tests.play.conftest import play_force
from tests.roster.builders import legal_force, signed_in

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 4


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def assert_one_done_and_all_answered_alike(answers, status: int) -> None:
    assert [a.status_code for a in answers] == [status] * RACERS
    assert len({a.content for a in answers}) == 1
    assert sorted(a.get("Idempotent-Replayed", "") for a in answers) == [""] + ["true"] * (
        RACERS - 1
    )
    assert IdempotentRequest.objects.count() == 1


def test_racing_actions_with_one_key_are_done_once(alice, bob):
    battle = services.start_battle(
        by=alice, forces=[play_force(alice, "Red"), play_force(bob, "Blue")], scenario="Race"
    )

    def post(_: int):
        return signed_in(alice).post(
            f"/api/v1/battles/{battle.pk}/actions/",
            {"type": "roll", "count": 2},
            format="json",
            HTTP_IDEMPOTENCY_KEY="one-tap",
        )

    assert_one_done_and_all_answered_alike(at_once(RACERS, post), 201)
    assert list(battle.actions.order_by("seq").values_list("kind", flat=True)) == [
        "start",
        "roll",
    ]


def test_racing_builder_rolls_with_one_key_roll_once(alice):
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    force = roster_services.import_force(owner=alice, document=document)

    def post(_: int):
        return signed_in(alice).post(
            f"/api/v1/rosters/{force.pk}/members/1/rolls/",
            {"slot": "free_advancements/0"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="one-roll",
        )

    assert_one_done_and_all_answered_alike(at_once(RACERS, post), 201)
    assert SkillRoll.objects.count() == 1


def test_racing_new_forces_with_one_key_make_one(alice):
    def post(_: int):
        return signed_in(alice).post(
            "/api/v1/rosters/", legal_force(), format="json", HTTP_IDEMPOTENCY_KEY="one-force"
        )

    assert_one_done_and_all_answered_alike(at_once(RACERS, post), 201)
    assert Force.objects.filter(owner=alice).count() == 1


def test_racing_spends_and_battles_with_one_key_are_done_once(organiser, alice, bob):
    campaign = campaign_services.create_campaign(organiser=organiser, name="Race League")
    campaign_services.join_campaign(user=alice, token=campaign.invite_token)
    campaign_services.join_campaign(user=bob, token=campaign.invite_token)
    red = campaign_services.enter_force(
        campaign=campaign, player=alice, force=freeform_force(alice, "Red")
    )
    blue = campaign_services.enter_force(
        campaign=campaign, player=bob, force=freeform_force(bob, "Blue")
    )
    entries = LedgerEntry.objects.count()

    def spend(_: int):
        return signed_in(alice).post(
            f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/spends/",
            {"amount": 1, "reason": "Hired help"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="one-spend",
        )

    assert_one_done_and_all_answered_alike(at_once(RACERS, spend), 201)
    assert LedgerEntry.objects.count() == entries + 1
    IdempotentRequest.objects.all().delete()

    def record(_: int):
        return signed_in(alice).post(
            f"/api/v1/campaigns/{campaign.pk}/battles/",
            battle_body(red, blue),
            format="json",
            HTTP_IDEMPOTENCY_KEY="one-battle",
        )

    assert_one_done_and_all_answered_alike(at_once(RACERS, record), 201)
    assert CampaignBattle.objects.count() == 1
