"""The play API: create, read with ETag/304, act, odds, undo, end; who may do what."""

import pytest
from rest_framework.test import APIClient

from campaign.models import Battle as CampaignBattle
from play.models import Battle
from roster import services as roster_services
from tests.play.conftest import ids, play_force
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


def url(battle, tail=""):
    return f"/api/v1/battles/{battle.pk}/{tail}"


def test_create_a_one_off_by_share_link_and_read_it(alice, bob, alice_api, bob_api):
    mine = play_force(alice, "Mine")
    theirs = play_force(bob, "Theirs")
    roster_services.set_share_link(force=theirs, actor=None, enabled=True)
    theirs.refresh_from_db()
    response = alice_api.post(
        "/api/v1/battles/",
        {"scenario": "Friendly", "forces": [mine.pk], "opponent_link": theirs.share_token},
        format="json",
    )
    assert response.status_code == 201, response.json()
    data = response.json()
    assert response["ETag"] == '"1"'
    assert [s["force"] for s in data["sides"]] == ["Mine", "Theirs"]
    # Alice plays Bob's force until Bob accepts to take it over (play.sharing).
    assert [(s["player"], s["invited"]) for s in data["sides"]] == [
        ("alice", None),
        ("alice", "bob"),
    ]
    assert [f["name"] for f in data["sides"][1]["figures"]] == ["Emma", "Ann", "Ben", "Cat"]
    assert (data["turn"], data["initiative"], data["version"], data["may_act"]) == (
        1,
        None,
        1,
        True,
    )
    assert bob_api.get(f"/api/v1/battles/{data['id']}/").status_code == 404
    accepted = bob_api.post(f"/api/v1/battles/invitations/{data['id']}/accept/")
    assert accepted.status_code == 200
    assert accepted.json()["may_act"] is True
    assert [s["player"] for s in accepted.json()["sides"]] == ["alice", "bob"]
    assert bob_api.get(f"/api/v1/battles/{data['id']}/").json()["may_act"] is True


def test_create_refusals_say_where(alice, alice_api, bob):
    mine = play_force(alice, "Mine")
    theirs = play_force(bob, "Theirs")
    response = alice_api.post(
        "/api/v1/battles/", {"scenario": "X", "forces": [mine.pk, theirs.pk]}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["errors"][0]["pointer"] == "/forces/1"
    response = alice_api.post(
        "/api/v1/battles/", {"scenario": "X", "forces": [mine.pk], "oops": 1}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "pointer": "/oops",
                "code": "unknown-key",
                "message": "'oops' is not a key of this object; allowed keys: scenario, "
                "forces, opponent_link, campaign, entered_rolls_allowed.",
            }
        ]
    }
    response = alice_api.post(
        "/api/v1/battles/", {"scenario": "X", "forces": [mine.pk, mine.pk]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "invalid-sides"
    assert Battle.objects.count() == 0


def test_etag_and_304(campaign_battle, alice_api):
    first = alice_api.get(url(campaign_battle))
    assert first.status_code == 200
    etag = first["ETag"]
    same = alice_api.get(url(campaign_battle), HTTP_IF_NONE_MATCH=etag)
    assert same.status_code == 304
    assert same.content == b""
    alice_api.post(url(campaign_battle, "actions/"), {"type": "roll"}, format="json")
    moved = alice_api.get(url(campaign_battle), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200
    assert moved["ETag"] == '"2"'


def test_act_answers_the_new_state(campaign_battle, alice_api):
    f = ids(campaign_battle)
    response = alice_api.post(
        url(campaign_battle, "actions/"),
        {
            "type": "attack",
            "figure": f["0:Ann"],
            "target": f["1:Ben"],
            "kind": "ranged",
            "weapon": "light-pistol",
            "situation": {"movement": "none"},
            "dice": [12],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    data = response.json()
    ben = next(x for x in data["sides"][1]["figures"] if x["name"] == "Ben")
    assert (ben["hp"], ben["status"]) == (4, "active")
    assert data["log"][0]["words"].startswith("Ann attacks Ben (ranged, Light Pistol; needs 5+)")
    assert (data["log"][0]["dice"], data["log"][0]["entered"]) == ([12], True)
    assert data["version"] == 2


def test_act_refusals_change_nothing(campaign_battle, alice_api):
    f = ids(campaign_battle)
    for body, status, pointer, code in [
        ({"type": "attack", "figure": f["0:Ann"]}, 400, "/target", "invalid"),
        (
            {
                "type": "attack",
                "figure": f["0:Ann"],
                "target": f["0:Ben"],
                "kind": "ranged",
                "weapon": "light-pistol",
            },
            400,
            "/target",
            "same-side",
        ),
        ({"type": "roll", "dice": 7}, 400, "/dice", "invalid"),
        ({"type": "roll", "dice": [0]}, 400, "/dice/0", "invalid-roll"),
        ({"type": "dance"}, 400, "/type", "invalid-choice"),
        (
            {"type": "change", "figure": f["0:Ann"], "markers": {"moon": 1}},
            400,
            "/markers/moon",
            "unknown-marker",
        ),
    ]:
        response = alice_api.post(url(campaign_battle, "actions/"), body, format="json")
        assert response.status_code == status, (body, response.json())
        assert response.json()["errors"][0]["pointer"] == pointer, body
        assert response.json()["errors"][0]["code"] == code, body
    campaign_battle.refresh_from_db()
    assert campaign_battle.version == 1


def test_if_match_refuses_a_stale_action(campaign_battle, alice_api):
    response = alice_api.post(
        url(campaign_battle, "actions/"), {"type": "roll"}, format="json", HTTP_IF_MATCH='"9"'
    )
    assert response.status_code == 412
    response = alice_api.post(
        url(campaign_battle, "actions/"), {"type": "roll"}, format="json", HTTP_IF_MATCH='W/"1"'
    )
    assert response.status_code == 412  # compared strongly: a weak tag matches nothing
    response = alice_api.post(
        url(campaign_battle, "actions/"), {"type": "roll"}, format="json", HTTP_IF_MATCH='"1"'
    )
    assert response.status_code == 201


def test_odds_before_rolling(campaign_battle, alice_api):
    f = ids(campaign_battle)
    response = alice_api.post(
        url(campaign_battle, "odds/"),
        {
            "figure": f["0:Ann"],
            "target": f["1:Ben"],
            "kind": "ranged",
            "weapon": "light-pistol",
            "situation": {"movement": "none", "obscured": "partial"},
        },
        format="json",
    )
    assert response.status_code == 200
    data = response.json()
    # RA 4 against DF 10, +1 obscured, -1 still: needs 6, 7 faces of 12.
    assert (data["needed"], data["chance_to_hit"], data["expected_damage"]) == (6, "7/12", "7/4")
    assert [m["source"] for m in data["modifiers"]] == [
        "Target Partially Obscured",
        "Attacker Did Not Move",
    ]


def test_undo_and_end_into_the_campaign(campaign_battle, alice_api, bob_api, red):
    f = ids(campaign_battle)
    alice_api.post(url(campaign_battle, "actions/"), {"type": "roll"}, format="json")
    undone = bob_api.post(url(campaign_battle, "undo/"))
    assert undone.status_code == 200
    assert undone.json()["log"][0]["undone"] is True
    assert bob_api.post(url(campaign_battle, "undo/")).status_code == 409
    ended = alice_api.post(
        url(campaign_battle, "end/"),
        {"winner": 0, "objectives": {str(f["0:Emma"]): 1}},
        format="json",
    )
    assert ended.status_code == 200, ended.json()
    data = ended.json()
    assert data["status"] == "ended"
    pending = CampaignBattle.objects.get(pk=data["recorded_battle"])
    assert (pending.status, pending.winner) == ("pending", red)
    assert (
        alice_api.post(
            url(campaign_battle, "actions/"), {"type": "roll"}, format="json"
        ).status_code
        == 409
    )


def test_permissions(campaign_battle, organiser, eve):
    organiser_api, eve_api, anonymous = signed_in(organiser), signed_in(eve), APIClient()
    assert organiser_api.get(url(campaign_battle)).json()["may_act"] is False
    refused = organiser_api.post(url(campaign_battle, "actions/"), {"type": "roll"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["code"] == "not-a-side"
    assert eve_api.get(url(campaign_battle)).status_code == 404
    assert (
        eve_api.post(url(campaign_battle, "actions/"), {"type": "roll"}, format="json").status_code
        == 404
    )
    assert anonymous.get(url(campaign_battle)).status_code == 401
    watched = anonymous.get(f"/api/v1/battles/watch/{campaign_battle.spectator_token}/")
    assert watched.status_code == 200
    assert watched.json()["may_act"] is False
    again = anonymous.get(
        f"/api/v1/battles/watch/{campaign_battle.spectator_token}/",
        HTTP_IF_NONE_MATCH=watched["ETag"],
    )
    assert again.status_code == 304
    campaign_battle.refresh_from_db()
    assert campaign_battle.version == 1


def test_list(campaign_battle, alice_api, eve):
    listed = alice_api.get("/api/v1/battles/").json()
    assert [b["scenario"] for b in listed["results"]] == ["Rooftop Duel"]
    assert signed_in(eve).get("/api/v1/battles/").json()["results"] == []
