"""A new player's whole journey through the UI: sign up, start a force, build the
rulebook's Emma step by step (with a server roll), add three more students until the
force is legal, print it, export it and import it again.

Only the server's dice are arranged (monkeypatched `roster.views.dice`; the live server
runs in a thread of this process). Everything else is clicks, fills and selects.
"""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import assert_accessible
from tests.roster.builders import emma, student
from tests.roster.test_rolls import ScriptedDice

FORCE = "Literature Irregulars"

# Three plain students from the add-member form's starting statistics (ME3 RA2 CA2 DF1):
# (name, club, society radio, the two free advancement lines, their document form).
STUDENTS = [
    (
        "Ann",
        "Chess Club",
        "Academic: -1 ME, +1 CA",
        ["+2 HP", "+2 FR"],
        {"society": "academic", "choice": "ME"},
        [{"line": 2}, {"line": 3}],
    ),
    (
        "Ben",
        "Football Club",
        "Sporting: -1 CA, +1 ME",
        ["+1 FR", "+2 HP"],
        {"society": "sporting", "choice": "ME"},
        [{"line": 3}, {"line": 2, "choice": "HP"}],
    ),
    (
        "Cat",
        "Robotics Club",
        "Technical: -1 ME, +1 RA",
        ["+2 DF", "+1 HP"],
        {"society": "technical", "choice": "RA"},
        [{"line": 3}, {"line": 2, "choice": "HP"}],
    ),
]


# --- helpers -------------------------------------------------------------------------


def notice(page: Page) -> Locator:
    """The builder's live region, where each htmx change says what it did."""
    return page.locator("#builder-notice")


def sign_up(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Sign up").click()
    expect(page.get_by_role("heading", name="Sign up", level=1)).to_be_visible()
    assert_accessible(page)
    page.get_by_label("Username").fill("newplayer")
    page.get_by_label("Password:", exact=True).fill("a-long-and-silly-passphrase-12")
    page.get_by_label("Password confirmation").fill("a-long-and-silly-passphrase-12")
    page.get_by_role("button", name="Create my account").click()
    expect(page.get_by_role("heading", name="My forces", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="No forces yet")).to_be_visible()
    assert_accessible(page)


def create_force(page: Page, name: str, resources: int) -> None:
    page.get_by_label("Force name").fill(name)
    page.get_by_label("Resources").fill(str(resources))
    page.get_by_role("button", name="Create force").click()
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
    expect(page.get_by_text(f"{name} is ready. Add its first member.")).to_be_visible()
    expect(page.get_by_text("No members yet.")).to_be_visible()
    assert_accessible(page)


def add_member(page: Page, name: str, base: dict[str, int], club: str, society: str) -> None:
    """Steps 1 and 2 on the add-member page; lands on the member's builder page."""
    page.get_by_role("link", name="Add a member", exact=True).click()
    expect(page.get_by_role("heading", name="Add a member")).to_be_visible()
    page.get_by_label("Name:", exact=True).fill(name)
    page.get_by_label("Role").select_option(label="Student")
    for statistic, label in [
        ("ME", "ME (melee)"),
        ("RA", "RA (ranged)"),
        ("CA", "CA (spellcasting)"),
        ("DF", "DF (defence, before +6)"),
    ]:
        page.get_by_label(label).select_option(str(base[statistic]))
    page.get_by_label("Club name").fill(club)
    page.get_by_role("radio", name=society).check()
    page.get_by_role("button", name="Add and continue").click()
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
    expect(page.get_by_text(f"Added {name}. Now choose the free advancements.")).to_be_visible()


def open_step(page: Page, name: str) -> Locator:
    """Open builder step `name` from its heading; returns the step once it has arrived.

    A closed step holds only its heading, and an open one is always fetched as it now
    stands, so waiting for its body waits on the answer, never on a timer."""
    step = page.locator(f"#step-{name}")
    body = page.locator(f"#step-{name}-body")
    if body.count() == 0:
        step.locator(".step__toggle").click()
    expect(body).to_be_visible()
    expect(step).not_to_have_attribute("aria-busy", "true")
    return step


def free_slot(page: Page, number: int) -> Locator:
    """Free advancement `number` (1 or 2) of the builder's step 3."""
    heading = page.get_by_role("heading", name=f"Free advancement {number}", exact=True)
    return page.locator(".free-slot").filter(has=heading)


def take_line(page: Page, name: str, number: int, line: str) -> None:
    """Take `line` (its option's name, e.g. "+2 HP") for free advancement `number`."""
    slot = free_slot(page, number)
    slot.get_by_role("radio", name=line, exact=True).check()
    slot.get_by_role("button", name="Take this line").click()
    entries = summary(page, name).get_by_text("Free: ")
    expect(entries.nth(number - 1)).to_contain_text(f"Free: {line}")


def summary(page: Page, name: str) -> Locator:
    """The member card beside the builder steps."""
    return page.get_by_role("complementary", name=f"{name} so far")


def expect_stats(card: Locator, name: str, stats: str) -> None:
    """`stats` like "ME1 RA1 CA4 DF8 HP12 FR3", in that order."""
    values = re.findall(r"[A-Z]{2}(\d+)", stats)
    table = card.get_by_role("table", name=f"Statistics of {name}")
    expect(table.get_by_role("cell")).to_have_text(values)


def back_to_force(page: Page) -> None:
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name=FORCE).click()
    expect(page.get_by_role("heading", name=FORCE, level=1)).to_be_visible()


def expect_force_status(page: Page, legal: bool, spent: int, resources: int) -> None:
    status = page.locator("#force-status")
    expect(status.get_by_text("Legal" if legal else "Not legal", exact=True)).to_be_visible()
    expect(status).to_contain_text(
        f"{spent} of {resources} Resources spent, {resources - spent} left."
    )


def expect_members(page: Page, names: list[str]) -> None:
    members = page.get_by_role("region", name="Members")
    expect(members.get_by_role("heading", level=3)).to_have_text(names)


# --- the journey ---------------------------------------------------------------------


def build_emma(page: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rulebook's worked example (RULINGS.md): ME1 RA1 CA4 DF8 HP12 FR3, cost 5."""
    add_member(
        page,
        "Emma",
        {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        "Literature Club",
        "Academic: -1 RA, +1 CA",
    )
    card = summary(page, "Emma")
    expect_stats(card, "Emma", "ME1 RA1 CA4 DF8 HP10 FR5")
    assert_accessible(page)

    # Free advancement 1: the Spellcasting line, rolled on the server. The first die is
    # a natural 12, so the page asks for a table; the Spellcasting table then gives a 2.
    open_step(page, "free")
    take_line(page, "Emma", 1, "Spellcasting Skill")
    dice = ScriptedDice(12, 2)
    monkeypatch.setattr("rules.dice.server_dice", lambda: dice)
    first = free_slot(page, 1)
    first.get_by_role("button", name="Roll on the Spellcasting table").click()
    expect(notice(page)).to_have_text("You rolled 12: Natural 12: roll again on any table.")
    first.get_by_label("A natural 12: roll again on any table").select_option(label="Spellcasting")
    assert_accessible(page)
    first.get_by_role("button", name="Roll on this table").click()
    expect(notice(page)).to_have_text("You rolled 2: Spell Focus.")
    expect(first.get_by_text("Last roll: 2")).to_be_attached()
    expect(card.get_by_text("Free: Spellcasting Skill: Spell Focus")).to_be_visible()
    expect(card).to_contain_text("(rolled, after a natural 12)")
    expect_stats(card, "Emma", "ME1 RA1 CA4 DF8 HP10 FR5")  # a roll costs no FR (R5)
    assert dice.faces == []

    # The rulebook's Emma picked it instead (-2 FR): the same skill, picked.
    first.get_by_text("Pick instead (-2 FR)").click()
    first.get_by_role("radio", name="Spell Focus", exact=True).check()
    first.get_by_role("button", name="Pick this skill (-2 FR)").click()
    expect(notice(page)).to_have_text("Took Spell Focus.")
    expect(card).to_contain_text("(picked)")
    expect_stats(card, "Emma", "ME1 RA1 CA4 DF8 HP10 FR3")

    # Free advancement 2: +2 HP.
    purchases = open_step(page, "purchases")
    expect(purchases.get_by_role("button", name="Buy +2 HP")).to_be_attached()
    open_step(page, "free")
    take_line(page, "Emma", 2, "+2 HP")
    expect_stats(card, "Emma", "ME1 RA1 CA4 DF8 HP12 FR3")
    # The answer held only the free step; the purchases step is fetched as it opens, and
    # now refuses the line taken free (R6: once at creation).
    purchases = open_step(page, "purchases")
    statistics = purchases.get_by_role("table", name="Statistics")
    expect(statistics.get_by_role("row", name=re.compile(r"^\+2 HP"))).to_contain_text(
        "Already taken: at creation each statistic line is taken once (R6)."
    )
    expect(purchases.get_by_role("button", name="Buy +2 HP")).to_have_count(0)
    expect(page.locator("#step-free-body")).to_have_count(0)  # one step open at a time

    # Equipment (R7, R8), then a core school and a spell (R9).
    open_step(page, "equipment")
    page.get_by_role("button", name="Add Simple Weapon").click()
    expect(notice(page)).to_have_text("Added Simple Weapon.")
    page.get_by_role("button", name="Add Medical Kit").click()
    expect(notice(page)).to_have_text("Added Medical Kit.")
    open_step(page, "spells")
    page.get_by_label("Core school").select_option(label="Restoration")
    page.get_by_role("button", name="Save school").click()
    expect(notice(page)).to_have_text("Saved the core school.")
    page.get_by_role("button", name="Learn Healing Spring").click()
    expect(notice(page)).to_have_text("Learnt Healing Spring.")

    # The card: the worked example's statistics, cost 5, and both rolls with their dice.
    expect_stats(card, "Emma", "ME1 RA1 CA4 DF8 HP12 FR3")
    cost = card.get_by_role("region", name="Cost of Emma")
    expect(cost).to_contain_text(
        re.compile(r"Advancements\s*0\s*Equipment\s*5\s*Total\s*5 Resources")
    )
    expect(card.get_by_role("region", name="Spells of Emma")).to_contain_text("Healing Spring")
    card.get_by_text("Roll history (2)").click()
    rolls = card.get_by_role("table", name="Skill rolls of Emma")
    by_you = re.compile(r"by you")
    expect(rolls.get_by_role("row").nth(1).get_by_role("cell")).to_have_text(
        [by_you, "Free advancement 1", "Spellcasting", "12", "Natural 12: roll again on any table"]
    )
    expect(rolls.get_by_role("row").nth(2).get_by_role("cell")).to_have_text(
        [by_you, "Free advancement 1", "Spellcasting", "2", "Spell Focus"]
    )
    expect_force_status(page, legal=False, spent=5, resources=50)
    assert_accessible(page)


def add_plain_student(page: Page, name: str, club: str, society: str, lines: list[str]) -> None:
    add_member(page, name, {"ME": 3, "RA": 2, "CA": 2, "DF": 1}, club, society)
    open_step(page, "free")
    take_line(page, name, 1, lines[0])
    take_line(page, name, 2, lines[1])
    expect(summary(page, name).get_by_text("No equipment.")).to_be_visible()
    assert_accessible(page)


def check_print_page(page: Page) -> None:
    page.get_by_role("navigation", name="Force actions").get_by_role("link", name="Print").click()
    expect(page.get_by_role("heading", name=FORCE, level=1)).to_be_visible()
    # include_hidden: once printing hides them, these must still be found (to be hidden).
    nav = page.get_by_role("navigation", name="Main", include_hidden=True)
    back = page.get_by_role("link", name=f"Back to {FORCE}", include_hidden=True)
    buttons = page.get_by_role("button", include_hidden=True)
    expect(buttons).to_have_text(["Log out", "Print"])  # site.js shows "Print"
    for on_screen in [nav, back, *buttons.all()]:
        expect(on_screen).to_be_visible()
    assert_accessible(page)

    page.emulate_media(media="print")
    for gone in [nav, back, *buttons.all()]:
        expect(gone).to_be_hidden()
    cards = page.get_by_role("article")
    expect(cards).to_have_count(4)
    breaks = cards.evaluate_all("cards => cards.map(c => getComputedStyle(c).breakInside)")
    assert breaks == ["avoid"] * 4
    # The force's total and its legality head the sheet, above the first card.
    total = page.get_by_text("5 / 50 Resources", exact=True)
    legal = page.get_by_text("Legal", exact=True)
    expect(total).to_be_visible()
    expect(legal).to_be_visible()
    expect(page.get_by_text("4 members", exact=True)).to_be_visible()
    first_card_top = cards.first.bounding_box()["y"]
    assert total.bounding_box()["y"] < first_card_top
    assert legal.bounding_box()["y"] < first_card_top
    expect(cards.first.get_by_role("heading", name="Emma")).to_be_visible()
    page.emulate_media(media="screen")


def export(page: Page) -> tuple[Path, dict]:
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export JSON").click()
    download = download_info.value
    assert download.suggested_filename == "literature-irregulars.dbd-roster.json"
    path = Path(download.path())
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_a_new_player_builds_prints_exports_and_imports_a_force(live_server, page, monkeypatch):
    page.set_default_timeout(10_000)  # a local server answers fast; fail early if not

    # 1. Sign up from the nav; an empty "My forces".
    sign_up(page, live_server.url)

    # 2. A force with 50 Resources.
    create_force(page, FORCE, 50)

    # 3. Emma, step by step.
    build_emma(page, monkeypatch)
    back_to_force(page)
    # One student is not a force yet (R10).
    expect_force_status(page, legal=False, spent=5, resources=50)
    expect(page.get_by_text("A force has 4 to 6 students; this has 1.")).to_be_visible()
    assert_accessible(page)

    built_url = page.url

    # 4. Three more students make it legal.
    for name, club, society, lines, _, _ in STUDENTS:
        add_plain_student(page, name, club, society, lines)
        back_to_force(page)
    expect_force_status(page, legal=True, spent=5, resources=50)
    expect_members(page, ["Emma", "Ann", "Ben", "Cat"])
    expect(page.get_by_text("A force has 4 to 6 students")).to_have_count(0)
    assert_accessible(page)

    # 5. The print sheet.
    check_print_page(page)
    page.go_back()
    expect(page.get_by_role("heading", name=FORCE, level=1)).to_be_visible()

    # 6. Export: a dbd-roster/1 document with Emma exactly as in the rulebook.
    path, document = export(page)
    assert document["format"] == "dbd-roster/1"
    assert (document["name"], document["resources"]) == (FORCE, 50)
    assert [m["name"] for m in document["members"]] == ["Emma", "Ann", "Ben", "Cat"]
    assert document["members"][0] == emma()
    for exported, (name, club, _, _, society, free) in zip(
        document["members"][1:], STUDENTS, strict=True
    ):
        assert exported == student(
            name,
            club={"name": club, **society},
            base={"ME": 3, "RA": 2, "CA": 2, "DF": 1},
            free_advancements=free,
        )

    # ... and import it again as a new force.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="My forces").click()
    page.get_by_role("link", name="Import from a file").click()
    expect(page.get_by_role("heading", name="Import a force", level=1)).to_be_visible()
    assert_accessible(page)
    page.get_by_label("Upload a file").set_input_files(path)
    page.get_by_role("button", name="Import").click()
    # One's own export comes back as a copy, so the two can be told apart.
    expect(
        page.get_by_text(f"Imported as {FORCE} (copy): you already have a force called {FORCE}.")
    ).to_be_visible()
    expect(page.get_by_role("heading", name=f"{FORCE} (copy)", level=1)).to_be_visible()
    assert page.url != built_url  # a new force, not the one exported
    expect_force_status(page, legal=True, spent=5, resources=50)
    expect_members(page, ["Emma", "Ann", "Ben", "Cat"])
    emma_card = page.get_by_role("article", name="Emma")
    emma_card.locator(".member-fold__summary").click()  # the force page folds its cards
    expect_stats(emma_card, "Emma", "ME1 RA1 CA4 DF8 HP12 FR3")
    expect(emma_card.get_by_role("region", name="Cost of Emma")).to_contain_text(
        re.compile(r"Total\s*5 Resources")
    )
    assert_accessible(page)

    # Two forces now, both legal.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="My forces").click()
    expect(page.get_by_role("heading", level=2).filter(has_text=FORCE)).to_have_text(
        [f"{FORCE} (copy)", FORCE]  # the newest first
    )
    expect(page.get_by_text("Legal", exact=True)).to_have_count(2)
