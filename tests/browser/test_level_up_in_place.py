"""A skill level-up is rolled in place (issue #11): the die, the table and the skill show
on the level-up page itself, with a re-roll at its real FR cost (R5, R5a) and a pick, in
the desktop and phone views, light and dark. The server's dice are scripted
(`rules.dice.server_dice`; the live server runs in a thread of this process)."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaign import services
from roster.models import Member
from tests.browser.conftest import VIEWS, assert_accessible, signed_in_page
from tests.campaign.conftest import ann_takes_an_enemy_out, freeform_force
from tests.roster.test_rolls import ScriptedDice


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_rolled_level_up_shows_its_roll_in_place(
    browser, live_server, campaign, alice, bob, monkeypatch, view
):
    red = services.enter_force(
        campaign=campaign, player=alice, force=freeform_force(alice, "Red Club")
    )
    blue = services.enter_force(
        campaign=campaign, player=bob, force=freeform_force(bob, "Blue Club")
    )
    ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    ann = Member.objects.get(force_id=red.force_id, name="Ann")
    dice = ScriptedDice(2)
    monkeypatch.setattr("rules.dice.server_dice", lambda: dice)

    page = signed_in_page(browser, live_server, alice, view)
    try:
        url = reverse("campaign:level_up", args=[campaign.pk, red.pk, ann.pk])
        page.goto(live_server.url + url)
        page.locator('input[name="advancement"][value="4"]').check()
        page.get_by_role("button", name="Take the level-up").click()

        roll = page.get_by_role("region", name=re.compile(r"^The roll for the "))
        expect(roll.locator(".die")).to_have_text(["2"])
        expect(roll).to_contain_text("Ann has")
        expect(
            roll.get_by_role("button", name=re.compile(r"^Roll again \(costs 1 FR\)"))
        ).to_be_visible()
        expect(
            roll.get_by_role(
                "button", name=re.compile(r"^Pick this skill instead \(costs \d FR\)")
            )
        ).to_be_visible()
        assert url in page.url  # still on the level-up page, not sent away
        assert dice.faces == []
        assert_accessible(page)
    finally:
        page.context.close()
