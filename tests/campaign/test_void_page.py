"""The void page lists the level-ups a void takes back before the organiser confirms,
and voiding takes them back with the XP that paid for them (R15a)."""

import pytest
from django.urls import reverse

from campaign import services
from campaign.models import CampaignEvent
from roster.models import Member
from tests.campaign.conftest import everyone, record

pytestmark = pytest.mark.django_db


def test_the_void_page_lists_the_level_ups_that_go_and_the_void_takes_them(
    client, campaign, organiser, alice, red, blue
):
    emma = red.force.members.get(name="Emma")
    battle = record(
        campaign,
        organiser,
        red,
        blue,
        red_results=everyone(red, Emma={"enemies_out_of_action": 1, "objectives": 1}),
        blue_results=everyone(blue, Ann={"out_of_action": True}),
    )
    services.confirm_battle(battle=battle, by=alice)
    emma.refresh_from_db()
    assert emma.xp == 4  # took part, an enemy, an objective, the winning side (R16)
    services.take_level_up(campaign_force=red, by=alice, member=emma, line=2)
    assert Member.objects.get(pk=emma.pk).level_ups == [{"line": 2}]

    client.force_login(organiser)
    url = reverse("campaign:battle_void", args=[campaign.pk, battle.pk])
    page = client.get(url).content.decode()
    assert "Level-ups that go with it" in page
    assert "Emma (Red Club): level-up 1, +2 HP" in page
    assert "Ann" not in page.split("Level-ups that go with it")[1].split("</ul>")[0]

    answer = client.post(url, {"reason": "Played on the wrong table"})
    assert answer.status_code == 302
    emma.refresh_from_db()
    assert (emma.xp, emma.level_ups) == (0, [])
    assert red.force.__class__.objects.get(pk=red.force_id).is_legal
    event = CampaignEvent.objects.filter(kind=CampaignEvent.Kind.BATTLE_VOIDED).get()
    assert event.data["level_ups_lost"] == ["Emma's level-up 1"]
    assert "Level-ups taken back: Emma's level-up 1." in event.message


def test_a_void_with_no_level_up_to_take_back_says_so(
    client, campaign, organiser, alice, red, blue
):
    battle = record(campaign, organiser, red, blue)
    services.confirm_battle(battle=battle, by=alice)
    client.force_login(organiser)
    page = client.get(reverse("campaign:battle_void", args=[campaign.pk, battle.pk]))
    assert "No level-up goes with it" in page.content.decode()
