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
from tests.browser.conftest import VIEWS, assert_accessible, htmx_settled

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
