"""A battle's links on phones (`play.sharing`): Alice starts a one-off with Bob's force
from its share link; Bob finds the invitation on his battle list and takes his side over;
Alice shows the spectator link on the battle screen (asked for apart, from the keyboard),
replaces it (a page that asks first) and a spectator holding the old link gets a 404 that
says so. Every new page gets an axe check."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from play.models import Battle
from roster import services as roster_services
from tests.browser.conftest import act_panel, assert_accessible, log_in, phone
from tests.play.conftest import play_force


@pytest.mark.django_db(transaction=True)
def test_a_shared_force_joins_by_invitation_and_the_link_is_replaced(
    live_server, browser, django_user_model
):
    url = live_server.url
    alice = django_user_model.objects.create_user(
        "alice", password="a-long-and-silly-passphrase-12"
    )
    bob = django_user_model.objects.create_user("bob", password="a-long-and-silly-passphrase-12")
    play_force(alice, "Red Club")
    theirs = play_force(bob, "Blue Club")
    roster_services.set_share_link(force=theirs, actor=None, enabled=True)
    theirs.refresh_from_db()

    a = log_in(phone(browser), url, "alice")
    a.goto(url + reverse("play:new"))
    a.get_by_label("Scenario").fill("Friendly")
    a.get_by_label("Your force").select_option(label="Red Club")
    a.get_by_label("Their share link").fill(f"{url}/forces/shared/{theirs.share_token}/")
    a.get_by_role("button", name="Start").click()
    expect(a.get_by_role("heading", name="Friendly", level=1)).to_be_visible()
    expect(a.locator(".play-head")).to_contain_text("Blue Club (alice, until bob takes it over)")
    battle = Battle.objects.get()

    # Bob: the invitation waits on his battle list; he takes his side over.
    b = log_in(phone(browser), url, "bob")
    b.goto(url + reverse("play:list"))
    invitations = b.get_by_role("region", name="Invitations")
    expect(invitations).to_contain_text("alice started it with your Blue Club")
    assert_accessible(b)
    invitations.get_by_role("button", name="Play my side").click()
    expect(b.get_by_role("heading", name="Friendly", level=1)).to_be_visible()
    expect(b.locator(".play-head")).to_contain_text("Blue Club (bob)")

    # A spectator watches by the link; Alice replaces it, after the page asks.
    old = battle.spectator_token
    watcher = phone(browser).new_page()
    assert watcher.goto(url + reverse("play:watch", args=[old])).status == 200
    a.reload()
    act_panel(a, "spectators")  # folded with the dice check, the link asked for apart
    a.get_by_role("link", name="Show the link").focus()
    a.keyboard.press("Enter")  # from the keyboard: the link comes in place, focused
    expect(a.get_by_role("link", name=f"{url}/play/watch/{old}/")).to_be_focused()
    a.get_by_role("link", name="Replace or withdraw the link").click()
    expect(a.get_by_role("heading", name="Spectator link for Friendly")).to_be_visible()
    assert_accessible(a)
    a.get_by_role("button", name="Replace the link").click()
    expect(a.locator(".messages")).to_contain_text("A new spectator link")
    battle.refresh_from_db()
    assert battle.spectator_token != old
    # Back on the link's page: the new one, to be copied and given.
    expect(
        a.get_by_role("link", name=f"{url}/play/watch/{battle.spectator_token}/")
    ).to_be_visible()
    assert watcher.goto(url + reverse("play:watch", args=[old])).status == 404
    expect(watcher.get_by_role("alert")).to_contain_text("This spectator link no longer works")
    assert_accessible(watcher)
