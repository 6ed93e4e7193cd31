"""The battle's state panel asks the server for news by itself (static/js/play.js): with
the version it shows in If-None-Match and none of htmx's or the CSRF headers; never while
the page is hidden, at once when it is shown again; never once the battle has ended; and a
poll that cannot reach the site waits longer each time, leaving the alert it caused as it
is (no flicker, nothing announced again); a battle no longer there (a spectator link
withdrawn, a battle deleted) says so in place of the screen and asks no more.

Time in the page is Playwright's fake clock, paused and moved on by the test. That nothing
was asked during a stretch is shown by a marker request sent after it: the browser starts
requests in order, so a poll made earlier would be seen first.
"""

import datetime

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from play import services, sharing
from tests.browser.conftest import log_in, phone
from tests.play import acting
from tests.play.conftest import play_force

pytestmark = pytest.mark.django_db(transaction=True)

PLAYING_MS = 500  # static/js/play.js: while the battle is being played
START = datetime.datetime(2030, 1, 1, 12, 0, 0)
STATE = "/state/"
MARKER = "/healthz"
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
  Object.defineProperty(document, "hidden", {value: true, configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  delete document.visibilityState;
  delete document.hidden;
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture
def battle(django_user_model):
    from tests.browser.conftest import PASSWORD

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob = django_user_model.objects.create_user("bob", password=PASSWORD)
    return services.start_battle(
        by=alice,
        forces=[play_force(alice, "Red Club"), play_force(bob, "Blue Club")],
        scenario="Range",
    )


def open_battle(browser, live_server, battle, *, watching=False) -> tuple[Page, list]:
    """Alice's phone on the battle (`watching`: a spectator's, by the link) with the clock
    paused, its first poll answered 304 and the next one due in half a second. Gives the
    page and the list of every request it starts to the state panel or to the marker."""
    if watching:
        page = phone(browser).new_page()
        screen = reverse("play:watch", args=[battle.spectator_token])
    else:
        page = log_in(phone(browser), live_server.url, "alice")
        screen = reverse("play:battle", args=[battle.pk])
    seen: list = []
    page.on("request", lambda r: seen.append(r) if STATE in r.url or MARKER in r.url else None)
    page.clock.install(time=START)
    page.clock.pause_at(START + datetime.timedelta(seconds=1))
    page.goto(live_server.url + screen)
    page.clock.run_for(1)  # htmx starts (and says the page is loaded) in a timer of its own
    due(page, PLAYING_MS)
    answered(page, 304, PLAYING_MS)
    due(page, PLAYING_MS)
    return page, seen


def due(page: Page, ms: int | str) -> None:
    """The panel's next poll is due in `ms` (or it is "off")."""
    expect(page.locator("#battle-state")).to_have_attribute("data-poll", str(ms))


def answered(page: Page, status: int, ms: int):
    """Move the clock on `ms`: the poll due is sent and answered `status`."""
    with page.expect_response(lambda r: STATE in r.url) as response:
        page.clock.run_for(ms)
    assert response.value.status == status
    return response.value


def polls(seen: list) -> list:
    return [r for r in seen if STATE in r.url]


def nothing_asked_since(page: Page, seen: list, count: int) -> None:
    """No poll started since the first `count` requests seen: a marker request sent now
    comes right after them."""
    with page.expect_request(lambda r: MARKER in r.url):
        page.evaluate("() => { fetch('/healthz').catch(() => null); }")
    assert [r.url for r in seen[count:]] == [seen[-1].url]
    assert seen[-1].url.endswith(MARKER)
    seen.pop()


def test_a_poll_sends_its_version_and_no_other_header_of_its_own(live_server, browser, battle):
    page, seen = open_battle(browser, live_server, battle)
    headers = polls(seen)[0].all_headers()
    assert headers["if-none-match"] == f'W/"{battle.version}"'
    own = {"x-csrftoken", "hx-request", "hx-current-url", "hx-target", "hx-trigger"}
    assert own & set(headers) == set()
    page.context.close()


def test_it_asks_less_often_as_the_battle_stays_quiet_and_at_once_on_a_tap(
    live_server, browser, battle
):
    page, _seen = open_battle(browser, live_server, battle)
    answered(page, 304, 61 * 1000)  # the one due now; a minute passes before its answer
    due(page, 2000)
    answered(page, 304, 10 * 60 * 1000)
    due(page, 5000)
    # A tap on the screen: the player is back, the battle is being played again.
    page.get_by_role("heading", name="Range").click()
    due(page, 0)
    answered(page, 304, 1)
    due(page, PLAYING_MS)
    # A change seen counts as play too: quiet again, then Bob's phone rolls initiative.
    answered(page, 304, 61 * 1000)
    due(page, 2000)
    bob = battle.sides.get(position=1).player
    acting.roll_initiative(battle=battle, by=bob, dice=[[8, 3]])
    answered(page, 200, 2000)
    expect(page.locator(".play-turn")).to_contain_text("activates a figure")
    due(page, PLAYING_MS)
    page.context.close()


def test_a_hidden_page_asks_nothing_and_asks_at_once_when_shown(live_server, browser, battle):
    page, seen = open_battle(browser, live_server, battle)
    page.evaluate(HIDE)
    due(page, "off")
    asked = len(seen)
    page.clock.run_for(60 * 60 * 1000)  # an hour in a pocket
    nothing_asked_since(page, seen, asked)
    page.evaluate(SHOW)
    due(page, 0)
    answered(page, 304, 1)
    assert len(seen) == asked + 1
    page.context.close()


def test_an_ended_battle_stops_asking(live_server, browser, battle):
    page, seen = open_battle(browser, live_server, battle)
    services.end_battle(battle=battle, by=battle.created_by, winner=0)
    answered(page, 200, PLAYING_MS)
    expect(page.locator(".play-turn")).to_contain_text("The battle has ended")
    due(page, "off")
    asked = len(seen)
    page.clock.run_for(60 * 60 * 1000)
    nothing_asked_since(page, seen, asked)
    page.context.close()


def test_a_withdrawn_spectator_link_says_so_in_place_and_stops_asking(
    live_server, browser, battle
):
    page, seen = open_battle(browser, live_server, battle, watching=True)
    expect(page.locator(".play-figure")).to_have_count(8)
    sharing.withdraw_spectator_link(battle=battle, by=battle.created_by)
    answered(page, 404, PLAYING_MS)
    expect(page.locator("#battle-state").get_by_role("alert")).to_have_text(
        "This spectator link no longer works. A player withdrew it or replaced it with a "
        "new one: ask one of them for the new link."
    )
    expect(page.locator(".play-figure")).to_have_count(0)
    expect(page.locator("#request-failure")).to_have_count(0)  # no "reload the page"
    due(page, "off")
    asked = len(seen)
    page.clock.run_for(60 * 60 * 1000)
    page.get_by_role("heading", name="Range").click()  # a tap does not wake it either
    nothing_asked_since(page, seen, asked)
    page.context.close()


def test_a_deleted_battle_says_so_in_place_of_the_screen_and_its_dock(
    live_server, browser, battle
):
    page, seen = open_battle(browser, live_server, battle)
    expect(page.locator("#dock")).to_be_visible()
    battle.delete()  # as with its campaign
    answered(page, 404, PLAYING_MS)
    expect(page.locator("#battle-state").get_by_role("alert")).to_have_text(
        "This battle is no longer here. It was deleted, or it is no longer yours to see. "
        "Your battles"
    )
    expect(page.locator("#dock")).to_be_hidden()  # nothing left to act on
    due(page, "off")
    asked = len(seen)
    page.clock.run_for(60 * 60 * 1000)
    nothing_asked_since(page, seen, asked)
    page.context.close()


def test_a_poll_that_cannot_reach_the_site_waits_longer_and_keeps_the_alert(
    live_server, browser, battle
):
    page, _seen = open_battle(browser, live_server, battle)
    page.context.set_offline(True)
    with page.expect_event("requestfailed", lambda r: STATE in r.url):
        page.clock.run_for(PLAYING_MS)
    alert = page.locator("#request-failure")
    expect(alert).to_have_text(
        "The site could not be reached. Check the connection and try again."
    )
    changes = alert.element_handle().evaluate_handle(
        """box => {
          const seen = {changes: 0};
          new MutationObserver(list => { seen.changes += list.length; })
            .observe(box, {childList: true, characterData: true, subtree: true});
          return seen;
        }"""
    )
    for waited in (1000, 2000, 4000):  # 1 s, then twice as long each time
        due(page, waited)
        with page.expect_event("requestfailed", lambda r: STATE in r.url):
            page.clock.run_for(waited)
    due(page, 8000)
    assert changes.evaluate("seen => seen.changes") == 0
    assert alert.element_handle().evaluate("box => box.isConnected")
    page.context.set_offline(False)
    answered(page, 304, 8000)
    due(page, PLAYING_MS)
    page.context.close()
