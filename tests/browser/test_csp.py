"""Under the Content Security Policy, htmx and the API docs still work (no inline scripts)."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_accessible


@pytest.fixture
def csp_violations(page: Page) -> list[str]:
    messages: list[str] = []
    page.on(
        "console",
        lambda message: (
            messages.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return messages


def test_pages_are_served_with_a_strict_policy(live_server, page):
    response = page.goto(live_server.url + "/rules/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_rules_search_swaps_results_under_the_policy(live_server, page, csp_violations):
    page.goto(live_server.url + "/rules/")
    page.get_by_label("Search names and effects").fill("catfall")
    results = page.locator("main")
    expect(results.get_by_text("Catfall", exact=True)).to_be_visible()
    expect(results.get_by_text("Sniper Rifle", exact=True)).to_have_count(0)
    assert "q=catfall" in page.url  # hx-push-url: htmx ran, the form was not submitted
    assert csp_violations == []
    assert_accessible(page)


def test_api_docs_render_under_the_policy(live_server, page, csp_violations):
    response = page.goto(live_server.url + "/api/docs/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy  # scripts stay strict; only styles are relaxed
    expect(page.get_by_text("/api/v1/rosters/validate/").first).to_be_visible()
    assert csp_violations == []
