"""Two players' short campaign through the UI, each in their own browser context.

Alice starts a campaign and sends Bob the invitation; both enter a freeform force;
Alice records a battle on the one-form page (R14), Bob confirms it, and the standings,
Resources (R15), XP and levels (R16) follow. Alice takes two level-ups (R17): a statistic
line, and a skill line rolled on the server. Then the charts and the log.

Only the users, their freeform forces and the server's dice (monkeypatched
`rules.dice.server_dice`; the live server runs in a thread of this process) are arranged;
everything in the campaign is clicks, fills and checks. Every distinct campaign page
gets an axe check.
"""

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from roster.demo import demo_force
from roster.services import import_force
from tests.browser.conftest import PASSWORD, assert_accessible, log_in
from tests.roster.builders import force, student
from tests.roster.test_rolls import ScriptedDice

CAMPAIGN = "Spring League"
RED = "Literature Club Irregulars"  # Alice's: the demo force (Emma, Julius, Kenji, Mio, Ms Tanaka)
BLUE = "Robotics Rebels"  # Bob's: four plain technical students, Ann with a Tool Kit
SCENARIO = "Capture the Flag"
PLAYED_ON = ("2025-03-01", "1 Mar 2025")
NO_XP_YET = "\u2013"  # an en dash in a pending battle's XP column

# Initial roster costs (R7): Emma 5, Julius 10 + Hand Weapon 4, Kenji's Traditional Ranged
# Weapon 6, Mio's Light Pistol 4 + Tool Kit 10; Ann's Tool Kit 10.
RED_COST, BLUE_COST = 39, 10
RED_START, BLUE_START = 50 - RED_COST, 50 - BLUE_COST


# --- helpers -------------------------------------------------------------------------


def heading(page: Page, name: str) -> Locator:
    return page.get_by_role("heading", name=name, level=1, exact=True)


def message(page: Page) -> Locator:
    """The campaign pages' status message (Django's messages)."""
    return page.get_by_role("status")


def tab(page: Page, name: str) -> None:
    """Follow a link of the campaign's own navigation."""
    page.get_by_role("navigation", name=CAMPAIGN).get_by_role("link", name=name).click()


def to_dashboard(page: Page) -> None:
    tab(page, "Dashboard")
    expect(heading(page, CAMPAIGN)).to_be_visible()


def standings_row(page: Page, force_name: str) -> Locator:
    table = page.get_by_role("region", name="Standings table")
    return table.get_by_role("row").filter(has=page.get_by_role("rowheader", name=force_name))


def expect_standing(
    page: Page, force_name: str, player: str, points_pwdl: tuple[int, ...], resources: int
) -> None:
    """One standings row: # is left out; `points_pwdl` = (points, played, won, drawn, lost)."""
    cells = standings_row(page, force_name).get_by_role("cell")
    expected = [str(n) for n in points_pwdl] + [str(resources)]
    expect(cells.nth(8)).to_have_text(player)
    for i, value in enumerate(expected, start=1):
        expect(cells.nth(i)).to_have_text(value)


def level_ups_waiting(page: Page) -> Locator:
    return page.get_by_role("region", name="Level-ups waiting")


def enter_force(page: Page, force_name: str, cost: int, members: int) -> None:
    page.get_by_role("link", name="Enter a force").first.click()
    expect(heading(page, "Enter a force")).to_be_visible()
    choice = page.get_by_role("radio", name=re.compile(re.escape(force_name)))
    expect(choice.locator("xpath=..")).to_contain_text(f"Costs {cost}, {members} members")
    assert_accessible(page)
    choice.check()
    page.get_by_role("button", name="Enter this force").click()
    expect(heading(page, force_name)).to_be_visible()
    expect(message(page)).to_contain_text(f"{force_name} is in!")


def member_results(page: Page, force_name: str) -> Locator:
    """The record-a-battle form's table of one force's members."""
    return page.get_by_role("region", name=f"Members of {force_name}")


def tick_force(page: Page, label: str, force_name: str) -> None:
    """Tick a force; htmx loads its members' rows (one request at a time: htmx drops a
    change while the previous one is in flight)."""
    page.get_by_role("checkbox", name=label).check()
    expect(member_results(page, force_name)).to_be_visible()


def fill_result(
    page: Page,
    force_name: str,
    member: str,
    *,
    took_part: bool = True,
    unconscious: bool = False,
    out_of_action: bool = False,
    enemies: int = 0,
    objectives: int = 0,
) -> None:
    rows = member_results(page, force_name)
    rows.get_by_label(f"{member} took part").set_checked(took_part)
    rows.get_by_label(f"{member} went Unconscious").set_checked(unconscious)
    rows.get_by_label(f"{member} went Out of Action").set_checked(out_of_action)
    rows.get_by_role("spinbutton", name=f"Enemies {member} took Out of Action").fill(str(enemies))
    rows.get_by_role("spinbutton", name=f"Objectives {member} achieved").fill(str(objectives))


def battle_results(page: Page, force_name: str) -> Locator:
    return page.get_by_role("region", name=f"Results of {force_name}")


def expect_result_row(table: Locator, member: str, cells: list[str]) -> None:
    """A member's row on the battle page: Unconscious, Out of Action, enemies,
    objectives, XP."""
    row = table.get_by_role("row").filter(has=table.page.get_by_role("rowheader", name=member))
    expect(row.get_by_role("cell")).to_have_text(cells)


def member_row(page: Page, member: str) -> Locator:
    """A member's row in the force page's "The force now" table."""
    table = page.get_by_role("region", name="Members table")
    return table.get_by_role("row").filter(has=page.get_by_role("rowheader", name=member))


def expect_level_and_xp(page: Page, member: str, level: int, xp: int) -> None:
    cells = member_row(page, member).get_by_role("cell")
    expect(cells.nth(0)).to_have_text(str(level))
    expect(cells.nth(1)).to_have_text(str(xp))


def expect_balance(page: Page, resources: int) -> None:
    """The force page's "Resources to spend"."""
    stat = page.locator(".camp-stats > div").filter(has=page.get_by_text("Resources to spend"))
    expect(stat.get_by_role("definition")).to_have_text(str(resources))


def expect_ledger(page: Page, entries: list[tuple[str, str, str]]) -> None:
    """The force page's Resources ledger, oldest first: (what, change, running balance).
    Folded: opened first; its summary names the last balance."""
    fold = page.locator("details.ledger-fold")
    if fold.get_attribute("open") is None:
        fold.locator("summary").click()
    expect(fold.locator("summary")).to_contain_text(f"Balance {entries[-1][2]} ·")
    rows = page.get_by_role("region", name="Ledger table").get_by_role("row")
    expect(rows).to_have_count(len(entries) + 1)  # and the header
    for i, (what, change, balance) in enumerate(entries, start=1):
        expect(rows.nth(i).get_by_role("rowheader")).to_contain_text(what)
        expect(rows.nth(i).get_by_role("cell").nth(2)).to_have_text(change)
        expect(rows.nth(i).get_by_role("cell").nth(3)).to_have_text(balance)


def member_card(page: Page, member: str) -> Locator:
    """A member's card under "Members over time" on the force page."""
    return page.get_by_role("article").filter(
        has=page.get_by_role("heading", name=re.compile(rf"^{member}\b"), level=3)
    )


def open_level_up(page: Page, member: str) -> None:
    """From the dashboard's "Level-ups waiting" to the member's level-up page."""
    waiting = level_ups_waiting(page)
    entry = waiting.get_by_role("listitem").filter(has_text=member)
    expect(entry).to_contain_text("level up!")
    expect(entry).to_contain_text("Level 2, 1 to take")
    entry.get_by_role("link", name=f"Take it for {member}").click()
    expect(heading(page, f"Level-up for {member}")).to_be_visible()
    expect(page.get_by_text("level 2 · 3 XP · 0 level-ups taken")).to_be_visible()


def take_level_up(page: Page, member: str, line: str) -> Locator:
    """Choose `line` and take it; lands on the force page at the member's card."""
    page.get_by_role("radio", name=line, exact=True).check()
    page.get_by_role("button", name="Take the level-up").click()
    expect(heading(page, RED)).to_be_visible()
    expect(message(page)).to_have_text(f"{member} levelled up. Nicely done!")
    card = member_card(page, member)
    expect(card.get_by_role("heading", level=3)).not_to_contain_text("level up!")
    expect(card.get_by_role("link", name=f"Take the level-up for {member}")).to_have_count(0)
    return card


# --- the campaign --------------------------------------------------------------------


def test_two_players_play_a_short_campaign(
    live_server, browser, django_user_model, monkeypatch: pytest.MonkeyPatch
):
    url = live_server.url
    alice_user = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob_user = django_user_model.objects.create_user("bob", password=PASSWORD)
    import_force(owner=alice_user, document=demo_force())
    blue = force(
        student("Ann", equipment=["tool-kit"]),
        student("Ben"),
        student("Cat"),
        student("Dan"),
        name=BLUE,
    )
    import_force(owner=bob_user, document=blue)

    alice_context, bob_context = browser.new_context(), browser.new_context()
    try:
        alice = log_in(alice_context, url, "alice")
        bob = log_in(bob_context, url, "bob")

        # 1. Alice starts the campaign from the Campaigns page; the dashboard has the link.
        alice.get_by_role("navigation", name="Main").get_by_role("link", name="Campaigns").click()
        expect(heading(alice, "Campaigns")).to_be_visible()
        expect(alice.get_by_role("heading", name="No campaigns yet")).to_be_visible()
        assert_accessible(alice)
        alice.get_by_label("Campaign name").fill(CAMPAIGN)
        alice.get_by_role("button", name="Start campaign").click()
        expect(heading(alice, CAMPAIGN)).to_be_visible()
        expect(message(alice)).to_have_text(
            f"{CAMPAIGN} is ready. Share the invitation link with your players."
        )
        expect(alice.get_by_text("Organised by alice (that's you).")).to_be_visible()
        invite = alice.get_by_label("Invitation link")
        expect(invite).to_have_value(re.compile(rf"^{re.escape(url)}/campaigns/join/[^/]+/$"))
        invite_url = invite.input_value()
        assert_accessible(alice)

        # 2. Bob opens the link and joins.
        bob.goto(invite_url)
        expect(heading(bob, f"Join {CAMPAIGN}?")).to_be_visible()
        expect(bob.get_by_text(f"alice invited you to their campaign {CAMPAIGN}.")).to_be_visible()
        assert_accessible(bob)
        bob.get_by_role("button", name="Join the campaign").click()
        expect(heading(bob, CAMPAIGN)).to_be_visible()
        expect(message(bob)).to_have_text(
            f"Welcome to {CAMPAIGN}! Enter a force when you are ready."
        )

        # 3. Each enters their freeform force; the standings show both.
        enter_force(alice, RED, RED_COST, 5)
        expect_balance(alice, RED_START)
        enter_force(bob, BLUE, BLUE_COST, 4)
        to_dashboard(alice)
        expect_standing(alice, RED, "alice", (0, 0, 0, 0, 0), RED_START)
        expect_standing(alice, BLUE, "bob", (0, 0, 0, 0, 0), BLUE_START)

        # 4. Alice records the battle on the one form: Red wins.
        tab(alice, "Record a battle")
        expect(heading(alice, "Record a battle")).to_be_visible()
        alice.get_by_label("Date played").fill(PLAYED_ON[0])
        alice.get_by_label("Scenario").fill(SCENARIO)
        tick_force(alice, f"{RED} (alice)", RED)
        tick_force(alice, f"{BLUE} (bob)", BLUE)
        alice.get_by_role("radio", name=f"{RED} won").check()
        # Emma takes an enemy out and Kenji an objective: 1 + 1 + 1 = 3 XP, level 2 (R16).
        fill_result(alice, RED, "Emma", enemies=1)
        fill_result(alice, RED, "Kenji", objectives=1)
        # R14b: each side's enemies taken Out of Action are the other side's members
        # marked so: Emma took Ann, Cat took Julius.
        fill_result(alice, RED, "Julius", unconscious=True, out_of_action=True)
        fill_result(alice, BLUE, "Ann", out_of_action=True)
        fill_result(alice, BLUE, "Cat", enemies=1)
        fill_result(alice, BLUE, "Dan", took_part=False)  # sat this one out
        assert_accessible(alice)
        alice.get_by_role("button", name="Record the battle").click()

        expect(heading(alice, SCENARIO)).to_be_visible()
        expect(message(alice)).to_have_text(
            "Battle recorded. It counts once an opponent (or the organiser) confirms it."
        )
        expect(alice.get_by_text("Pending confirmation", exact=True)).to_be_visible()
        expect(alice.get_by_text("Played Saturday 1 March 2025")).to_be_visible()
        expect(alice.get_by_text("Nothing counts yet")).to_be_visible()
        red_results = battle_results(alice, RED)
        expect_result_row(red_results, "Emma", ["No", "No", "1", "0", NO_XP_YET])
        expect_result_row(red_results, "Julius", ["Yes", "Yes", "0", "0", NO_XP_YET])
        expect(battle_results(alice, BLUE).get_by_role("rowheader")).to_have_text(
            ["Ann", "Ben", "Cat"]  # Dan sat it out
        )
        assert_accessible(alice)

        # Pending: the standings and levels are as they were.
        to_dashboard(alice)
        expect_standing(alice, RED, "alice", (0, 0, 0, 0, 0), RED_START)
        expect_standing(alice, BLUE, "bob", (0, 0, 0, 0, 0), BLUE_START)
        pending = alice.get_by_role("region", name="Waiting for confirmation")
        expect(pending.get_by_role("link", name=SCENARIO, exact=True)).to_be_visible()
        expect(pending).to_contain_text("Recorded by alice.")
        # She recorded it, so she may withdraw it; as the organiser she could also confirm.
        withdraw = f"Withdraw {SCENARIO}, {PLAYED_ON[1]}"
        expect(pending.get_by_role("link", name=withdraw)).to_be_visible()
        expect(level_ups_waiting(alice)).to_contain_text("No one is waiting to level up.")

        # 5. Bob confirms from his dashboard (htmx); now it counts.
        to_dashboard(bob)
        bob_pending = bob.get_by_role("region", name=re.compile("^Waiting for confirmation"))
        expect(bob_pending).to_contain_text("1 for you")
        bob_pending.get_by_role("button", name=f"Confirm {SCENARIO}, {PLAYED_ON[1]}").click()
        expect(message(bob)).to_have_text(f"Confirmed {SCENARIO}. XP and Resources are in.")
        expect(bob_pending).to_contain_text("Nothing is waiting.")
        expect_standing(bob, RED, "alice", (3, 1, 1, 0, 0), RED_START + 10)
        expect_standing(bob, BLUE, "bob", (0, 1, 0, 0, 1), BLUE_START + 5)
        standings = bob.get_by_role("region", name="Standings table")
        expect(standings.get_by_role("rowheader")).to_have_text([RED, BLUE])
        recent = bob.get_by_role("region", name="Recent battles table")
        expect(recent.get_by_role("row").nth(1)).to_contain_text(f"{RED} won against {BLUE}")
        expect(recent.get_by_role("row").nth(1)).to_contain_text("Confirmed")
        # Bob sees Alice's level-ups waiting, but they are hers to take.
        expect(level_ups_waiting(bob)).to_contain_text("Emma of " + RED)
        take_it = level_ups_waiting(bob).get_by_role("link", name=re.compile("^Take it"))
        expect(take_it).to_have_count(0)
        assert_accessible(bob)

        # The battle page now shows the XP given.
        recent.get_by_role("link", name=SCENARIO).click()
        expect(heading(bob, SCENARIO)).to_be_visible()
        expect(bob.get_by_text("Confirmed by bob on")).to_be_visible()
        expect(bob.get_by_role("button", name="Confirm the result")).to_have_count(0)
        expect_result_row(battle_results(bob, RED), "Emma", ["No", "No", "1", "0", "+3"])
        expect_result_row(battle_results(bob, RED), "Kenji", ["No", "No", "0", "1", "+3"])
        expect_result_row(battle_results(bob, RED), "Mio", ["No", "No", "0", "0", "+2"])
        expect_result_row(battle_results(bob, BLUE), "Ann", ["No", "Yes", "0", "0", "+1"])
        expect_result_row(battle_results(bob, BLUE), "Cat", ["No", "No", "1", "0", "+2"])
        assert_accessible(bob)

        # Bob's force history: the ledger with its running balance, and each member's XP.
        bob.get_by_role("link", name=BLUE).first.click()
        expect(heading(bob, BLUE)).to_be_visible()
        expect_ledger(
            bob,
            [
                ("Starting Resources (R11)", "+50", "50"),
                ("Initial roster", f"-{BLUE_COST}", str(BLUE_START)),
                (f"Loss: {SCENARIO} ({PLAYED_ON[0]})", "+5", str(BLUE_START + 5)),
            ],
        )
        expect_level_and_xp(bob, "Cat", 1, 2)
        expect_level_and_xp(bob, "Dan", 1, 0)
        # Each member's battles are folded, so the page stays short on a phone.
        member_card(bob, "Cat").get_by_text("Battles of Cat (1)").click()
        cat = member_card(bob, "Cat").get_by_role("region", name="Battles of Cat")
        expect(cat.get_by_role("row").nth(1)).to_contain_text("1 enemy out.")
        assert_accessible(bob)

        # 6. Alice's Emma and Kenji reached level 2 (3 XP); Alice takes both level-ups.
        alice.reload()
        expect_standing(alice, RED, "alice", (3, 1, 1, 0, 0), RED_START + 10)
        expect(level_ups_waiting(alice).get_by_role("listitem")).to_have_count(2)
        open_level_up(alice, "Emma")
        assert_accessible(alice)
        emma = take_level_up(alice, "Emma", "+2 HP")
        expect(emma.get_by_role("list")).to_contain_text("+2 HP")
        expect(emma.get_by_role("list")).not_to_contain_text("line 2")
        expect(emma).to_contain_text("Level 2 · 3 XP · next level at 7 XP")
        expect_level_and_xp(alice, "Emma", 2, 3)
        hp = member_row(alice, "Emma").get_by_role("cell").nth(6)
        expect(hp).to_have_text("14")  # the demo's Emma had HP12

        # A skill line, rolled on the server: a 3 on the Movement table is Wall Run.
        dice = ScriptedDice(3)
        monkeypatch.setattr("rules.dice.server_dice", lambda: dice)
        to_dashboard(alice)
        expect(level_ups_waiting(alice).get_by_role("listitem")).to_have_count(1)
        open_level_up(alice, "Kenji")
        # Each skill line offers its own table to pick from, not every skill.
        legends = alice.locator("details.pick legend").all_text_contents()
        assert legends == ["Melee skills", "Ranged skills", "Movement skills"]
        # The roll happens in place: the page shows the die, the table and the skill,
        # with a re-roll (its real FR cost) and a pick right there.
        alice.get_by_role("radio", name="Movement Skill", exact=True).check()
        alice.get_by_role("button", name="Take the level-up").click()
        expect(message(alice)).to_have_text("Kenji levelled up. Nicely done!")
        roll = alice.get_by_role("region", name="The roll for the Movement Skill")
        expect(roll.locator(".die")).to_have_text(["3"])
        expect(roll).to_contain_text("On the Movement table: Kenji has Wall Run.")
        expect(roll.get_by_role("button", name="Roll again (costs 1 FR)")).to_be_visible()
        expect(
            roll.get_by_role("button", name="Pick this skill instead (costs 2 FR)")
        ).to_be_visible()
        assert_accessible(alice)
        alice.get_by_role("link", name=RED).first.click()
        expect(heading(alice, RED)).to_be_visible()
        kenji = member_card(alice, "Kenji")
        expect(kenji.get_by_role("list")).to_contain_text("Movement Skill: Wall Run")
        kenji.get_by_text("Level-up rolls (1)").click()
        expect(kenji).to_contain_text("Movement table, dice 3 → Wall Run")
        assert dice.faces == []
        expect_ledger(
            alice,
            [
                ("Starting Resources (R11)", "+50", "50"),
                ("Initial roster", f"-{RED_COST}", str(RED_START)),
                (f"Win: {SCENARIO} ({PLAYED_ON[0]})", "+10", str(RED_START + 10)),
            ],
        )  # level-ups are free (R17)
        assert_accessible(alice)

        to_dashboard(alice)
        expect(level_ups_waiting(alice)).to_contain_text("No one is waiting to level up.")

        # 7. Charts and log.
        tab(alice, "Charts")
        expect(heading(alice, "Charts")).to_be_visible()
        resources = alice.get_by_role("img", name=re.compile("^Resources after each battle"))
        expect(resources).to_be_visible()
        expect(resources).to_have_accessible_name(
            re.compile(f"Now: {RED} {RED_START + 10}; {BLUE} {BLUE_START + 5}\\.$")
        )
        for name in (RED, BLUE):
            xp = alice.get_by_role("img", name=re.compile(f"^XP of {re.escape(name)}'s members"))
            expect(xp).to_be_visible()
        red_xp = alice.get_by_role("img", name=re.compile(f"^XP of {RED}'s members"))
        expect(red_xp).to_have_accessible_name(re.compile(r"Emma 3; Julius 2; Kenji 3"))
        assert_accessible(alice)

        tab(alice, "Log")
        expect(heading(alice, "Campaign log")).to_be_visible()
        entries = alice.get_by_role("list").filter(has_text="recorded").get_by_role("listitem")
        expect(entries).to_have_text(
            [  # newest first
                re.compile("Kenji took a level-up"),
                re.compile("Emma took a level-up"),
                re.compile(
                    rf"bob confirmed {SCENARIO} \({PLAYED_ON[0]}\)\. "
                    r"Level up: .*Emma reached level 2.*Kenji reached level 2"
                ),
                re.compile(
                    rf"alice recorded {SCENARIO} on {PLAYED_ON[0]}: {RED} vs {BLUE}, "
                    rf"won by {RED}; waiting for confirmation\."
                ),
                re.compile(f"bob entered {BLUE}"),
                re.compile(f"alice entered {RED}"),
                re.compile("bob joined"),
                re.compile(f"{CAMPAIGN}"),
            ]
        )
        assert_accessible(alice)

        tab(alice, "House rules")
        expect(heading(alice, "House rules")).to_be_visible()
        expect(alice.get_by_role("heading", name="Change the house rules")).to_be_visible()
        assert_accessible(alice)
    finally:
        alice_context.close()
        bob_context.close()
