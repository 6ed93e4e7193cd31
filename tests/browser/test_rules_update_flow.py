"""A player reviews what a new edition of the rules changes for their force and accepts
the move (issue #13): the notice on the force page, the review, the move."""

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from roster import services
from roster.models import Force
from tests.browser.conftest import assert_accessible, signed_in_page
from tests.roster.builders import legal_force


def test_review_and_accept_new_rules(browser, live_server, rules_change):
    user = get_user_model().objects.create_user("reviewer", password="pw-reviewer-1234")
    force = services.import_force(owner=user, document=legal_force())
    # The new edition: the Medical Kit costs 60 more, so the force of 50 goes over budget.
    rules_change(edition="dbd-core-2", equipment="medical-kit", cost_constant=60)

    page = signed_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/forces/{force.pk}/")
    expect(page.get_by_text("New rules: dbd-core-2.")).to_be_visible()
    expect(page.locator(".force-status__legal")).to_contain_text("Legal")
    assert_accessible(page)

    page.get_by_role("link", name="Review the difference").click()
    expect(
        page.get_by_role("heading", name="Move Test Force to the rules dbd-core-2?", level=1)
    ).to_be_visible()
    cells = page.locator("table.rules-diff tbody :is(th, td)")
    expect(cells).to_have_text(["Cost", "5", "65", "Resources", "50", "50", "Legal", "Yes", "No"])
    expect(page.get_by_text("The force costs 65 but has 50 Resources.")).to_be_visible()
    assert_accessible(page)

    page.get_by_role("button", name="Move to dbd-core-2").click()
    expect(page.get_by_role("heading", name="Test Force", level=1)).to_be_visible()
    expect(page.get_by_text("Test Force now plays under the rules dbd-core-2.")).to_be_visible()
    expect(page.get_by_text("New rules: dbd-core-2.")).to_have_count(0)
    expect(page.locator(".force-status__legal")).to_contain_text("Not legal")
    assert_accessible(page)
    assert Force.objects.get(pk=force.pk).rules_version == "dbd-core-2"
