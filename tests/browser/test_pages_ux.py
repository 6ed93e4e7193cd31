"""Pages a player enjoys at a desk and on a phone (issue #11): no jumps after a change,
no sideways scrolling at 390 px, no stale pages on Back, refusals in place under DEBUG.

Each check runs in the desktop (1280x800) and phone (390x844) views, light and dark.
Nothing here waits on a timer: every wait is on a state of the page.
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from roster import services
from roster.models import Force
from tests.browser.conftest import (
    CLICK_TO_DOM,
    MEASURED,
    VIEWS,
    assert_accessible,
    click_figures,
    horizontal_overflow,
    htmx_settled,
    member_url,
)
from tests.roster.builders import student
from tests.roster.test_rolls import ScriptedDice

ALL_VIEWS = list(VIEWS)
PHONES = ["phone-light", "phone-dark"]


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_adding_equipment_keeps_the_player_where_they_are(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Kenji", "equipment"))
    row = page.locator('[data-anchor="option-light-shield"]')
    add = row.get_by_role("button", name="Add Light Shield")
    # The row in the middle of the screen, as a player scrolling down the list has it.
    row.evaluate("r => window.scrollBy(0, r.getBoundingClientRect().top - innerHeight / 2)")
    before = row.evaluate("r => r.getBoundingClientRect().top")
    scrolled = page.evaluate("() => scrollY")
    assert scrolled > 0  # the test means something: the page was scrolled
    add.click()
    expect(page.locator("#builder-notice")).to_have_text("Added Light Shield.")
    htmx_settled(page)  # the place is kept on settling, after the notice shows
    after = row.evaluate("r => r.getBoundingClientRect().top")
    assert abs(after - before) <= 4, (before, after)
    # Focus stays in the step the player used (the button, or the step's heading when
    # the piece can no longer be added).
    focused_step = page.evaluate("() => document.activeElement.closest('.step')?.id")
    assert focused_step == "step-equipment"
    carried = page.locator("#step-equipment").get_by_role("list").first
    expect(carried).to_contain_text("Light Shield")
    assert_accessible(page)


@pytest.mark.parametrize("view", ["desktop-light", "phone-dark"])
def test_removing_a_piece_by_keyboard_moves_focus_to_the_step_s_heading(
    live_server, demo, pages, view
):
    """An edit's answer is morphed into the step, so the focused Remove button's element
    may be reused for the next piece in the list: focus must not land on a control that
    now removes something else, and goes to the step's heading as it did before."""
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Kenji", "equipment"))
    step = page.locator("#step-equipment")
    step.evaluate("s => { s.keptAcrossEdits = true; }")
    step.get_by_role("button", name="Add Light Shield").click()
    expect(page.locator("#builder-notice")).to_have_text("Added Light Shield.")
    htmx_settled(page)
    assert step.evaluate("s => s.keptAcrossEdits === true")  # morphed, not replaced
    carried = step.locator("ul.owned > li")
    labels = carried.locator(".entry__label").all_inner_texts()
    assert len(labels) >= 2, labels  # a piece follows the removed one in the list
    first = carried.first.get_by_role("button", name=re.compile("^Remove"))
    first.focus()
    page.keyboard.press("Enter")
    removed = labels[0].split(" [")[0]  # the label without its hands, "[2H]"
    expect(page.locator("#builder-notice")).to_have_text(f"Removed {removed}.")
    htmx_settled(page)
    expect(carried.locator(".entry__label")).to_have_text(labels[1:])
    focused = page.evaluate("() => [document.activeElement.id, document.activeElement.tagName]")
    assert focused == ["step-equipment-title", "H2"]


@pytest.mark.parametrize("view", PHONES)
def test_the_phone_builder_has_a_sticky_summary_and_steps_to_jump_between(
    live_server, demo, pages, view
):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "basics"))
    bar = page.locator("#builder-bar")
    expect(bar).to_contain_text("Legal")
    expect(bar).to_contain_text("Cost 5")
    expect(bar).to_contain_text("CA 4")
    # Jump to the equipment step from the step links: it opens, the others close.
    bar.get_by_role("navigation", name="Steps").get_by_role("link", name="Equipment").click()
    expect(page.locator("#step-equipment-body")).to_be_visible()
    expect(page.locator(".step__body")).to_have_count(1)
    add = page.get_by_role("button", name="Add Light Shield")
    add.scroll_into_view_if_needed()
    add.click()
    # The notice and the new cost are in sight without scrolling: the summary is sticky.
    expect(page.locator("#builder-notice")).to_have_text("Added Light Shield.")
    expect(bar).to_be_in_viewport()
    expect(bar).not_to_contain_text("Cost 5")
    assert horizontal_overflow(page) == {}
    # Closing the open step leaves six headings: the builder's height with every step shut.
    page.locator("#step-equipment .step__toggle").click()
    expect(page.locator(".step__body")).to_have_count(0)
    height = page.evaluate("() => document.getElementById('member-builder').offsetHeight")
    print(f"\n[measure] {view}: builder height with every step closed: {height} px")
    assert_accessible(page)


@pytest.mark.parametrize("view", PHONES)
def test_no_page_scrolls_sideways_on_a_phone(live_server, demo, pages, view):
    user, force, campaign = demo
    page = pages(user, view)
    urls = {
        "builder, every step": member_url(live_server, force, "Emma", "all"),
        "force page": live_server.url + reverse("roster:detail", args=[force.pk]),
        "battle form": live_server.url + reverse("campaign:record_battle", args=[campaign.pk]),
        "standings": live_server.url + reverse("campaign:dashboard", args=[campaign.pk]),
        "rules tables": live_server.url + reverse("rules:index"),
        "my forces": live_server.url + reverse("roster:list"),
    }
    wide = {}
    for what, url in urls.items():
        page.goto(url)
        expect(page.locator("main h1").first).to_be_visible()
        if overflow := horizontal_overflow(page):
            wide[what] = overflow
    page.goto(urls["standings"])
    assert wide == {}


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_back_shows_the_page_as_it_now_is(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    force_url = live_server.url + reverse("roster:detail", args=[force.pk])
    response = page.goto(force_url)
    assert "no-store" in response.headers["cache-control"]
    page.get_by_role("heading", name="Mio", exact=True, level=3).click()  # unfolds the card
    page.get_by_role("link", name="Edit Mio", exact=True).click()
    expect(page.get_by_role("heading", name="Mio", level=1)).to_be_visible()
    expect(page.locator("#step-basics-body")).to_be_visible()  # opens at the first step
    page.get_by_label("Name:", exact=True).fill("Mio Tanabe")
    page.get_by_role("button", name="Save statistics").click()
    # The heading, the breadcrumb and the title follow the new name at once.
    expect(page.get_by_role("heading", name="Mio Tanabe", level=1)).to_be_visible()
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(crumbs).to_contain_text("Mio Tanabe")
    expect(page).to_have_title("Mio Tanabe · Literature Club Irregulars · DBD Force Builder")
    page.go_back()
    expect(page).to_have_url(force_url)
    expect(page.get_by_role("heading", name="Mio Tanabe", level=3)).to_be_visible()
    page.go_forward()
    expect(page.get_by_role("heading", name="Mio Tanabe", level=1)).to_be_visible()


FOLDS = "details.member-fold"


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_member_cards_fold_to_a_summary_on_the_force_page(live_server, demo, pages, view):
    """Each card folds to its name, cost, statistics and problems; it opens with the
    keyboard, stays open across reloads and the way back from the builder, and prints
    open."""
    user, force, _ = demo
    page = pages(user, view)
    force_url = live_server.url + reverse("roster:detail", args=[force.pk])
    page.goto(force_url)
    cards = page.locator(FOLDS)
    expect(cards).to_have_count(force.members.count())
    expect(page.locator(FOLDS + "[open]")).to_have_count(0)
    emma = page.get_by_role("article", name="Emma")
    stats = emma.get_by_role("table", name="Statistics of Emma")
    expect(stats).to_be_hidden()
    expect(emma.locator(".member-fold__summary")).to_have_text(
        re.compile(
            r"^\s*Emma\s+Student\s+Level 1\s+5 R\s+"
            r"ME 1 · RA 1 · CA 4 · DF 8 · HP 12 · FR 3\s+No problems\s*$"
        )
    )
    height = page.evaluate("() => document.documentElement.scrollHeight")
    print(f"\n[measure] {view}: force page height, every card folded: {height} px")
    assert horizontal_overflow(page) == {}
    assert_accessible(page)

    # The keyboard opens a card: Tab reaches its summary, Enter opens it.
    emma.locator(".member-fold__summary").focus()
    page.keyboard.press("Enter")
    expect(stats).to_be_visible()
    expect(stats.get_by_role("cell")).to_have_text(["1", "1", "4", "8", "12", "3"])
    assert_accessible(page)
    # A swap elsewhere on the page (the read-only link) and a reload keep it open.
    page.get_by_role("button", name="Make a link").click()
    expect(page.get_by_role("textbox", name="Read-only link")).to_be_visible()
    expect(stats).to_be_visible()
    page.reload()
    expect(page.locator(FOLDS + "[open]")).to_have_count(1)
    expect(stats).to_be_visible()
    emma.locator(".member-fold__summary").focus()
    page.keyboard.press(" ")  # Space closes it again
    expect(stats).to_be_hidden()

    # Back from the builder, the card of the member just edited is open and in sight.
    mio = page.get_by_role("article", name="Mio")
    mio.locator(".member-fold__summary").click()
    mio.get_by_role("link", name="Edit Mio").click()
    expect(page.get_by_role("heading", name="Mio", level=1)).to_be_visible()
    page.get_by_role("link", name=f"Back to {force.name}").click()
    expect(page).to_have_url(re.compile(r"#member-\d+$"))
    expect(mio.get_by_role("table", name="Statistics of Mio")).to_be_in_viewport()
    expect(page.locator(FOLDS + "[open]")).to_have_count(1)

    # Printed, every card is open.
    page.emulate_media(media="print")
    for name in force.members.values_list("name", flat=True):
        table = page.get_by_role("table", name=f"Statistics of {name}")
        expect(table).to_be_visible()
    page.emulate_media(media="screen")
    expect(stats).to_be_hidden()


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_a_duplicate_name_is_flagged_at_the_field(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Mio", "basics"))
    page.get_by_label("Name:", exact=True).fill("Kenji")
    page.get_by_role("button", name="Save statistics").click()
    expect(page.locator("#builder-notice")).to_have_text(
        "Saved, but another member is already called Kenji."
    )
    name = page.get_by_label("Name:", exact=True)
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(name).to_have_accessible_description(
        "Another member of Literature Club Irregulars is already called Kenji; "
        "names must differ (R10)."
    )
    assert_accessible(page)


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_a_refused_change_shows_in_place_under_debug(live_server, demo, pages, view, settings):
    settings.DEBUG = True  # `make run`: the live server's thread reads settings per request
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "basics"))
    page.get_by_label("Name:", exact=True).fill("")
    page.get_by_role("button", name="Save statistics").click()
    step = page.locator("#step-basics")
    expect(step.get_by_text("Every member needs a name.")).to_be_visible()
    expect(step.get_by_label("Name:", exact=True)).to_have_attribute("aria-invalid", "true")
    # The rest of the page is still there: the header, the summary, the other steps.
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    expect(page.get_by_role("heading", name="Emma", level=1)).to_be_visible()
    expect(page.locator(".step")).to_have_count(6)
    assert_accessible(page)


WORDS_BROKEN = """() => {
  const broken = [];
  for (const th of document.querySelectorAll("thead th")) {
    if (!th.offsetParent) continue;  // hidden (a stacked table's headings)
    const text = th.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    const re = /\\S+/g;
    let m;
    while ((m = re.exec(text.data))) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      if (range.getClientRects().length > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""

MISSING_BOTTOM_BORDERS = """() => [...document.querySelectorAll("table")]
  .filter(t => t.offsetParent && !t.closest(".stat-wrap"))
  .map(t => t.querySelector("tbody tr:last-child"))
  .filter(row => row && [...row.children].some(
    c => parseFloat(getComputedStyle(c).borderBottomWidth) === 0))
  .map(row => row.closest("table").querySelector("caption")?.textContent.trim() || "a table")"""


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_the_print_sheet_has_whole_borders_whole_words_and_spell_outcomes(
    live_server, demo, pages, view
):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:print", args=[force.pk]))
    assert page.evaluate(WORDS_BROKEN) == []  # on screen: "DF (melee)", never "DF mele e"
    page.emulate_media(media="print")
    assert page.evaluate(WORDS_BROKEN) == []
    assert page.evaluate(MISSING_BOTTOM_BORDERS) == []
    emma = page.get_by_role("article", name="Emma")
    outcomes = emma.get_by_role("table", name="Outcomes of Healing Spring")
    expect(outcomes).to_be_visible()
    expect(outcomes.get_by_role("row")).not_to_have_count(1)  # more than the heading row
    page.emulate_media(media="screen")
    assert_accessible(page)


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_share_and_invite_links_have_copy_buttons(live_server, demo, pages, view):
    user, force, campaign = demo
    page = pages(user, view)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
    page.get_by_role("button", name="Make a link").click()
    link = page.get_by_role("textbox", name="Read-only link")
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#share .copy-status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("() => navigator.clipboard.readText()") == link.input_value()
    assert_accessible(page)

    page.goto(live_server.url + reverse("campaign:dashboard", args=[campaign.pk]))
    page.get_by_role("button", name="Copy invitation link").click()
    expect(page.locator("#invite .copy-status")).to_have_text("Copied to the clipboard.")
    invite = page.get_by_label("Invitation link").input_value()
    assert page.evaluate("() => navigator.clipboard.readText()") == invite
    # The standings say how ties are broken.
    expect(page.get_by_role("region", name="Standings table")).to_have_accessible_description(
        "Ties: forces level on points are placed by more wins first; "
        "if those are level too, by name from A to Z."
    )
    assert_accessible(page)


ROWS_WITHOUT_EFFECT = """(step) => [
  ...document.querySelectorAll(`#step-${step} table.options tbody tr`)]
  .filter(row => !row.querySelector(".option__effect")?.textContent.trim())
  .map(row => row.querySelector("th").textContent.trim())"""


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_every_choice_says_what_it_does(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "purchases"))
    skills = page.locator("#step-purchases details.option-group").nth(1)
    skills.locator("summary").click()
    # Skills to buy: every skill row says what it does (statistic lines need no words).
    rows = page.evaluate(ROWS_WITHOUT_EFFECT, "purchases")
    assert [r for r in rows if not r.startswith(("+", "-"))] == []
    assert_accessible(page)
    page.get_by_role("navigation", name="Steps").get_by_role("link", name="Equipment").click()
    expect(page.locator("#step-equipment-body")).to_be_visible()
    assert page.evaluate(ROWS_WITHOUT_EFFECT, "equipment") == []
    page.get_by_role("navigation", name="Steps").get_by_role("link", name="Spells").click()
    expect(page.locator("#step-spells-body")).to_be_visible()
    assert page.evaluate(ROWS_WITHOUT_EFFECT, "spells") == []
    # Spells show their outcome tiers where they are learnt.
    outcomes = page.get_by_role("list", name="Outcomes of Reviving Breath")
    expect(outcomes.get_by_role("listitem")).not_to_have_count(0)
    assert_accessible(page)
    # The free advancements' "pick instead" list: each skill with its effect.
    page.get_by_role("navigation", name="Steps").get_by_role(
        "link", name="Free advancements"
    ).click()
    step = page.locator("#step-free-body")
    step.get_by_text("Change the picked skill").first.click()
    choices = step.locator(".pick[open] .radio")
    expect(choices.first).to_be_visible()
    bare = choices.evaluate_all(
        "rows => rows.filter(r => !r.querySelector('.option__effect')?.textContent.trim())"
    )
    assert bare == []
    expect(
        step.get_by_role("radio", name="Spell Focus", exact=True)
    ).to_have_accessible_description(re.compile(r"\w"))


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_recording_a_battle_takes_few_actions_and_checks_itself(live_server, demo, pages, view):
    """Two forces of 4 or more: both start ticked (the campaign has two), everyone took
    part, today's date; counts have steppers; the R14b hint follows the form."""
    user, _force, campaign = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("campaign:record_battle", args=[campaign.pk]))
    red = page.get_by_role("region", name="Members of Literature Club Irregulars")
    blue = page.locator(".camp-side").nth(1)
    expect(red).to_be_visible()
    expect(blue).to_be_visible()
    assert horizontal_overflow(page) == {}
    took_part = page.locator('.camp-results input[name$="-took_part"]')
    expect(took_part.first).to_be_checked()
    assert all(took_part.evaluate_all("boxes => boxes.map(b => b.checked)"))
    check = page.locator("#battle-check")
    expect(check).to_have_text("The results add up (R14b).")

    actions = 0
    page.get_by_label("Scenario").fill("Capture the Flag")
    actions += 1
    page.get_by_role("radio", name="Literature Club Irregulars won").check()
    actions += 1
    # Emma takes an enemy out: more than the other side has Out of Action yet.
    red.get_by_role("button", name="One more: Enemies Emma took Out of Action").click()
    actions += 1
    expect(check).to_contain_text(
        "Literature Club Irregulars's members took 1 enemy Out of Action, "
        "but only 0 of the other forces' members are marked Out of Action."
    )
    blue.locator('input[name$="-out_of_action"]').first.check()
    actions += 1
    expect(check).to_have_text("The results add up (R14b).")
    red.get_by_role("button", name="One more: Objectives Kenji achieved").click()
    actions += 1
    blue.locator('input[name$="-took_part"]').last.uncheck()  # sat this one out
    actions += 1
    assert_accessible(page)
    page.get_by_role("button", name="Record the battle").click()
    actions += 1
    expect(page.get_by_text("Battle recorded.")).to_be_visible()
    print(f"\n[measure] {view}: actions to record a two-force battle: {actions}")


@pytest.mark.parametrize("view", ["desktop-light", "phone-light"])
def test_builder_edits_measured_click_to_updated_dom(live_server, demo, pages, view):
    """Twenty builder edits (add, then remove, a Light Shield): each waits on the notice
    it brings; the median and p90 click-to-updated-DOM are printed for the note."""
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Kenji", "equipment"))
    page.evaluate(CLICK_TO_DOM)
    notice = page.locator("#builder-notice")
    step = page.locator("#step-equipment")
    for i in range(10):
        # Each click waits for the last one's answer to be measured, not only shown.
        step.get_by_role("button", name="Add Light Shield").click()
        expect(notice).to_have_text("Added Light Shield.")
        page.wait_for_function(MEASURED, arg=2 * i + 1)
        step.get_by_role("button", name="Remove Light Shield").click()
        expect(notice).to_have_text("Removed Light Shield.")
        page.wait_for_function(MEASURED, arg=2 * i + 2)
    print(f"\n[measure] {view}: builder edit {click_figures(page, 20)}")


# Issue #11 (9): a 60-character club name without spaces, and an opened roll history.
CLUB = "Astronomy" * 6 + "Circle"  # 60 characters, no space to break at

CARD_PAST_COLUMN = """card => {
  const box = card.getBoundingClientRect();
  const column = card.parentElement.getBoundingClientRect();
  return Math.max(0, Math.round(box.right - column.right), Math.round(box.width - column.width));
}"""


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_a_long_club_name_and_the_roll_history_stay_in_the_card_s_column(
    live_server, demo, pages, view
):
    user, force, _ = demo
    assert len(CLUB) == 60
    wide = services.add_member(
        force=force,
        actor=user,
        data=student(
            "Wide",
            club={"name": CLUB, "society": "technical", "choice": "RA"},
            free_advancements=[{"line": 4}, {"line": 3}],
        ),
    )
    for face in (3, 9):  # a roll and a re-roll: two rows of history
        services.roll_skill(
            force=Force.objects.get(pk=force.pk),
            actor=user,
            member_id=wide.pk,
            slot="free_advancements/0",
            rng=ScriptedDice(face),
        )
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
    card = page.get_by_role("article", name="Wide")
    card.locator(".member-fold__summary").click()
    card.get_by_text("Roll history (2)").click()
    expect(card.get_by_role("table", name="Skill rolls of Wide")).to_be_visible()
    expect(card).to_contain_text(CLUB)
    assert card.evaluate(CARD_PAST_COLUMN) == 0
    assert "page" not in horizontal_overflow(page)
    assert_accessible(page)
    # The builder's card beside the steps too.
    page.goto(live_server.url + reverse("roster:member", args=[force.pk, wide.pk]))
    aside = page.get_by_role("complementary", name="Wide so far")
    aside.get_by_text("Roll history (2)").click()
    expect(aside.get_by_role("table", name="Skill rolls of Wide")).to_be_visible()
    assert aside.locator("article").evaluate(CARD_PAST_COLUMN) == 0
    assert "page" not in horizontal_overflow(page)
