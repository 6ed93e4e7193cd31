"""The battle pages: start, the screen, an action from a form, the poll's 304, the odds
shown before rolling, undo, end, the spectator link."""

import re

import pytest
from django.test import Client

from campaign import services as campaign_services
from play import selectors, services, table
from play.models import Battle, BattleFigure
from tests.play import acting
from tests.play.conftest import ids, play_force

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


HTMX = {"HTTP_HX_REQUEST": "true"}


def test_start_a_one_off_with_two_own_forces(alice):
    first, second = play_force(alice, "First"), play_force(alice, "Second")
    page = client_for(alice)
    assert page.get("/play/new/").status_code == 200
    refused = page.post("/play/new/", {"scenario": "Drill", "force": first.pk})
    assert refused.status_code == 400
    assert "Choose a second force of yours" in refused.content.decode()
    response = page.post(
        "/play/new/",
        {
            "scenario": "Drill",
            "force": first.pk,
            "opponent_force": second.pk,
            "entered_rolls_allowed": "on",
        },
    )
    battle = Battle.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/play/{battle.pk}/"
    screen = page.get(response["Location"]).content.decode()
    assert "Tap one of your figures to act." in screen
    assert 'data-testid="hp-' in screen


def ticked_forces(html: str) -> list[str]:
    """The campaign forces' checkboxes of the start form that are ticked, by value."""
    return re.findall(r'name="forces" value="(\d+)" checked', html)


def test_a_campaign_of_two_forces_ticks_both(campaign, alice, red, blue):
    """Issue #31: with exactly two forces, the battle there is to start is the default."""
    page = client_for(alice)
    html = page.get(f"/play/new/?campaign={campaign.pk}").content.decode()
    assert ticked_forces(html) == [str(red.force_id), str(blue.force_id)]
    response = page.post(
        "/play/new/",
        {"campaign": campaign.pk, "scenario": "Duel", "forces": ticked_forces(html)},
    )
    assert response.status_code == 302


def test_a_campaign_of_three_ticks_none_and_a_refusal_keeps_the_ticks(
    campaign, alice, red, blue, eve
):
    campaign_services.join_campaign(user=eve, token=campaign.invite_token)
    campaign_services.enter_force(campaign=campaign, player=eve, force=play_force(eve, "Green"))
    page = client_for(alice)
    html = page.get(f"/play/new/?campaign={campaign.pk}").content.decode()
    assert html.count('name="forces"') == 3
    assert ticked_forces(html) == []
    refused = page.post(
        "/play/new/", {"campaign": campaign.pk, "scenario": "", "forces": [red.force_id]}
    )
    assert refused.status_code == 400
    assert ticked_forces(refused.content.decode()) == [str(red.force_id)]


def test_an_attack_from_the_form_and_the_other_phone_sees_it(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    alice_page, bob_page = client_for(alice), client_for(bob)
    etag = bob_page.get(f"/play/{battle.pk}/state/", **HTMX)["ETag"]
    assert (
        bob_page.get(f"/play/{battle.pk}/state/", HTTP_IF_NONE_MATCH=etag, **HTMX).status_code
        == 304
    )
    odds = alice_page.post(
        f"/play/{battle.pk}/odds/",
        {
            "type": "attack",
            "figure": f["0:Ann"],
            "target": f["1:Ben"],
            "kind": "ranged",
            "weapon": "light-pistol",
            "situation_movement": "none",
        },
        **HTMX,
    ).content.decode()
    assert "needs 5+" in odds
    assert "66.7%" in odds  # 8 faces of 12
    response = alice_page.post(
        f"/play/{battle.pk}/act/",
        {
            "type": "attack",
            "figure": f["0:Ann"],
            "target": f["1:Ben"],
            "kind": "ranged",
            "weapon": "light-pistol",
            "situation_movement": "none",
            "dice": "12",
        },
        **HTMX,
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="act-result"' in body
    assert "Hit, Success Rating 7" in body
    poll = bob_page.get(f"/play/{battle.pk}/state/", HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert poll.status_code == 200
    assert f'data-testid="hp-{f["1:Ben"]}">4<' in poll.content.decode()


def test_a_refused_form_says_why_and_changes_nothing(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    response = client_for(alice).post(
        f"/play/{battle.pk}/act/",
        {
            "type": "attack",
            "figure": f["0:Ben"],
            "target": f["1:Ben"],
            "kind": "ranged",
            "weapon": "light-pistol",
        },
        **HTMX,
    )
    assert response.status_code == 400
    assert "Ben does not carry a Light Pistol." in response.content.decode()
    battle.refresh_from_db()
    assert battle.version == 1


def test_spectators_read_and_outsiders_do_not_act(campaign_battle, eve):
    battle = campaign_battle
    anonymous = Client()
    watched = anonymous.get(f"/play/watch/{battle.spectator_token}/").content.decode()
    assert "You are watching" in watched
    assert 'id="dock"' not in watched
    assert "/sheet/" not in watched
    assert client_for(eve).get(f"/play/{battle.pk}/").status_code == 404
    assert client_for(eve).post(f"/play/{battle.pk}/act/", {"type": "roll"}).status_code == 404


def test_undo_and_end_without_javascript(campaign_battle, alice, bob):
    battle = campaign_battle
    page = client_for(alice)
    page.post(f"/play/{battle.pk}/act/", {"type": "roll", "count": "1"})
    assert page.post(f"/play/{battle.pk}/undo/").status_code == 302
    end_page = page.get(f"/play/{battle.pk}/end/").content.decode()
    assert "Objectives for Emma" in end_page
    refused = page.post(f"/play/{battle.pk}/end/", {})
    assert refused.status_code == 400
    ended = page.post(f"/play/{battle.pk}/end/", {"winner": "draw"})
    battle.refresh_from_db()
    assert "The battle has ended: a draw." in page.get(f"/play/{battle.pk}/").content.decode()
    assert battle.status == "ended"
    assert ended["Location"] == (
        f"/campaigns/{battle.campaign_id}/battles/{battle.recorded_battle_id}/"
    )


def test_spell_odds_before_casting(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    screen = page.get(f"/play/{battle.pk}/?figure={f['0:Emma']}&do=spell").content.decode()
    # The caster's first spell shows at once: Emma, CA 4, Healing Spring at 7.
    assert "4 dice at Difficulty 7" in screen
    asked = {"caster_spell": f"{f['0:Emma']}:healing-spring", "anathema_aura": "on"}
    odds = page.post(f"/play/{battle.pk}/spell-odds/", asked, **HTMX).content.decode()
    assert "No enemy of Emma in this battle has Anathema Aura." in odds
    blue_emma = BattleFigure.objects.get(pk=f["1:Emma"])
    blue_emma.numbers = {**blue_emma.numbers, "skills": ["spellcasting/anathema-aura"]}
    blue_emma.save()
    odds = page.post(f"/play/{battle.pk}/spell-odds/", asked, **HTMX).content.decode()
    # Difficulty 8: each die 5/12; none (7/12)^4 = 2401/20736.
    assert "4 dice at Difficulty 8" in odds
    assert "<strong>11.6%</strong> No effect" in odds


def test_the_opponent_finds_the_battle_in_their_list(one_off, bob, eve):
    listed = client_for(bob).get("/play/").content.decode()
    assert f'href="/play/{one_off.pk}/"' in listed
    assert "Practice" in listed
    assert "Practice" not in client_for(eve).get("/play/").content.decode()


def test_odds_without_javascript_come_back_on_the_whole_screen(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = (
        client_for(alice)
        .post(
            f"/play/{battle.pk}/odds/",
            {
                "type": "attack",
                "figure": f["0:Ann"],
                "target": f["1:Ben"],
                "kind": "ranged",
                "weapon": "light-pistol",
                "situation_movement": "none",
                "was": f"{f['0:Ann']}-ranged",
            },
        )
        .content.decode()
    )
    assert "<html" in page
    assert "needs 5+" in page


def test_the_friendship_offer_follows_a_damaging_hit(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(bob)
    assert 'id="transfer"' not in page.get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    acting.attack(
        battle=battle,
        by=alice,
        declaration=table.attacks.AttackDeclaration(
            f["0:Ann"], f["1:Ben"], "ranged", "light-pistol"
        ),
        dice=[12],
    )
    offer = page.get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert "Friendship: Ben took 6 damage" in offer
    assert 'id="dodge-' in offer
    # P9: the decision is the defender's; the attacker's screen offers it not.
    attackers = client_for(alice).get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert 'id="transfer"' not in attackers
    assert 'id="dodge-' not in attackers
    assert "Undo: Ann&#x27;s attack on Ben" in attackers
    response = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "transfer", "recipient": [str(f["1:Cat"]), ""], "amount": ["4", ""]},
        **HTMX,
    )
    assert "Friendship: Ben transfers 4 to Cat." in response.content.decode()
    assert 'id="transfer"' not in response.content.decode()  # offered once


def test_the_campaign_dashboard_lists_its_battles_being_played(campaign_battle, alice, eve):
    campaign = campaign_battle.campaign
    dashboard = f"/campaigns/{campaign.pk}/"
    page = client_for(alice).get(dashboard).content.decode()
    live = page.split('id="live-battles"')[1].split("</section>")[0]
    assert f'href="/play/{campaign_battle.pk}/">Rooftop Duel</a>' in live
    assert "Red Club against Blue Club · turn 1" in live
    assert selectors.live_battles_in(campaign=campaign) == [campaign_battle]
    # Someone outside the campaign never reaches the page that lists them.
    assert client_for(eve).get(dashboard).status_code == 404
    # An ended battle is no longer listed.
    client_for(alice).post(f"/play/{campaign_battle.pk}/end/", {"winner": "draw"})
    assert 'id="live-battles"' not in client_for(alice).get(dashboard).content.decode()
    assert selectors.live_battles_in(campaign=campaign) == []


def test_after_the_end_the_screen_offers_no_controls(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    acting.attack(
        battle=battle,
        by=alice,
        declaration=table.attacks.AttackDeclaration(
            f["0:Ann"], f["1:Ben"], "ranged", "light-pistol"
        ),
        dice=[12],
    )
    page = client_for(bob)
    playing = page.get(f"/play/{battle.pk}/").content.decode()
    assert f'action="/play/{battle.pk}/act/"' in playing
    services.end_battle(battle=battle, by=alice, winner=None)
    for url in (f"/play/{battle.pk}/", f"/play/{battle.pk}/state/"):
        ended = page.get(url, **HTMX).content.decode()
        assert f"/play/{battle.pk}/act/" not in ended
        assert f"/play/{battle.pk}/undo/" not in ended
