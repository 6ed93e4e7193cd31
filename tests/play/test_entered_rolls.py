"""P5: a campaign's house rule may forbid dice entered as rolled at the table. A battle
started in the campaign copies the rule; its services, API and screen follow the copy."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from campaign import services as campaign_services
from dbd_site.errors import Invalid
from play import services
from play.models import Battle, BattleAction
from tests.play import acting
from tests.play.conftest import ids

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NO_ENTRY = "Server&#x27;s dice only: the campaign&#x27;s house rules forbid entered rolls."


def codes(error) -> list[tuple[str, str]]:
    return [(p.pointer, p.code) for p in error.value.problems]


def forbid(campaign, organiser) -> None:
    campaign_services.update_house_rules(
        campaign=campaign, by=organiser, entered_rolls_allowed=False
    )


def start(campaign, alice, red, blue, **kw) -> Battle:
    return services.start_battle(
        by=alice, forces=[red.force, blue.force], scenario="Duel", campaign=campaign, **kw
    )


def signed_in(user, client_class=Client):
    client = client_class()
    client.force_login(user)
    return client


# --- services ---------------------------------------------------------------------------


def test_a_campaign_battle_copies_the_allowing_rule(campaign, alice, red, blue):
    battle = start(campaign, alice, red, blue)
    assert battle.entered_rolls_allowed is True
    action = acting.roll_d12(battle=battle, by=alice, dice=[7])
    assert (action.entered, action.dice) == (True, [7])


def test_a_campaign_battle_copies_the_forbidding_rule(campaign, organiser, alice, red, blue):
    forbid(campaign, organiser)
    battle = start(campaign, alice, red, blue)
    assert battle.entered_rolls_allowed is False
    f = ids(battle)
    refusals = [
        lambda: acting.roll_d12(battle=battle, by=alice, dice=[7]),
        lambda: acting.roll_initiative(battle=battle, by=alice, dice=[[7, 3]]),
        lambda: acting.heal(
            battle=battle, by=alice, healer=f["0:Emma"], target=f["0:Ann"], dice=[9]
        ),
        lambda: acting.cast_spell(
            battle=battle, by=alice, caster=f["0:Emma"], spell="healing-spring", dice=[9, 9, 9, 9]
        ),
    ]
    for refused in refusals:
        with pytest.raises(Invalid) as error:
            refused()
        assert codes(error) == [("/dice", "entered-rolls-forbidden")]
    assert list(BattleAction.objects.filter(battle=battle).values_list("kind", flat=True)) == [
        "start"
    ]
    battle.refresh_from_db()
    assert battle.version == 1
    action = acting.roll_d12(battle=battle, by=alice)  # the server's dice still roll
    assert action.entered is False


def test_the_starter_cannot_allow_what_the_campaign_forbids(campaign, organiser, alice, red, blue):
    forbid(campaign, organiser)
    with pytest.raises(Invalid) as error:
        start(campaign, alice, red, blue, entered_rolls_allowed=True)
    assert codes(error) == [("/entered_rolls_allowed", "entered-rolls-forbidden")]
    assert Battle.objects.count() == 0


def test_the_starter_may_forbid_what_the_campaign_allows(campaign, alice, red, blue):
    battle = start(campaign, alice, red, blue, entered_rolls_allowed=False)
    assert battle.entered_rolls_allowed is False


def test_a_battle_keeps_its_copy_when_the_rule_changes(campaign, organiser, alice, red, blue):
    battle = start(campaign, alice, red, blue)
    forbid(campaign, organiser)
    battle.refresh_from_db()
    assert battle.entered_rolls_allowed is True
    assert acting.roll_d12(battle=battle, by=alice, dice=[4]).entered is True
    assert start(campaign, alice, red, blue).entered_rolls_allowed is False


# --- API ----------------------------------------------------------------------------------


def test_api_in_a_campaign_that_forbids_entered_rolls(campaign, organiser, alice, red, blue):
    forbid(campaign, organiser)
    api = signed_in(alice, APIClient)
    body = {"scenario": "Duel", "forces": [red.force_id, blue.force_id], "campaign": campaign.pk}
    refused = api.post("/api/v1/battles/", {**body, "entered_rolls_allowed": True}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "errors": [
            {
                "pointer": "/entered_rolls_allowed",
                "code": "entered-rolls-forbidden",
                "message": "This campaign's house rules take the server's dice only.",
            }
        ]
    }
    created = api.post("/api/v1/battles/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["entered_rolls_allowed"] is False
    actions = f"/api/v1/battles/{created.json()['id']}/actions/"
    response = api.post(actions, {"type": "roll", "dice": [5]}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "pointer": "/dice",
                "code": "entered-rolls-forbidden",
                "message": "This battle takes the server's dice only.",
            }
        ]
    }
    assert api.get(f"/api/v1/battles/{created.json()['id']}/").json()["version"] == 1
    assert api.post(actions, {"type": "roll"}, format="json").status_code == 201


def test_api_in_a_campaign_that_allows_entered_rolls(campaign, alice, red, blue):
    api = signed_in(alice, APIClient)
    body = {"scenario": "Duel", "forces": [red.force_id, blue.force_id], "campaign": campaign.pk}
    created = api.post("/api/v1/battles/", body, format="json")
    assert created.json()["entered_rolls_allowed"] is True
    actions = f"/api/v1/battles/{created.json()['id']}/actions/"
    response = api.post(actions, {"type": "roll", "dice": [5]}, format="json")
    assert response.status_code == 201, response.json()
    roll = next(line for line in response.json()["log"] if line["kind"] == "roll")
    assert (roll["entered"], roll["dice"]) == (True, [5])


def test_the_schema_documents_the_rule():
    schema = signed_in_schema()
    properties = {
        name: c.get("properties", {}) for name, c in schema["components"]["schemas"].items()
    }
    dice = properties["PlayActionRequest"]["dice"]["description"]
    assert "entered-rolls-forbidden" in dice
    asked = properties["PlayNewBattleRequest"]["entered_rolls_allowed"]["description"]
    assert "house rule" in asked
    assert "P5" in properties["HouseRules"]["entered_rolls_allowed"]["description"]
    assert "P5" in properties["PlayBattle"]["entered_rolls_allowed"]["description"]


def signed_in_schema() -> dict:
    response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


# --- pages --------------------------------------------------------------------------------


def test_the_start_page_says_when_the_campaign_forbids_entry(
    campaign, organiser, alice, red, blue
):
    page = signed_in(alice)
    url = f"/play/new/?campaign={campaign.pk}"
    assert 'name="entered_rolls_allowed" checked' in page.get(url).content.decode()
    forbid(campaign, organiser)
    html = page.get(url).content.decode()
    assert 'name="entered_rolls_allowed"' not in html
    assert "Server's dice only: the campaign's house rules forbid entered rolls." in html
    response = page.post(
        "/play/new/",
        {"campaign": campaign.pk, "scenario": "Duel", "forces": [red.force_id, blue.force_id]},
    )
    assert response.status_code == 302
    assert Battle.objects.get().entered_rolls_allowed is False


def test_the_screen_offers_entry_only_when_allowed(campaign, organiser, alice, red, blue):
    page = signed_in(alice)
    allowed = start(campaign, alice, red, blue)
    ann = ids(allowed)["0:Ann"]
    html = page.get(f"/play/{allowed.pk}/?figure={ann}").content.decode()
    assert html.count('name="dice"') == 1  # the sheet's attack
    assert 'name="initiative_0_0"' in html  # and the initiative's boxes
    assert "dice only" not in html
    forbid(campaign, organiser)
    forbidden = start(campaign, alice, red, blue)
    ann = ids(forbidden)["0:Ann"]
    html = page.get(f"/play/{forbidden.pk}/?figure={ann}").content.decode()
    assert 'name="dice"' not in html
    assert 'name="initiative_0_0"' not in html
    assert html.count(NO_ENTRY) == 1
    response = page.post(f"/play/{forbidden.pk}/act/", {"type": "roll", "dice": "5"}, **HTMX)
    assert response.status_code == 400
    assert "This battle takes the server&#x27;s dice only." in response.content.decode()


def test_the_screen_says_when_the_starter_forbade_entry(campaign, alice, red, blue):
    battle = start(campaign, alice, red, blue, entered_rolls_allowed=False)
    ann = ids(battle)["0:Ann"]
    html = signed_in(alice).get(f"/play/{battle.pk}/?figure={ann}").content.decode()
    assert 'name="dice"' not in html
    assert "Server&#x27;s dice only: the battle was started without entered rolls." in html
