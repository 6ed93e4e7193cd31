"""The home page loads in a real browser and has no serious accessibility problems."""

from tests.browser.conftest import assert_accessible


def test_home_page(live_server, page):
    response = page.goto(live_server.url + "/")
    assert response is not None
    assert response.ok, response.status
    assert "DBD" in page.title()
    assert_accessible(page)
