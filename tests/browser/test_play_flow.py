"""Two players play a campaign battle live on phones (390x844), each in their own browser
context: a change on one phone shows on the other without a reload (the state panel's
conditional polling). They play three turns, undo, end it, and the other side confirms
the pending record in the campaign (P1-P6, R14, R14a). Every battle page gets an axe check.

Only users, forces and the campaign are arranged through services; everything in the
battle is clicks, fills and checks. Dice are entered as rolled at the table (P5), so the
test knows each result; expectations wait on conditions, never on time.
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaign import services as campaign_services
from play import services
from play.models import Battle, BattleFigure
from tests.browser.conftest import (
    CLICK_TO_DOM,
    MEASURED,
    PASSWORD,
    act_panel,
    assert_accessible,
    click_figures,
    done,
    hp,
    htmx_settled,
    log_in,
    open_sheet,
    phone,
    roll_initiative,
)
from tests.play.conftest import play_force


def settled(page: Page, selector: str) -> None:
    """The sheet re-rendered to match `selector`, and htmx done settling it (its
    listeners are on before the next change)."""
    expect(page.locator(selector)).to_be_attached()
    htmx_settled(page)


def attack(
    page: Page, attacker: int, target: int, dice: str, *, weapon: str, kind: str = "ranged"
) -> None:
    """Tap the attacker's card; choose the target and the kind; wait until the sheet
    shows the odds of exactly this choice; roll with the dice entered."""
    sheet = page.locator("#sheet")
    if not sheet.locator(f'input[name="figure"][value="{attacker}"]').count():
        open_sheet(page, attacker)
    target_select = sheet.locator('select[name="target"]')
    if target_select.input_value() != str(target):
        target_select.select_option(str(target))
        settled(page, f'#attack-odds[data-for^="{attacker}-{target}-"]')
    radio = sheet.locator(f'input[name="kind"][value="{kind}"]')
    if not radio.is_checked():
        radio.check()
    key = f"{attacker}-{target}-{kind}-{weapon}"
    expect(page.locator(f'#attack-odds[data-for="{key}"]')).to_contain_text("to hit")
    htmx_settled(page)
    sheet.get_by_label("Dice rolled at the table").fill(dice)
    done(page, lambda: sheet.get_by_role("button", name="Roll the attack").click())


def no_transfer(page: Page, other: Page) -> None:
    """The defender passes the Friendship decision its phone offers (P9); the other phone
    shows the battle as it then is."""
    offer = page.locator("#transfer")
    done(page, lambda: offer.get_by_role("button", name="No transfer").click())
    expect(offer).to_have_count(0)
    version = page.locator("#battle-state").get_attribute("data-version")
    expect(other.locator(f'#battle-state[data-version="{version}"]')).to_be_attached()


def next_turn(page: Page) -> None:
    page.locator(".play-turn").get_by_role("button", name="Next turn").click()


@pytest.mark.django_db(transaction=True)
def test_two_phones_play_a_campaign_battle(live_server, browser, django_user_model):
    url = live_server.url
    organiser = django_user_model.objects.create_user("olga", password=PASSWORD)
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob = django_user_model.objects.create_user("bob", password=PASSWORD)
    campaign = campaign_services.create_campaign(organiser=organiser, name="Spring League")
    for player, name in ((alice, "Red Club"), (bob, "Blue Club")):
        campaign_services.join_campaign(user=player, token=campaign.invite_token)
        campaign_services.enter_force(
            campaign=campaign, player=player, force=play_force(player, name)
        )

    alice_phone, bob_phone = phone(browser), phone(browser)
    a = log_in(alice_phone, url, "alice")
    b = log_in(bob_phone, url, "bob")

    # Alice starts the battle from the campaign's dashboard.
    a.goto(url + reverse("campaign:dashboard", args=[campaign.pk]))
    a.get_by_role("link", name="Play a battle live").click()
    a.get_by_label("Scenario").fill("Rooftop Duel")
    a.get_by_role("checkbox", name=re.compile("Red Club")).check()
    a.get_by_role("checkbox", name=re.compile("Blue Club")).check()
    assert_accessible(a)
    a.get_by_role("button", name="Start").click()
    expect(a.get_by_role("heading", name="Rooftop Duel", level=1)).to_be_visible()
    battle = Battle.objects.get()
    ids = {
        f"{f.side.position}:{f.name}": f.pk
        for f in BattleFigure.objects.filter(side__battle=battle).select_related("side")
    }
    assert_accessible(a)

    # Bob finds it on the campaign's dashboard and opens it on his phone.
    b.goto(url + reverse("campaign:dashboard", args=[campaign.pk]))
    b.get_by_role("region", name="Being played now").get_by_role(
        "link", name="Rooftop Duel"
    ).click()
    expect(b.get_by_role("heading", name="Rooftop Duel", level=1)).to_be_visible()
    assert_accessible(b)

    # Turn 1: initiative to Red; Ann shoots Blue's Ben (RA 4 against DF 10): 12 is SR 6.
    roll_initiative(a, (8, 3))
    expect(b.locator(".play-turn")).to_contain_text("Red Club activates a figure")
    attack(a, ids["0:Ann"], ids["1:Ben"], "12", weapon="light-pistol")
    expect(a.locator("#act-result")).to_contain_text("Hit, Success Rating 6")
    expect(hp(b, ids["1:Ben"])).to_have_text("5")  # Bob sees it without reloading
    no_transfer(b, a)  # the defender's decision, on the defender's phone
    # Bob answers: his Cat's Submachine Gun (two dice) at Alice's Emma (DF 8).
    attack(b, ids["1:Cat"], ids["0:Emma"], "11 2", weapon="submachine-gun")
    expect(hp(a, ids["0:Emma"])).to_have_text("6")

    # Turn 2.
    next_turn(b)
    expect(a.locator(".play-turn")).to_contain_text("Turn 2")
    roll_initiative(b, (4, 9))
    expect(a.locator(".play-turn")).to_contain_text("Blue Club activates a figure")
    attack(a, ids["0:Ann"], ids["1:Ben"], "10", weapon="light-pistol")  # SR 4: Ben goes to 1
    expect(hp(b, ids["1:Ben"])).to_have_text("1")
    no_transfer(b, a)

    # Turn 3: Ben is shot Unconscious, then Out of Action; Bob undoes a roll of his own.
    next_turn(a)
    expect(b.locator(".play-turn")).to_contain_text("Turn 3")
    attack(a, ids["0:Ann"], ids["1:Ben"], "12", weapon="light-pistol")
    expect(a.locator("#act-result")).to_contain_text("Ben is Unconscious")
    expect(b.locator(f"#figure-{ids['1:Ben']}")).to_contain_text("Unconscious")
    no_transfer(b, a)
    attack(a, ids["0:Ann"], ids["1:Ben"], "12", weapon="light-pistol")
    expect(b.locator(f"#figure-{ids['1:Ben']}")).to_contain_text("Out of Action")
    act_panel(b, "Roll plain d12")
    done(b, lambda: b.get_by_role("button", name="Roll d12").click())
    expect(b.locator("#act-result")).to_contain_text("Rolled")
    expect(a.locator(".play-log li").first).to_contain_text("Rolled", use_inner_text=False)
    b.get_by_role("button", name="Undo: the roll of the dice").click()
    expect(a.locator(".play-log li").first).to_contain_text("(undone)", use_inner_text=False)
    assert_accessible(b)

    # Alice ends it: the record from the log, her objectives, Red won.
    a.get_by_role("link", name="End the battle…").click()
    expect(a.get_by_role("heading", name="End Rooftop Duel")).to_be_visible()
    red_ann = a.locator(".play-end-line", has_text="Ann").first
    expect(red_ann).to_contain_text("took 1 enemy Out of Action")
    blue_ben = a.locator("#end-side-1 + ul .play-end-line", has_text="Ben")
    expect(blue_ben).to_contain_text("went Out of Action (after Unconscious)")
    a.get_by_label("Objectives for Emma").first.fill("2")
    a.get_by_role("radio", name="Red Club won").check()
    assert_accessible(a)
    a.get_by_role("button", name="End the battle").click()
    expect(a.get_by_role("heading", name="Rooftop Duel", level=1)).to_be_visible()
    expect(a.get_by_text("counts once an opponent confirms it")).to_be_visible()

    # Bob's phone shows the end, and he confirms the pending battle in the campaign.
    expect(b.locator(".play-turn")).to_contain_text("The battle has ended")
    b.get_by_role("link", name="See its record in the campaign").click()
    b.get_by_role("button", name="Confirm the result").click()
    expect(b.get_by_text("Confirmed", exact=True).first).to_be_visible()

    alice_phone.close()
    bob_phone.close()


@pytest.mark.django_db(transaction=True)
def test_attack_rolls_measured_click_to_updated_dom(live_server, browser, django_user_model):
    """Twenty attack rolls on a phone (Ann at Ben, a 1 entered: a miss, so the battle
    goes on): the median and p90 click-to-updated-DOM are printed for the note (#12)."""
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob = django_user_model.objects.create_user("bob", password=PASSWORD)
    battle = services.start_battle(
        by=alice,
        forces=[play_force(alice, "Red Club"), play_force(bob, "Blue Club")],
        scenario="Range",
    )
    ids = {
        f"{f.side.position}:{f.name}": f.pk
        for f in BattleFigure.objects.filter(side__battle=battle).select_related("side")
    }
    a = log_in(phone(browser), live_server.url, "alice")
    a.goto(live_server.url + reverse("play:battle", args=[battle.pk]))
    open_sheet(a, ids["0:Ann"])  # Ann's sheet is open before the clicks measured
    a.evaluate(CLICK_TO_DOM)
    for i in range(20):
        attack(a, ids["0:Ann"], ids["1:Ben"], "1", weapon="light-pistol")
        a.wait_for_function(MEASURED, arg=i + 1)
    print(f"\n[measure] phone: attack roll {click_figures(a, 20)}")
