"""A campaign force is evaluated with its campaign's level thresholds (R16 house rule)."""

import pytest

from campaign import services
from roster import selectors as roster_selectors
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


def test_new_thresholds_reach_the_stored_evaluations_at_once(
    campaign, organiser, alice, bob, red, blue
):
    """A force's stored evaluation (what its page, the API and the standings read) follows
    the campaign's thresholds the moment they change, not at the force's next write."""
    battle = record(campaign, alice, red, blue, winner="red")
    services.confirm_battle(battle=battle, by=bob)
    before = Force.objects.get(pk=red.force_id)
    assert {m["level"] for m in before.evaluation["members"]} == {1}  # 2 XP under R16
    services.update_house_rules(
        campaign=campaign, by=organiser, level_thresholds=[0, 2, 5, 9, 14, 20, 27, 35, 44, 54]
    )
    after = Force.objects.get(pk=red.force_id)
    assert {m["level"] for m in after.evaluation["members"]} == {2}
    assert after.updated_at > before.updated_at  # so every cache of the force moves on
    fresh = roster_selectors.evaluate_force(
        force=roster_selectors.get_force(user=after.owner, force_id=after.pk)
    )
    assert after.evaluation == fresh.as_dict()
