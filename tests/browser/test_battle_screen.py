"""Two players play a campaign battle on two phones (390x844), Alice's in light and Bob's in
dark, by tapping the figures' cards (docs/play.md, "The battle screen"): three turns of
initiative from the small dice boxes (a tie too), a melee attack and a ranged attack with
ticked situations, a spell and its attacks, a Friendship transfer the defender answers
while the attacker moves on, a refusal that keeps what was typed, an undo by the right
side; then the end, the record in the campaign, and the other side's confirmation.

After every action its result is inside the screen (an attack with its Friendship transfer
whole, not scrolled in its box) and the control tapped has not moved
more than 60 px; the page stays within two screens with the optional parts closed. Dice
are entered as rolled at the table (P5), so every result is known; nothing waits on time.
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Locator, Page, expect

from campaign import services as campaign_services
from play import services
from play.models import Battle, BattleFigure
from roster import services as roster_services
from tests.browser.conftest import PASSWORD, VIEWS, assert_accessible, hp, log_in
from tests.play.conftest import play_force
from tests.roster.builders import emma, force, student

SCREEN = VIEWS["phone-light"]["viewport"]
MOVED_AT_MOST = 60  # px: a control tapped stays where it was
TWO_SCREENS = 2 * SCREEN["height"]

pytestmark = pytest.mark.django_db(transaction=True)


def storm_force(owner):
    """Alice's Storm: Eve (CA 4, Destruction: Seraphic Bolt), Al (Hand Weapon), Bo (Light
    Pistol), Cy (Submachine Gun)."""
    eve = emma() | {
        "name": "Eve",
        "core_schools": ["destruction"],
        "spells": ["seraphic-bolt", "thunder-gods-bolt", "god-or-demon-attack"],
    }
    document = force(
        eve,
        student("Al", equipment=["hand-weapon"]),
        student("Bo", equipment=["light-pistol"]),
        student("Cy", equipment=["submachine-gun"]),
        name="Storm",
    )
    made = roster_services.import_force(owner=owner, document=document)
    assert made.is_legal, made.evaluation["errors"]
    return made


def top(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return box["y"]


def version(page: Page) -> int:
    return int(page.locator("#battle-state").get_attribute("data-version"))


def settled(page: Page) -> None:
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    expect(page.locator(busy)).to_have_count(0)


def tap(page: Page, control: Locator, *, changes: bool = True, says: str = "") -> None:
    """Tap `control` and wait for its answer: the battle moved on by one (or, `changes`
    false, the answer in place). The result is inside the screen and the control, if
    still there, has not moved more than 60 px."""
    settled(page)
    control.scroll_into_view_if_needed()
    before = top(control)
    at = version(page)
    control.click()
    if changes:
        expect(page.locator(f'#battle-state[data-version="{at + 1}"]')).to_be_attached()
    settled(page)
    result = page.locator("#act-result")
    if says:
        expect(result).to_contain_text(says)
    expect(result).to_be_in_viewport()
    if control.count():
        assert abs(top(control) - before) <= MOVED_AT_MOST, f"{control} moved"


def shows_whole(result: Locator) -> None:
    """The result's whole text is on the screen: nothing of it scrolled out of its box."""
    sizes = result.evaluate("box => [box.scrollHeight, box.clientHeight, box.innerText]")
    print(f"\n[measure] result box: {sizes}")
    assert sizes[0] <= sizes[1], sizes
    expect(result).to_be_in_viewport(ratio=1)


def tick(page: Page, control: Locator, odds_for: str = "") -> None:
    """Tick or choose in the sheet: the odds follow, and the control stays where it was."""
    settled(page)
    control.scroll_into_view_if_needed()
    before = top(control)
    control.check() if control.get_attribute("type") in ("checkbox", "radio") else None
    settled(page)
    if odds_for:
        expect(page.locator(f'#attack-odds[data-for="{odds_for}"]')).to_be_attached()
    assert abs(top(control) - before) <= MOVED_AT_MOST


def page_height(page: Page) -> int:
    """The page's height with the optional parts closed: without the room the page keeps
    below the cards for an open sheet."""
    return page.evaluate(
        """() => {
          const room = getComputedStyle(document.getElementById("battle-page")).paddingBottom;
          return document.documentElement.scrollHeight - parseFloat(room);
        }"""
    )


def in_sight(card: Locator) -> None:
    """A card scrolled to the top of the screen, above the dock, as a player would."""
    card.evaluate("card => { card.scrollIntoView({block: 'start'}); window.scrollBy(0, -8); }")


def open_figure(page: Page, figure_id: int, name: str) -> None:
    """Tap one's own figure's card: its sheet opens, and the card stays where it was."""
    card = page.locator(f"#figure-{figure_id} .play-figure__open")
    in_sight(card)
    before = top(card)
    card.click()
    expect(page.locator("#sheet .play-sheet__title")).to_contain_text(name)
    settled(page)
    assert abs(top(card) - before) <= MOVED_AT_MOST


def pick(page: Page, figure_id: int) -> None:
    """While the sheet chooses a target, tap the enemy's card: it is picked."""
    card = page.locator(f"#figure-{figure_id}")
    expect(card).to_have_class(re.compile("play-figure--pickable"))
    in_sight(card)
    before = top(card)
    card.locator(".play-figure__name").click()
    expect(card).to_have_class(re.compile("play-figure--picked"))
    settled(page)
    assert abs(top(card) - before) <= MOVED_AT_MOST


def initiative(page: Page, *rounds: tuple[int, int]) -> None:
    form = page.locator("#initiative")
    for i, (red, blue) in enumerate(rounds):
        if i == 1:
            form.locator("summary", has_text="A tie?").click()
        form.locator(f'input[name="initiative_{i}_0"]').fill(str(red))
        form.locator(f'input[name="initiative_{i}_1"]').fill(str(blue))
    tap(page, form.get_by_role("button", name="Roll initiative"), says="activates first")


def seen_by(page: Page, other: Page) -> None:
    expect(other.locator(f'#battle-state[data-version="{version(page)}"]')).to_be_attached()


def test_two_phones_play_three_turns_by_tapping_cards(live_server, browser, django_user_model):
    url = live_server.url
    organiser = django_user_model.objects.create_user("olga", password=PASSWORD)
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob = django_user_model.objects.create_user("bob", password=PASSWORD)
    campaign = campaign_services.create_campaign(organiser=organiser, name="Spring League")
    entries = []
    for player, made in ((alice, storm_force), (bob, lambda p: play_force(p, "Blue Club"))):
        campaign_services.join_campaign(user=player, token=campaign.invite_token)
        entries.append(
            campaign_services.enter_force(campaign=campaign, player=player, force=made(player))
        )
    battle = services.start_battle(
        by=alice, forces=[e.force for e in entries], scenario="Rooftop Duel", campaign=campaign
    )
    f = {
        f"{x.side.position}:{x.name}": x.pk
        for x in BattleFigure.objects.filter(side__battle=battle).select_related("side")
    }
    questions: list[str] = []
    a = log_in(browser.new_context(**VIEWS["phone-light"]), url, "alice")
    b = log_in(browser.new_context(**VIEWS["phone-dark"]), url, "bob")
    b.on("dialog", lambda d: questions.append(d.message))
    screen = url + reverse("play:battle", args=[battle.pk])
    a.goto(screen)
    b.goto(screen)
    heights = {"start": page_height(a)}
    assert heights["start"] <= TWO_SCREENS
    assert page_height(b) <= TWO_SCREENS
    assert_accessible(a)
    assert_accessible(b)
    # Each side its own: Alice's cards open sheets on her phone, Bob's on his.
    expect(a.locator(f"#figure-{f['0:Al']} .play-figure__open")).to_have_count(1)
    expect(a.locator(f"#figure-{f['1:Ben']} .play-figure__open")).to_have_count(0)
    expect(b.locator(f"#figure-{f['0:Al']} .play-figure__open")).to_have_count(0)

    # Turn 1: a tie (7, 7), then 8 against 3: Storm first.
    initiative(a, (7, 7), (8, 3))
    expect(a.locator('#initiative input[name="initiative_0_0"]')).to_have_count(0)
    seen_by(a, b)
    expect(b.locator(".play-turn")).to_contain_text("Storm activates a figure")

    # A melee attack: Al charges Bob's Ben (ME 1 against DF 10; Charged -1 DF).
    open_figure(a, f["0:Al"], "Al")
    pick(a, f["1:Ben"])
    sheet = a.locator("#sheet")
    tick(a, sheet.get_by_label("Melee (ME)"))
    tick(a, sheet.get_by_label("Charged"), f"{f['0:Al']}-{f['1:Ben']}-melee-hand-weapon")
    expect(sheet.locator("#attack-odds")).to_contain_text("needs")
    assert_accessible(a)
    dice = sheet.get_by_label("Dice rolled at the table")
    dice.fill("12")
    tap(a, sheet.get_by_role("button", name="Roll the attack"), says="(Friendship).")
    shows_whole(a.locator("#act-result"))
    expect(dice).to_have_value("")  # entered dice are used once
    expect(sheet.get_by_label("Charged")).not_to_be_checked()
    hit = Battle.objects.get(pk=battle.pk).actions.get(kind="attack").detail["damage"]
    expect(hp(b, f["1:Ben"])).to_have_text(str(11 - hit))
    # The defender's decision waits on Bob's phone while Alice moves on.
    prompt = b.locator("#transfer")
    expect(prompt).to_contain_text(f"Friendship: Ben took {hit} damage")
    expect(prompt).to_be_in_viewport()
    tap(a, sheet.get_by_role("button", name="Activated"), says="Al has activated")
    seen_by(a, b)
    expect(prompt).to_contain_text(f"Friendship: Ben took {hit} damage")
    assert_accessible(b)
    prompt.locator('select[name="recipient"]').first.select_option(label="Emma (FR 3)")
    amount = prompt.locator('input[name="amount"]').first
    # More than Emma's FR 3: refused, and what Bob chose and typed stays for him to mend.
    assert hit > 3
    amount.fill(str(hit))
    tap(b, prompt.get_by_role("button", name="Transfer", exact=True), changes=False, says="FR")
    expect(b.locator("#act-result .play-result__refused")).to_be_visible()
    expect(amount).to_have_value(str(hit))
    expect(prompt.locator('select[name="recipient"]').first).to_have_value(str(f["1:Emma"]))
    amount.fill("1")
    tap(b, prompt.get_by_role("button", name="Transfer", exact=True), says="transfers 1 to Emma")
    expect(b.locator("#transfer")).to_have_count(0)
    seen_by(b, a)

    # A ranged attack: Bob's Ann shoots Alice's Bo from the rear, not having moved.
    open_figure(b, f["1:Ann"], "Ann")
    pick(b, f["0:Bo"])
    bsheet = b.locator("#sheet")
    tick(b, bsheet.get_by_label("In the target's rear arc"))
    bsheet.get_by_label("This activation the attacker").select_option("none")
    settled(b)
    assert_accessible(b)  # the sheet, in the dark
    # A refusal: 13 is no d12; what was typed stays, the reason shows in the dock.
    bdice = bsheet.get_by_label("Dice rolled at the table")
    bdice.fill("13")
    tap(b, bsheet.get_by_role("button", name="Roll the attack"), changes=False, says="13 is not")
    expect(bdice).to_have_value("13")
    expect(bsheet.get_by_label("In the target's rear arc")).to_be_checked()
    bdice.fill("11")
    tap(b, bsheet.get_by_role("button", name="Roll the attack"), says="Hit")
    expect(bdice).to_have_value("")
    seen_by(b, a)
    # Alice's phone shows Bo's decisions; Alice's Undo is not hers to use.
    expect(a.locator("#transfer")).to_contain_text("Friendship: Bo took")
    expect(a.locator("#undo button")).to_be_disabled()
    # Bob undoes his own attack: the question names it.
    tap(b, b.locator("#undo button"), says="Undone: Ann attacks Bo")
    assert questions[-1] == "Undo: Ann's attack on Bo?"
    seen_by(b, a)
    expect(a.locator("#transfer")).to_have_count(0)  # the attack's decision went with it
    heights["mid"] = page_height(a)

    # Turn 2: a spell and its attacks. Eve casts Seraphic Bolt (6 6 6 1: three successes).
    tap(b, b.locator(".play-turn").get_by_role("button", name="Next turn"), says="Turn 2")
    seen_by(b, a)
    initiative(a, (9, 2))
    open_figure(a, f["0:Eve"], "Eve")
    a.locator("#sheet .play-tabs").get_by_role("link", name="Cast").click()
    expect(sheet.get_by_label("Spell")).to_be_visible()
    settled(a)
    sheet.get_by_label("Spell").select_option("seraphic-bolt")
    expect(sheet.locator("#spell-odds")).to_contain_text("4 dice at Difficulty 6")
    expect(sheet.get_by_label("Dragon Slayer's value (1-6)")).to_have_count(0)
    settled(a)  # the sheet again with the chosen spell's odds, before the dice are typed
    sheet.get_by_label("Dice rolled at the table").fill("6 6 6 1")
    tap(a, sheet.get_by_role("button", name="Cast"), says="Seraphic Bolt")
    cast = a.locator("#spell-attack")
    expect(cast).to_contain_text("Eve's Seraphic Bolt: roll its attacks")
    pick(a, f["1:Cat"])
    expect(a.locator(f'#spell-attack-odds[data-for="{f["1:Cat"]}"]')).to_contain_text("needs")
    cast.get_by_label("Dice rolled at the table").fill("12 8")
    tap(a, cast.get_by_role("button", name="Roll the spell's attacks"), says="Success Rating")
    shows_whole(a.locator("#act-result"))
    expect(a.locator("#spell-attack")).to_have_count(0)
    seen_by(a, b)
    tap(b, b.locator("#transfer").get_by_role("button", name="No transfer"), says="passes")
    seen_by(b, a)

    # Turn 3, then the end.
    tap(a, a.locator(".play-turn").get_by_role("button", name="Next turn"), says="Turn 3")
    initiative(b, (3, 10))
    heights["turn 3"] = page_height(b)
    assert max(heights.values()) <= TWO_SCREENS, heights
    assert_accessible(a)
    assert_accessible(b)
    a.get_by_role("link", name="End the battle…").click()
    a.get_by_role("radio", name="Storm won").check()
    a.get_by_role("button", name="End the battle").click()
    expect(a.get_by_text("counts once an opponent confirms it")).to_be_visible()

    # Bob's phone learns it on its next poll: no controls left on it.
    expect(b.locator(".play-turn")).to_contain_text("The battle has ended")
    expect(b.locator("#dock")).to_be_empty()
    expect(b.locator(".play-figure__open")).to_have_count(0)
    expect(b.locator("#undo")).to_have_count(0)
    b.get_by_role("link", name="See its record in the campaign").click()
    b.get_by_role("button", name="Confirm the result").click()
    expect(b.get_by_text("Confirmed", exact=True).first).to_be_visible()
    print(f"\n[measure] phone page height: {heights}")
    a.context.close()
    b.context.close()


def test_five_a_side_fits_two_screens_in_light_and_dark(live_server, browser, django_user_model):
    """Two forces of five: the whole battle within two phone screens, the sheet open too."""
    players = [django_user_model.objects.create_user(n, password=PASSWORD) for n in ("al", "bo")]
    forces = []
    for player, name in zip(players, ("Red Club", "Blue Club"), strict=True):
        document = force(
            emma(),
            student("Ann", equipment=["light-pistol"]),
            student("Ben", equipment=["hand-weapon"]),
            student("Cat", equipment=["submachine-gun"]),
            student("Dan", equipment=["light-pistol"]),
            name=name,
        )
        forces.append(roster_services.import_force(owner=player, document=document))
    battle = services.start_battle(by=players[0], forces=forces, scenario="Five a side")
    ann = BattleFigure.objects.get(side__battle=battle, side__position=0, name="Ann")
    screen = live_server.url + reverse("play:battle", args=[battle.pk])
    heights = {}
    for view in ("phone-light", "phone-dark"):
        page = log_in(browser.new_context(**VIEWS[view]), live_server.url, "al")
        page.goto(screen)
        expect(page.locator(".play-figure")).to_have_count(10)
        heights[view] = page_height(page)
        open_figure(page, ann.pk, "Ann")
        heights[f"{view}, sheet open"] = page_height(page)
        assert_accessible(page)
        page.context.close()
    assert max(heights.values()) <= TWO_SCREENS, heights
    print(f"\n[measure] five a side, page height: {heights}")
