"""The campaign's pages keep up with the player (issue #31): every figure of money agrees
with the ledger after a purchase, which is asked about once; the level-up page offers the
builder's pickers; the loose ends are tied.

Each check runs in the views it concerns (desktop 1280x800 and phone 390x844, light and
dark), waits only on states of the page, and ends with axe.
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaign import services
from campaign.models import CampaignForce
from campaign.selectors import members_who_fought
from tests.browser.conftest import (
    PASSWORD,
    VIEWS,
    assert_accessible,
    horizontal_overflow,
    htmx_settled,
)
from tests.browser.test_builder_pages import SMALL_CONTROLS

ALL_VIEWS = list(VIEWS)


def demo_copy() -> CampaignForce:
    """The demo player's copy of their force in the Spring Term League."""
    return CampaignForce.objects.select_related("force").get(player__username="demo")


def resources_figures(page: Page) -> dict[str, int]:
    """Every figure of Resources left on the member page: the header's status and the
    "Between battles" box."""
    header = page.locator("#resources-text").inner_text()
    box = page.locator("#between-balance").inner_text()
    return {
        "header": int(re.search(r"Resources spent, (\d+) left\.", header)[1]),
        "between battles": int(re.fullmatch(r"(\d+) Resources left to spend\.", box)[1]),
    }


# --- money that agrees --------------------------------------------------------------------


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_every_resources_figure_is_the_ledger_s_after_a_purchase(live_server, demo, pages, view):
    user, _, _ = demo
    cf = demo_copy()
    julius = cf.force.members.get(name="Julius")  # has fought: buys between battles
    page = pages(user, view)
    url = reverse("roster:member", args=[cf.force_id, julius.pk])
    page.goto(f"{live_server.url}{url}?step=equipment")
    balance = services.balance_of(cf)
    assert resources_figures(page) == {"header": balance, "between battles": balance}

    # The first tap asks, on the row, what it takes and that it cannot be undone.
    page.get_by_role("button", name="Add Light Shield").click()
    pay = page.get_by_role("button", name=re.compile(r"^Pay \d+ for Light Shield$"))
    expect(pay).to_be_visible()
    expect(pay).to_be_focused()
    cost = int(re.search(r"Pay (\d+)", pay.inner_text())[1])
    notice = (
        f"Buying Light Shield takes {cost} of the {balance} Resources left, and cannot be "
        "undone: confirm beside it."
    )
    expect(page.locator("#builder-notice")).to_have_text(notice)
    expect(page.locator("#add-light-shield-why")).to_have_text(
        f"Pays {cost} of the {balance} Resources left. It cannot be undone (R18)."
    )
    assert services.balance_of(cf) == balance  # nothing spent yet
    assert_accessible(page)

    # The second pays; every figure on the page is the ledger's new balance.
    pay.click()
    expect(page.locator("#builder-notice")).to_have_text("Added Light Shield.")
    htmx_settled(page)
    after = services.balance_of(cf)
    assert after == balance - cost
    assert resources_figures(page) == {"header": after, "between battles": after}
    # And so does the page loaded afresh.
    page.reload()
    assert resources_figures(page) == {"header": after, "between battles": after}


# --- the level-up page offers the builder's pickers ---------------------------------------


def expected_lines(society) -> list[str]:
    """A society's table as the builder words it: "+1 ME" for each choice of an "or"
    line, the line's own name otherwise (never "Line 1: ...")."""
    names = []
    for line in society.lines.values():
        if line.kind == "statistic" and line.needs_choice:
            names += [f"{o.amount:+d} {o.statistic}" for o in line.options]
        else:
            names.append(line.label)
    return names


def radio_rows(scope) -> list[dict]:
    """Each radio of a list: its label, whether it can be ticked, its effect and reason."""
    return scope.locator(".radio").evaluate_all(
        """rows => rows.map(row => ({
             name: row.querySelector("label").textContent.trim(),
             disabled: row.querySelector("input").disabled,
             effect: (row.querySelector(".option__effect") || {}).textContent || "",
             reason: (row.querySelector(".reason") || {}).textContent || "",
           }))"""
    )


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_the_level_up_picker_offers_each_society_line_s_own_table(live_server, demo, pages, view):
    from rules.loader import get_catalogue

    user, _, campaign = demo
    cf = demo_copy()
    catalogue = get_catalogue()
    owned_by = {result["name"]: set(result["skills"]) for result in cf.force.evaluation["members"]}
    page = pages(user, view)
    owned_seen = []
    # Emma is academic, Julius sporting, Mio technical; each has a level-up waiting.
    for name in ("Emma", "Julius", "Mio"):
        member = cf.force.members.get(name=name)
        society = catalogue.societies[member.society]
        url = reverse("campaign:level_up", args=[campaign.pk, cf.pk, member.pk])
        page.goto(live_server.url + url)
        lines = page.get_by_role("group", name=f"Lines of the {society.name} table")
        assert [row["name"] for row in radio_rows(lines)] == expected_lines(society)
        expect(page.get_by_text(re.compile(r"\bLine \d"))).to_have_count(0)
        skill_lines = [line for line in society.lines.values() if line.kind == "skill"]
        picks = page.locator("details.pick")
        expect(picks).to_have_count(len(skill_lines))
        for details, line in zip(picks.all(), skill_lines, strict=True):
            table = catalogue.skill_categories[line.skill_category]
            expect(details.locator("summary")).to_have_text(f"{line.label}: pick instead (-2 FR)")
            details.locator("summary").click()
            group = details.get_by_role("group", name=f"{table.name} skills")
            rows = radio_rows(group)
            # Only the line's own table, each skill with its effect.
            assert [row["name"] for row in rows] == [s.name for s in table.skills]
            assert all(row["effect"] for row in rows)
            for row, skill in zip(rows, table.skills, strict=True):
                if skill.key in owned_by[name]:
                    owned_seen.append(skill.key)
                    assert (row["disabled"], row["reason"]) == (True, "Already has it."), row
                elif not row["disabled"]:
                    assert row["reason"] == ""
        assert_accessible(page)
    assert owned_seen  # an owned skill was offered, and refused with its reason

    # Mio picks from his Technical line's table with that line's own button.
    mio = cf.force.members.get(name="Mio")
    page.goto(live_server.url + reverse("campaign:level_up", args=[campaign.pk, cf.pk, mio.pk]))
    technical = page.locator("details.pick", has_text="Technical Skill: pick instead")
    technical.locator("summary").click()
    choice = next(row for row in radio_rows(technical) if not row["disabled"])
    technical.get_by_role("radio", name=choice["name"], exact=True).check()
    technical.get_by_role("button", name="Pick this skill for the Technical Skill (-2 FR)").click()
    expect(page.get_by_role("status")).to_contain_text("Mio levelled up. Nicely done!")
    mio.refresh_from_db()
    assert mio.level_ups[-1]["method"] == "picked"
    assert catalogue.skills[mio.level_ups[-1]["skill"]].name == choice["name"]


# --- loose ends -----------------------------------------------------------------------------

PAGE_HEIGHT = "() => document.documentElement.scrollHeight"


def ledger_figures(page: Page) -> dict[str, int]:
    """Every figure of Resources left on the campaign's force page: the one at the top,
    the ledger's summary and its last line's running balance."""
    top = page.locator(".camp-stats > div", has=page.get_by_text("Resources to spend"))
    rows = page.get_by_role("region", name="Ledger table").get_by_role("row")
    return {
        "top": int(top.get_by_role("definition").inner_text()),
        "summary": int(page.get_by_test_id("ledger-balance").inner_text()),
        "last line": int(rows.last.get_by_role("cell").last.inner_text()),
    }


@pytest.mark.parametrize("view", ["phone-light", "phone-dark"])
def test_the_campaign_force_page_folds_members_over_time(live_server, demo, pages, view):
    user, _, campaign = demo
    cf = demo_copy()
    page = pages(user, view)
    page.goto(live_server.url + reverse("campaign:force", args=[campaign.pk, cf.pk]))
    height = page.evaluate(PAGE_HEIGHT)
    print(f"\n[measure] {view}: the campaign's force page is {height} px tall")
    histories = page.locator("#progress-title ~ article details.member-history")
    fought = members_who_fought(force_id=cf.force_id)
    expect(histories).to_have_count(len(fought))
    for history in histories.all():
        assert history.get_attribute("open") is None
    # Each member's heading, level and level-up button stay in sight; the battles open.
    emma = page.locator("article", has=page.get_by_role("heading", name=re.compile("^Emma")))
    expect(emma.get_by_role("link", name="Take the level-up for Emma")).to_be_visible()
    battles = emma.get_by_role("region", name="Battles of Emma")
    expect(battles).to_be_hidden()
    emma.locator("summary", has_text="Battles of Emma").click()
    expect(battles).to_be_visible()
    # The ledger folds the same way, its balance in the summary: every figure the same.
    ledger = page.get_by_role("region", name="Ledger table")
    expect(ledger).to_be_hidden()
    page.locator("details.ledger-fold > summary").click()
    expect(ledger).to_be_visible()
    balance = services.balance_of(cf)
    assert ledger_figures(page) == {"top": balance, "summary": balance, "last line": balance}
    assert_accessible(page)


@pytest.mark.parametrize("view", ["desktop-light", "phone-dark"])
def test_the_charts_speak_to_any_device_and_draw_equal_xp_side_by_side(
    live_server, demo, pages, view
):
    user, force, campaign = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("campaign:charts", args=[campaign.pk]))
    text = page.locator("main").inner_text().lower()
    assert "hover" not in text
    assert "click" not in text
    # Emma and Julius both have 7 XP (and the same before): their points stand apart.
    chart = page.get_by_role("img", name=re.compile(f"^XP of {re.escape(force.name)}'s members"))
    expect(chart).to_be_visible()
    centres = chart.locator(".chart__series .chart__marker").evaluate_all(
        """markers => markers.map(m => {
             const box = m.getBoundingClientRect();
             return [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
           })"""
    )
    assert len(centres) > 10
    apart = [
        (a, b)
        for i, a in enumerate(centres)
        for b in centres[i + 1 :]
        if abs(a[0] - b[0]) < 3 and abs(a[1] - b[1]) < 3
    ]
    assert apart == []
    assert_accessible(page)


@pytest.mark.parametrize("view", ["phone-light", "desktop-dark"])
def test_an_invitation_opened_signed_out_names_the_campaign_and_comes_back(
    live_server, browser, demo, django_user_model, view
):
    _, _, campaign = demo
    django_user_model.objects.create_user("newcomer", password=PASSWORD)
    invite = live_server.url + reverse("campaign:join", args=[campaign.invite_token])
    context = browser.new_context(**VIEWS[view])
    try:
        page = context.new_page()
        page.goto(invite)
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Join {campaign.name}")
        expect(page.locator("#invite-note")).to_have_text(
            f"{campaign.organiser.username} invited you to their campaign {campaign.name}. "
            "Log in or sign up, and you come straight back here to join."
        )
        # Nothing more than the link shows: not the forces, not the other players.
        main = page.locator("main").inner_text()
        assert "rival" not in main
        assert "Literature Club" not in main
        assert_accessible(page)
        # Signing up comes back here, then joining is one tap.
        page.get_by_role("link", name="Sign up to join").click()
        page.get_by_label("Username").fill("another")
        page.get_by_label("Password:", exact=True).fill(PASSWORD)
        page.get_by_label("Password confirmation").fill(PASSWORD)
        page.get_by_role("button", name="Create my account").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Join {campaign.name}?")
        assert page.url == invite
        # Logging in from the link's page comes back too (a fresh visitor).
        context.clear_cookies()
        page.goto(invite)
        page.get_by_label("Username").fill("newcomer")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Join {campaign.name}?")
        page.get_by_role("button", name="Join the campaign").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(campaign.name)
        # Not in yet with a force: the dashboard's main button enters one.
        main_button = page.locator(".camp-actions .button:not(.button--secondary)")
        expect(main_button).to_have_text(["Enter a force"])
        assert_accessible(page)
    finally:
        context.close()


# --- tap targets ------------------------------------------------------------------------------


def open_every_disclosure(page: Page) -> None:
    """Every fold of the page open, so whatever it holds is measured too."""
    page.evaluate(
        "() => document.querySelectorAll('main details').forEach(d => { d.open = true; })"
    )


@pytest.mark.parametrize("view", ["phone-light", "phone-dark"])
def test_every_control_of_the_campaign_pages_is_44_px_on_a_phone(live_server, demo, pages, view):
    """The record form's steppers, the force page's folds, the level-up picker's buttons,
    the between-battles question: each at least 44 x 44 px, nothing scrolls sideways."""
    user, _, campaign = demo
    cf = demo_copy()
    page = pages(user, view)
    measured = {}

    page.goto(live_server.url + reverse("campaign:record_battle", args=[campaign.pk]))
    plus = page.get_by_role("button", name="One more: Enemies Emma took Out of Action")
    expect(plus).to_be_visible()
    measured["record form +"] = plus.bounding_box()
    urls = {
        "record form": None,
        "force page": reverse("campaign:force", args=[campaign.pk, cf.pk]),
        "level-up page": reverse(
            "campaign:level_up", args=[campaign.pk, cf.pk, cf.force.members.get(name="Emma").pk]
        ),
        "dashboard": reverse("campaign:dashboard", args=[campaign.pk]),
        "charts": reverse("campaign:charts", args=[campaign.pk]),
    }
    for name, url in urls.items():
        if url is not None:
            page.goto(live_server.url + url)
        open_every_disclosure(page)
        small = page.evaluate(SMALL_CONTROLS)
        assert small == [], f"{name}: {small}"
        assert horizontal_overflow(page) == {}, name
        assert_accessible(page)

    # The builder's question before a purchase between battles.
    julius = cf.force.members.get(name="Julius")
    builder = reverse("roster:member", args=[cf.force_id, julius.pk])
    page.goto(f"{live_server.url}{builder}?step=equipment")
    page.get_by_role("button", name="Add Light Shield").click()
    pay = page.get_by_role("button", name=re.compile(r"^Pay \d+ for Light Shield$"))
    expect(pay).to_be_visible()
    measured["Pay"] = pay.bounding_box()
    measured["Cancel"] = page.get_by_role("link", name="Cancel").bounding_box()
    assert page.evaluate(SMALL_CONTROLS) == []
    assert horizontal_overflow(page) == {}
    assert_accessible(page)
    sizes = {k: (round(b["width"]), round(b["height"])) for k, b in measured.items()}
    print(f"\n[measure] {view}: tap targets {sizes}")
    assert all(w >= 44 and h >= 44 for w, h in sizes.values()), sizes


# --- two forces: both ticked ------------------------------------------------------------------


@pytest.mark.parametrize("view", ["desktop-light", "phone-dark"])
def test_a_live_battle_of_a_two_force_campaign_starts_with_both_ticked(
    live_server, demo, pages, view
):
    user, _, campaign = demo
    page = pages(user, view)
    page.goto(live_server.url + reverse("campaign:dashboard", args=[campaign.pk]))
    page.get_by_role("link", name="Play a battle live").click()
    forces = page.get_by_role("group", name="Forces (two or more)").get_by_role("checkbox")
    expect(forces).to_have_count(2)
    for force in forces.all():
        expect(force).to_be_checked()
    assert_accessible(page)
    page.get_by_label("Scenario").fill("Rooftop Duel")
    page.get_by_role("button", name="Start").click()  # the first Start is not refused
    expect(page.get_by_role("heading", level=1)).to_contain_text("Rooftop Duel")
