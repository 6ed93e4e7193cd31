"""A battle's links (`play.sharing`): the spectator link its sides withdraw and replace,
and a battle started from someone else's share link, which its owner joins only by
accepting."""

import re

import pytest
from django.test import Client

from dbd_site.errors import NotAllowed
from play import selectors, services, sharing, table
from play.models import Battle, BattleSide
from roster import services as roster_services
from roster.models import Force, Member
from tests.play import acting
from tests.play.conftest import ids, play_force
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def watch_urls(token: str) -> list[str]:
    return [
        f"/play/watch/{token}/",
        f"/play/watch/{token}/state/",
        f"/api/v1/battles/watch/{token}/",
    ]


def link_url(battle) -> str:
    return f"/api/v1/battles/{battle.pk}/spectator-link/"


# --- the spectator link -------------------------------------------------------------------


def test_a_side_replaces_the_link_and_the_old_one_answers_404(campaign_battle, alice, client):
    old = campaign_battle.spectator_token
    assert [client.get(url).status_code for url in watch_urls(old)] == [200, 200, 200]
    answer = signed_in(alice).post(link_url(campaign_battle))
    assert answer.status_code == 200
    campaign_battle.refresh_from_db()
    new = campaign_battle.spectator_token
    assert new not in (None, old)
    assert answer.json()["spectator_url"] == f"http://testserver/play/watch/{new}/"
    assert (answer.json()["version"], answer["ETag"]) == (2, '"2"')
    assert [client.get(url).status_code for url in watch_urls(old)] == [404, 404, 404]
    assert [client.get(url).status_code for url in watch_urls(new)] == [200, 200, 200]
    gone = client.get(f"/api/v1/battles/watch/{old}/")
    assert gone.json()["errors"][0]["code"] == "not-found"


def test_a_side_withdraws_the_link_and_makes_one_again(campaign_battle, bob, client):
    old = campaign_battle.spectator_token
    api = signed_in(bob)
    withdrawn = api.delete(link_url(campaign_battle))
    assert withdrawn.status_code == 200
    assert withdrawn.json()["spectator_url"] is None
    campaign_battle.refresh_from_db()
    assert campaign_battle.spectator_token is None
    assert [client.get(url).status_code for url in watch_urls(old)] == [404, 404, 404]
    screen = browser(bob).get(f"/play/{campaign_battle.pk}/").content.decode()
    assert "Spectators: no link" in screen
    assert f'href="/play/{campaign_battle.pk}/spectator-link/">Make a link</a>' in screen
    again = api.post(link_url(campaign_battle))
    assert again.json()["spectator_url"].startswith("http://testserver/play/watch/")
    assert again.json()["version"] == 3


def words(response) -> str:
    """An answer's text as read: no tags, one space between words."""
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


WITHDRAWN = (
    "This spectator link no longer works. A player withdrew it or replaced it with a new "
    "one: ask one of them for the new link."
)


def test_a_watchers_poll_after_the_link_is_withdrawn_says_so_in_place(campaign_battle, bob):
    old = campaign_battle.spectator_token
    state = f"/play/watch/{old}/state/"
    assert Client().get(state, HTTP_HX_REQUEST="true").status_code == 200
    sharing.withdraw_spectator_link(battle=campaign_battle, by=bob)
    poll = Client().get(state, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH='W/"1"')
    assert (poll.status_code, poll["Cache-Control"]) == (404, "private, no-cache")
    # The state panel, which the page swaps in place of its own, and which asks no more.
    assert poll.content.decode().split(">")[0].strip() == (
        '<section id="battle-state" class="play-state" data-status="gone" data-poll="off"'
    )
    assert words(poll) == WITHDRAWN
    page = Client().get(f"/play/watch/{old}/")  # the page again, reloaded: the same words
    assert page.status_code == 404
    assert f"Nothing to watch here {WITHDRAWN}" in words(page)
    assert old not in page.content.decode()


def test_a_players_poll_after_the_battle_was_deleted_says_so_in_place(campaign_battle, alice):
    state = f"/play/{campaign_battle.pk}/state/"
    campaign_battle.campaign.delete()  # its battles with it
    poll = browser(alice).get(state, HTTP_HX_REQUEST="true")
    assert poll.status_code == 404
    assert words(poll) == (
        "This battle is no longer here. It was deleted, or it is no longer yours to see. "
        "Your battles"
    )
    assert 'data-status="gone"' in poll.content.decode()


def test_only_the_sides_change_the_link(campaign_battle, organiser, eve):
    token = campaign_battle.spectator_token
    organisers = signed_in(organiser)  # sees the campaign's battle, plays no side
    for refused in (
        organisers.post(link_url(campaign_battle)),
        organisers.delete(link_url(campaign_battle)),
    ):
        assert refused.status_code == 403
        assert refused.json()["errors"] == [
            {
                "pointer": "",
                "code": "not-a-side",
                "message": "Only the battle's players change its spectator link.",
            }
        ]
    assert signed_in(eve).post(link_url(campaign_battle)).status_code == 404
    assert (
        browser(organiser)
        .post(f"/play/{campaign_battle.pk}/spectator-link/", {"do": "withdraw"})
        .status_code
        == 403
    )
    campaign_battle.refresh_from_db()
    assert (campaign_battle.spectator_token, campaign_battle.version) == (token, 1)


def test_the_screen_asks_before_changing_the_link_without_javascript(campaign_battle, alice):
    page_url = f"/play/{campaign_battle.pk}/spectator-link/"
    you = browser(alice)
    old = campaign_battle.spectator_token
    screen = you.get(f"/play/{campaign_battle.pk}/").content.decode()
    # The screen shows no link: its fold asks for it (htmx), or opens its page (no JS).
    assert (
        f'<a id="spectator-url" href="{page_url}" hx-get="{page_url}" '
        'hx-target="#spectators" hx-swap="outerHTML">Show the link</a>'
    ) in screen
    assert old not in screen
    asking = you.get(page_url)
    assert asking.status_code == 200
    page = asking.content.decode()
    assert f'<a href="http://testserver/play/watch/{old}/">' in page
    assert f'<form method="post" action="{page_url}"' in page
    assert 'name="do" value="replace"' in page
    assert 'name="do" value="withdraw"' in page
    assert f'href="/play/{campaign_battle.pk}/">Back to the battle</a>' in page
    campaign_battle.refresh_from_db()
    assert campaign_battle.version == 1  # asking changed nothing
    done = you.post(page_url, {"do": "replace"}, follow=True)
    assert done.redirect_chain == [(page_url, 302)]  # the new link, to be copied
    assert "A new spectator link: the old one no longer works." in done.content.decode()
    campaign_battle.refresh_from_db()
    assert campaign_battle.spectator_token != old
    assert campaign_battle.spectator_token in done.content.decode()
    refused = you.post(page_url, {"do": "shred"})
    assert refused.status_code == 400
    assert "Replace or withdraw the link." in refused.content.decode()


def test_the_screens_fold_gets_the_link_from_its_page(campaign_battle, alice, organiser):
    page_url = f"/play/{campaign_battle.pk}/spectator-link/"
    watch = f"http://testserver/play/watch/{campaign_battle.spectator_token}/"
    fold = browser(alice).get(page_url, HTTP_HX_REQUEST="true")
    assert (fold.status_code, fold["Cache-Control"]) == (200, "private, no-cache")
    assert " ".join(fold.content.decode().split()) == (
        f'<p class="meta" id="spectators">Spectators: <a id="spectator-url" href="{watch}">'
        f'{watch}</a> · <a href="{page_url}">Replace or withdraw the link</a></p>'
    )
    # Who sees the battle but plays no side (the campaign's organiser): the link alone.
    theirs = browser(organiser).get(page_url, HTTP_HX_REQUEST="true")
    assert " ".join(theirs.content.decode().split()) == (
        f'<p class="meta" id="spectators">Spectators: <a id="spectator-url" href="{watch}">'
        f"{watch}</a></p>"
    )


def test_an_ended_battles_link_can_still_be_withdrawn(one_off, alice):
    services.end_battle(battle=one_off, by=alice, winner=None)
    done = signed_in(alice).delete(link_url(one_off))
    assert done.status_code == 200
    assert done.json()["spectator_url"] is None


# --- a battle from someone else's share link ------------------------------------------------


@pytest.fixture
def shared(bob):
    """Bob's force, shared by its link."""
    theirs = play_force(bob, "Bob's Club")
    roster_services.set_share_link(force=theirs, actor=None, enabled=True)
    theirs.refresh_from_db()
    return theirs


def start_from_link(alice, shared) -> Battle:
    response = signed_in(alice).post(
        "/api/v1/battles/",
        {
            "scenario": "Friendly",
            "forces": [play_force(alice, "Alice's Club").pk],
            "opponent_link": f"http://testserver/forces/shared/{shared.share_token}/",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    return Battle.objects.get(pk=response.json()["id"])


def force_as_stored(force: Force) -> tuple:
    """Every column of the force's row and of its members' rows."""
    row = Force.objects.filter(pk=force.pk).values().get()
    members = list(Member.objects.filter(force=force).order_by("pk").values())
    return row, members


def test_the_starter_plays_the_shared_force_until_its_owner_accepts(alice, bob, shared):
    battle = start_from_link(alice, shared)
    sides = list(BattleSide.objects.filter(battle=battle).order_by("position"))
    assert [(s.player, s.invited, s.force_name) for s in sides] == [
        (alice, None, "Alice's Club"),
        (alice, bob, "Bob's Club"),
    ]
    # Not asked, the owner is no side: they neither see nor act in the battle.
    assert selectors.may_act(battle=battle, user=bob) is False
    assert signed_in(bob).get(f"/api/v1/battles/{battle.pk}/").status_code == 404
    assert browser(bob).get(f"/play/{battle.pk}/").status_code == 404
    f = ids(battle)
    with pytest.raises(NotAllowed):
        acting.change_figure(
            battle=battle, by=bob, change=table.state.Change(figure=f["1:Ann"], hp=1)
        )
    # The starter acts for both sides (P9).
    acting.change_figure(
        battle=battle, by=alice, change=table.state.Change(figure=f["1:Ann"], hp=1)
    )
    screen = browser(alice).get(f"/play/{battle.pk}/").content.decode()
    assert 'Bob&#x27;s Club <span class="muted">(alice, until bob takes it over)</span>' in screen


def test_no_write_reaches_the_shared_force(alice, bob, shared):
    before = force_as_stored(shared)
    battle = start_from_link(alice, shared)
    f = ids(battle)
    acting.change_figure(
        battle=battle, by=alice, change=table.state.Change(figure=f["1:Ann"], hp=0)
    )
    sharing.accept_invitation(battle_id=battle.pk, user=bob)
    acting.roll_d12(battle=battle, by=bob, count=2)
    services.end_battle(battle=battle, by=bob, winner=0, objectives={f["1:Ben"]: 2})
    assert force_as_stored(shared) == before
    assert Force.objects.filter(owner=alice).count() == 1  # no copy made as a force


def test_the_owner_accepts_from_the_battle_list(alice, bob, shared):
    battle = start_from_link(alice, shared)
    yours = browser(bob)
    listed = yours.get("/play/").content.decode()
    assert "Invitations" in listed
    assert "alice started it with your Bob&#x27;s Club" in listed
    assert f'action="/play/{battle.pk}/invitation/"' in listed
    assert 'name="answer" value="accept"' in listed
    assert f'href="/play/{battle.pk}/"' not in listed  # not one of theirs yet
    accepted = yours.post(f"/play/{battle.pk}/invitation/", {"answer": "accept"}, follow=True)
    assert accepted.redirect_chain == [(f"/play/{battle.pk}/", 302)]
    assert "The side is yours" in accepted.content.decode()
    assert [(s.player, s.invited) for s in battle.sides.order_by("position")] == [
        (alice, None),
        (bob, None),
    ]
    assert selectors.may_act(battle=battle, user=bob) is True
    battle.refresh_from_db()
    assert battle.version == 2
    assert "Invitations" not in yours.get("/play/").content.decode()


def test_the_owner_declines_and_the_starter_keeps_the_side(alice, bob, shared):
    battle = start_from_link(alice, shared)
    unclear = browser(bob).post(f"/play/{battle.pk}/invitation/", {"answer": "maybe"})
    assert unclear.status_code == 400
    declined = browser(bob).post(
        f"/play/{battle.pk}/invitation/", {"answer": "decline"}, follow=True
    )
    assert declined.redirect_chain == [("/play/", 302)]
    assert "Declined" in declined.content.decode()
    assert [(s.player, s.invited) for s in battle.sides.order_by("position")] == [
        (alice, None),
        (alice, None),
    ]
    assert selectors.may_act(battle=battle, user=bob) is False
    again = browser(bob).post(f"/play/{battle.pk}/invitation/", {"answer": "accept"})
    assert again.status_code == 404


def test_only_the_invited_owner_answers_and_only_while_the_battle_lasts(alice, bob, eve, shared):
    battle = start_from_link(alice, shared)
    for stranger in (eve, alice):
        assert (
            browser(stranger)
            .post(f"/play/{battle.pk}/invitation/", {"answer": "accept"})
            .status_code
            == 404
        )
        assert (
            signed_in(stranger)
            .post(f"/api/v1/battles/invitations/{battle.pk}/accept/")
            .status_code
            == 404
        )
    services.end_battle(battle=battle, by=alice, winner=None)
    late = signed_in(bob).post(f"/api/v1/battles/invitations/{battle.pk}/accept/")
    assert late.status_code == 409
    assert late.json()["errors"][0]["code"] == "battle-ended"
    assert signed_in(bob).get("/api/v1/battles/invitations/").json()["results"] == []
    assert (
        signed_in(bob).post(f"/api/v1/battles/invitations/{battle.pk}/decline/").status_code == 204
    )


def test_the_api_lists_and_declines_invitations(alice, bob, shared):
    battle = start_from_link(alice, shared)
    api = signed_in(bob)
    listed = api.get("/api/v1/battles/invitations/")
    assert listed.status_code == 200
    assert listed.json()["results"] == [
        {
            "battle": battle.pk,
            "scenario": "Friendly",
            "started_by": "alice",
            "position": 1,
            "force": "Bob's Club",
            "accept_url": f"http://testserver/api/v1/battles/invitations/{battle.pk}/accept/",
            "decline_url": f"http://testserver/api/v1/battles/invitations/{battle.pk}/decline/",
        }
    ]
    assert signed_in(alice).get("/api/v1/battles/invitations/").json()["results"] == []
    assert api.post(f"/api/v1/battles/invitations/{battle.pk}/decline/").status_code == 204
    assert api.get("/api/v1/battles/invitations/").json()["results"] == []
    assert api.post(f"/api/v1/battles/invitations/{battle.pk}/decline/").status_code == 404


def test_two_of_ones_own_forces_and_campaign_battles_invite_nobody(campaign_battle, alice):
    assert not BattleSide.objects.filter(invited__isnull=False).exists()
    own = services.start_battle(
        by=alice,
        forces=[play_force(alice, "First"), play_force(alice, "Second")],
        scenario="Practice",
    )
    assert [(s.player, s.invited) for s in own.sides.all()] == [(alice, None), (alice, None)]
