"""The builder pages keep up with the player (issue #31): each step opens with its
heading in view, the chrome leaves room on a phone, every control is big enough to tap,
notices replace each other, copies are named as copies and print packs its cards.

Each check runs in the desktop (1280x800) and phone (390x844) views, light and dark, and
waits only on states of the page.
"""

import io
import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from roster import services
from tests.browser.conftest import (
    VIEWS,
    assert_accessible,
    horizontal_overflow,
    htmx_settled,
    member_url,
)

ALL_VIEWS = list(VIEWS)

# Where a step's heading stands: below the sticky bar and inside the screen.
HEADING_PLACE = """(step) => {
  const heading = document.getElementById(`step-${step}-title`).getBoundingClientRect();
  const bar = document.getElementById("builder-bar").getBoundingClientRect();
  return {top: Math.round(heading.top), bottom: Math.round(heading.bottom),
          barBottom: Math.round(bar.bottom), screen: innerHeight};
}"""

# Every step from every other one, the longest jumps included (Free advancements to
# Equipment was 5,136 px off on a phone).
STEP_CHANGES = [
    ("free", "equipment"),
    ("equipment", "basics"),
    ("basics", "spells"),
    ("spells", "purchases"),
    ("purchases", "club"),
    ("club", "free"),
]


def expect_heading_in_view(page: Page, step: str) -> None:
    place = page.evaluate(HEADING_PLACE, step)
    assert place["top"] >= place["barBottom"] - 1, place  # not under the sticky bar
    assert place["bottom"] <= place["screen"], place  # not below the screen


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_each_step_opens_with_its_heading_in_view(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "free"))
    steps = page.get_by_role("navigation", name="Steps")
    for before, after in STEP_CHANGES:
        expect(page.locator(f"#step-{before}-body")).to_be_visible()
        # Scrolled to the end of the open step, as a player who has worked through it.
        page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
        assert page.evaluate("() => scrollY") > 0
        steps.locator(f'a[data-step="{after}"]').click()
        expect(page.locator(f"#step-{after}-body")).to_be_visible()
        htmx_settled(page)
        expect_heading_in_view(page, after)
        expect(page.locator(f"#step-{after} .step__toggle")).to_be_focused()
    # A step's own heading opens it too, from the end of the page.
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.locator("#step-spells .step__toggle").click()
    expect(page.locator("#step-spells-body")).to_be_visible()
    htmx_settled(page)
    expect_heading_in_view(page, "spells")
    assert_accessible(page)


# --- the chrome on a phone: one row of navigation, a short sticky bar ------------------------

PHONES = ["phone-light", "phone-dark"]
PHONE_HEIGHT = VIEWS["phone-light"]["viewport"]["height"]


@pytest.mark.parametrize("view", PHONES)
def test_the_site_navigation_takes_one_row_on_a_phone(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
    header = page.locator(".site-header")
    name = page.get_by_role("link", name="DBD Force Builder")
    menu = page.get_by_role("navigation", name="Main").get_by_text("Menu")
    # The site's name and the menu share one row of 44 px controls.
    name_box, menu_box = name.bounding_box(), menu.bounding_box()
    assert abs(name_box["y"] - menu_box["y"]) <= 1
    assert header.bounding_box()["height"] <= 60
    links = page.get_by_role("navigation", name="Main").get_by_role("link")
    expect(links.first).to_be_hidden()
    menu.click()
    my_forces = page.get_by_role("navigation", name="Main").get_by_role("link", name="My forces")
    expect(my_forces).to_be_visible()
    assert_accessible(page)
    # Escape closes it and leaves focus on its button; so does a tap outside.
    my_forces.focus()
    page.keyboard.press("Escape")
    expect(my_forces).to_be_hidden()
    expect(menu).to_be_focused()
    menu.click()
    expect(my_forces).to_be_visible()
    page.locator(".site-footer").click()  # the open menu covers the top of the page
    expect(my_forces).to_be_hidden()
    menu.click()
    my_forces.click()
    expect(page.get_by_role("heading", name="My forces", level=1)).to_be_visible()


@pytest.mark.parametrize("view", ["desktop-light", "desktop-dark"])
def test_a_desk_shows_the_navigation_s_links_in_a_row(live_server, demo, pages, view):
    user, _, _ = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:list"))
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_text("Menu")).to_be_hidden()
    links = nav.get_by_role("link")
    expect(links).to_have_text(
        ["Home", "Rules", "Rules notes", "API docs", "My forces", "Campaigns", "Account"]
    )
    tops = {round(box["y"]) for box in (link.bounding_box() for link in links.all())}
    assert len(tops) == 1, tops  # one row
    nav.get_by_role("link", name="Campaigns").click()
    expect(page.get_by_role("heading", name="Campaigns", level=1)).to_be_visible()


@pytest.mark.parametrize("view", PHONES)
def test_the_builder_s_sticky_bar_takes_at_most_15_percent_of_a_phone(
    live_server, demo, pages, view
):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "equipment"))
    bar = page.locator("#builder-bar")
    heights = {"no notice": bar.bounding_box()["height"]}
    page.get_by_role("button", name="Add Light Shield").click()
    expect(page.locator("#builder-notice")).to_have_text("Added Light Shield.")
    heights["a notice"] = bar.bounding_box()["height"]
    # The longest the builder says: a name shared with another member (R10).
    page.get_by_role("navigation", name="Steps").get_by_role("link", name="Statistics").click()
    expect(page.locator("#step-basics-body")).to_be_visible()
    htmx_settled(page)  # the step in place before typing into it
    page.get_by_label("Name:", exact=True).fill("Kenji")
    page.get_by_role("button", name="Save statistics").click()
    expect(page.locator("#builder-notice")).to_have_text(
        "Saved, but another member is already called Kenji."
    )
    heights["the longest notice"] = bar.bounding_box()["height"]
    print(f"\n[measure] {view}: sticky bar heights {heights} of {PHONE_HEIGHT} px")
    assert max(heights.values()) <= 0.15 * PHONE_HEIGHT, heights
    assert horizontal_overflow(page) == {}
    assert_accessible(page)


# --- tap targets ------------------------------------------------------------------------------

# Every control a finger uses: buttons, links shown as buttons or used to move around,
# disclosures and fields. Links inside running text are not controls.
SMALL_CONTROLS = """() => {
  const controls = document.querySelectorAll(
    'button, a.button, summary, select, .site-nav a, .step-nav a, .step__toggle,'
    + ' .breadcrumbs a, .site-name, input:not([type=hidden]):not([type=radio])'
    + ':not([type=checkbox])');
  return [...controls]
    .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
    .map(el => [el.textContent.trim().replace(/\\s+/g, " ").slice(0, 40),
                Math.round(el.getBoundingClientRect().width),
                Math.round(el.getBoundingClientRect().height)])
    .filter(([, width, height]) => width < 44 || height < 44);
}"""


def count_controls(page: Page) -> int:
    return page.evaluate(
        "() => document.querySelectorAll('button, a.button, summary, .step-nav a').length"
    )


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_every_control_on_the_builder_and_the_force_page_is_44_px(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    # Every step open at once: each kind of control the builder has.
    page.goto(member_url(live_server, force, "Emma", "all"))
    for disclosure in page.locator("main summary").all():
        disclosure.click()  # "Change the line", "Pick instead", each group of options
    assert count_controls(page) > 80
    assert page.evaluate(SMALL_CONTROLS) == []
    # The spells the member knows each have a "Forget" button.
    expect(page.get_by_role("button", name="Forget Healing Spring")).to_be_visible()
    # The force page: its card toggles, the cards' own controls, the actions.
    page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
    for toggle in page.locator("main summary").all():
        toggle.click()
    expect(page.get_by_role("link", name="Edit Emma")).to_be_visible()
    assert page.evaluate(SMALL_CONTROLS) == []
    # My forces and the print page.
    page.goto(live_server.url + reverse("roster:list"))
    assert page.evaluate(SMALL_CONTROLS) == []
    page.goto(live_server.url + reverse("roster:print", args=[force.pk]))
    assert page.evaluate(SMALL_CONTROLS) == []


# --- notices replace each other ---------------------------------------------------------------


def add_aiko(page: Page, live_server, force, **statistics: str) -> None:
    """Fill the add form for Aiko (academic, the form's starting statistics unless given:
    `RA="3"`) and send it."""
    labels = {"ME": "ME (melee)", "RA": "RA (ranged)", "CA": "CA (spellcasting)"}
    page.goto(live_server.url + reverse("roster:member_add", args=[force.pk]))
    page.get_by_label("Name:", exact=True).fill("Aiko")
    for statistic, value in statistics.items():
        page.get_by_label(labels[statistic]).select_option(value)
    page.get_by_label("Club name").fill("Chess Club")
    page.get_by_role("radio", name="Academic: -1 ME, +1 CA").check()
    page.get_by_role("button", name="Add and continue").click()


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_one_notice_the_newest_in_the_builder_s_words(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    add_aiko(page, live_server, force)
    notice = page.locator("#builder-notice")
    expect(notice).to_have_text("Added Aiko. Now choose the free advancements.")
    expect(page.get_by_role("status")).to_have_count(1)  # the page's one notice area
    # A change's notice replaces the one the page opened with.
    free = page.locator("#step-free")
    free.get_by_role("radio", name="+2 HP", exact=True).first.check()
    free.get_by_role("button", name="Take this line").first.click()
    expect(notice).to_have_text("Took +2 HP.")
    expect(page.get_by_text("Added Aiko.")).to_have_count(0)
    # A refusal empties it (the refusal is said in its step), so nothing older lingers.
    page.get_by_role("navigation", name="Steps").get_by_role("link", name="Statistics").click()
    expect(page.locator("#step-basics-body")).to_be_visible()
    htmx_settled(page)  # the step in place before typing into it
    page.get_by_label("Name:", exact=True).fill("")
    page.get_by_role("button", name="Save statistics").click()
    expect(page.locator("#step-basics").get_by_text("Every member needs a name.")).to_be_visible()
    expect(notice).to_be_empty()
    # The free lines name the line as the builder shows it, never "line 4".
    page.get_by_role("navigation", name="Steps").get_by_role(
        "link", name="Free advancements"
    ).click()
    second = page.locator(".free-slot").nth(1)
    taken = second.get_by_role("radio", name="+2 HP", exact=True)
    expect(taken).to_be_disabled()
    expect(taken).to_have_accessible_description(
        "Free advancements come from two different lines; +2 HP is taken twice."
    )
    assert "line 2" not in page.locator("#step-free").inner_text()
    assert_accessible(page)


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_an_unavailable_option_says_why_on_its_own_row(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(member_url(live_server, force, "Emma", "purchases"))
    statistics = page.get_by_role("table", name="Statistics")
    row = statistics.get_by_role("row", name=re.compile(r"^\+2 HP"))
    expect(row).to_contain_text(
        "Already taken: at creation each statistic line is taken once (R6)."
    )
    expect(page.get_by_text("Not available")).to_have_count(0)
    assert_accessible(page)


# --- the add form refuses a spread R1 forbids --------------------------------------------------


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_the_add_form_refuses_me_3_ra_3_beside_the_statistics(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    add_aiko(page, live_server, force, RA="3")
    refusal = (
        "ME, RA, CA and DF take 3, 2, 2 and 1 in some order; this has ME 3, RA 3, CA 2, DF 1."
    )
    expect(page.get_by_role("alert")).to_have_text(refusal)
    me = page.get_by_label("ME (melee)")
    expect(me).to_have_accessible_description(refusal)
    expect(me).to_have_attribute("aria-invalid", "true")
    # Beside the statistics: between their help and the first of them.
    help_box = page.locator("#base-help").bounding_box()
    refusal_box = page.get_by_role("alert").bounding_box()
    assert help_box["y"] < refusal_box["y"] < me.bounding_box()["y"]
    # Nothing typed is lost.
    expect(page.get_by_label("Name:", exact=True)).to_have_value("Aiko")
    expect(page.get_by_label("RA (ranged)")).to_have_value("3")
    expect(page.get_by_label("Club name")).to_have_value("Chess Club")
    expect(page.get_by_role("radio", name="Academic: -1 ME, +1 CA")).to_be_checked()
    assert_accessible(page)
    # Put right, it is taken.
    page.get_by_label("RA (ranged)").select_option("2")
    page.get_by_role("button", name="Add and continue").click()
    expect(page.get_by_role("heading", name="Aiko", level=1)).to_be_visible()


# --- copies are named as copies -----------------------------------------------------------------


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_copies_are_named_and_renamed_on_the_spot(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
    for _ in range(2):
        page.goto(live_server.url + reverse("roster:detail", args=[force.pk]))
        page.get_by_role("button", name="Duplicate", exact=True).click()
    expect(page.get_by_role("heading", name=f"{force.name} (copy 2)", level=1)).to_be_visible()
    expect(page.get_by_text(f"Made a copy: {force.name} (copy 2).")).to_be_visible()
    page.goto(live_server.url + reverse("roster:list"))
    own = page.locator(".force-grid").first.get_by_role("heading", level=3)
    expect(own).to_have_text([f"{force.name} (copy 2)", f"{force.name} (copy)", force.name])
    assert_accessible(page)
    # Renamed from My forces, without leaving it.
    card = page.locator(".force-card", has=page.get_by_role("link", name=f"{force.name} (copy)"))
    card.get_by_text("Rename").click()
    field = card.get_by_label(f"New name for {force.name} (copy)")
    field.fill("Second Team")
    card.get_by_role("button", name="Save the name").click()
    expect(page.get_by_text("Renamed to Second Team.")).to_be_visible()
    expect(own).to_have_text(["Second Team", f"{force.name} (copy 2)", force.name])
    # The force page renames in place too.
    page.get_by_role("link", name=f"{force.name} (copy 2)").first.click()
    page.get_by_text("Edit name and Resources").click()
    page.get_by_label("Force name").fill("Third Team")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Third Team", level=1)).to_be_visible()
    assert_accessible(page)


# --- print -------------------------------------------------------------------------------------

# Marks the start and the end of each card, to find them in the PDF's text.
MARK_CARDS = """() => document.querySelectorAll("article.print-card").forEach((card, i) => {
  card.insertAdjacentHTML("afterbegin", `<span>card-${i}-starts</span>`);
  card.insertAdjacentHTML("beforeend", `<span>card-${i}-ends</span>`);
})"""


@pytest.mark.parametrize("view", ["desktop-light", "phone-dark"])
def test_four_students_print_on_two_a4_sheets_at_most_no_card_split(
    live_server, demo, pages, view
):
    user, force, _ = demo
    mentor = force.members.get(role="mentor")
    services.remove_member(force=force, actor=user, member_id=mentor.pk)
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:print", args=[force.pk]))
    cards = page.locator("article.print-card")
    expect(cards).to_have_count(4)
    page.evaluate(MARK_CARDS)
    pdf = page.pdf(format="A4")
    sheets = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    texts = [sheet.extract_text() for sheet in PdfReader(io.BytesIO(pdf)).pages]
    assert len(texts) == sheets
    print(f"\n[measure] {view}: four students print on {sheets} A4 sheet(s)")
    assert sheets <= 2
    for i in range(4):
        starts = [n for n, text in enumerate(texts) if f"card-{i}-starts" in text]
        ends = [n for n, text in enumerate(texts) if f"card-{i}-ends" in text]
        assert starts == ends, (i, starts, ends)  # each card whole on one sheet
        assert len(starts) == 1


@pytest.mark.parametrize("view", PHONES)
def test_the_print_page_fits_a_phone(live_server, demo, pages, view):
    user, force, _ = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("roster:print", args=[force.pk]))
    expect(page.locator("article.print-card")).to_have_count(force.members.count())
    assert horizontal_overflow(page) == {}
    # No heading runs into its neighbour ("DF (melee)" beside "DF (ranged)").
    overlaps = page.evaluate(
        """() => [...document.querySelectorAll("thead tr")].flatMap(row => {
             const cells = [...row.children].map(c => {
               const range = document.createRange();
               range.selectNodeContents(c);
               return {text: c.textContent.trim(), box: range.getBoundingClientRect(),
                       cell: c.getBoundingClientRect()};
             });
             return cells
               .filter(c => c.box.right > c.cell.right + 0.5 || c.box.left < c.cell.left - 0.5)
               .map(c => c.text);
           })"""
    )
    assert overlaps == []
    assert_accessible(page)
