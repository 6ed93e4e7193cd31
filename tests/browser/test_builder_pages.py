"""The builder pages keep up with the player (issue #31): each step opens with its
heading in view, the chrome leaves room on a phone, every control is big enough to tap,
notices replace each other, copies are named as copies and print packs its cards.

Each check runs in the desktop (1280x800) and phone (390x844) views, light and dark, and
waits only on states of the page.
"""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import VIEWS, assert_accessible, htmx_settled, member_url

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
