"""A campaign force is evaluated with its campaign's level thresholds (R16 house rule)."""

import pytest

from campaign import services
from roster.models import Force
from tests.campaign.conftest import record

pytestmark = pytest.mark.django_db


def test_stored_evaluation_uses_the_campaign_thresholds(
    campaign, organiser, alice, bob, red, blue
):
    services.update_house_rules(
        campaign=campaign, by=organiser, level_thresholds=[0, 2, 5, 9, 14, 20, 27, 35, 44, 54]
    )
    battle = record(campaign, alice, red, blue, winner="red")
    services.confirm_battle(battle=battle, by=bob)
    # Each of Red's members took part and won: 2 XP, level 2 under these house rules
    # (level 1 under R16's defaults, where level 2 needs 3 XP).
    evaluation = Force.objects.get(pk=red.force_id).evaluation
    assert {m["level"] for m in evaluation["members"]} == {2}
    assert {(w["code"]) for w in evaluation["warnings"]} == {"level-up-pending"}
    blue_levels = {m["level"] for m in Force.objects.get(pk=blue.force_id).evaluation["members"]}
    assert blue_levels == {1}  # 1 XP for taking part and losing
