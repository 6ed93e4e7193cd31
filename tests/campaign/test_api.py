"""/api/v1/campaigns/: who may do what, and battles, Resources and level-ups end to end."""

import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.tokens import create_api_token
from campaign import services
from campaign.models import (
    Battle,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from roster import engine
from roster.models import Force, Member, SkillRoll
from tests.campaign.conftest import (
    TODAY,
    ann_takes_an_enemy_out,
    freeform_force,
    make_user,
    record,
)
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db
BASE = "/api/v1/campaigns/"


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def send(client, method: str, url: str, body=None):
    if method == "get":
        return client.get(url)
    if body is None:
        return getattr(client, method)(url)
    data = body if isinstance(body, str) else json.dumps(body)
    return getattr(client, method)(url, data, content_type="application/json")


def error_keys(response) -> list[tuple[str, str]]:
    return [(e["pointer"], e["code"]) for e in response.json()["errors"]]


def member(cf: CampaignForce, name: str) -> Member:
    return Member.objects.get(force_id=cf.force_id, name=name)


@pytest.fixture
def dice(monkeypatch):
    """The server's dice, scripted: `dice.faces.extend([...])` before each roll."""
    scripted = ScriptedDice()
    monkeypatch.setattr("rules.dice.server_dice", lambda: scripted)
    return scripted


@pytest.fixture
def clients(organiser, alice, bob, eve) -> dict[str, APIClient]:
    return {
        "organiser": signed_in(organiser),
        "alice": signed_in(alice),
        "bob": signed_in(bob),
        "outsider": signed_in(eve),
        "anonymous": APIClient(),
    }


def campaign_url(campaign: Campaign) -> str:
    return f"{BASE}{campaign.pk}/"


def force_url(cf: CampaignForce) -> str:
    return f"{BASE}{cf.campaign_id}/forces/{cf.pk}/"


def battle_url(battle: Battle) -> str:
    return f"{BASE}{battle.campaign_id}/battles/{battle.pk}/"


def battle_body(red, blue, *, winner="red", **overrides) -> dict[str, Any]:
    """A battle of every member of both forces, as the API takes it."""
    body = {
        "played_on": TODAY.isoformat(),
        "scenario": "Capture the Flag",
        "winner": {"red": red.pk, "blue": blue.pk, None: None}[winner],
        "results": [
            {"force": cf.pk, "members": [{"member": m.pk} for m in cf.force.members.all()]}
            for cf in (red, blue)
        ],
    }
    return body | overrides


def snapshot(campaign: Campaign) -> dict[str, Any]:
    """Everything an endpoint could change in the campaign (and the roster under it)."""
    campaign = Campaign.objects.get(pk=campaign.pk)
    forces = CampaignForce.objects.filter(campaign=campaign)
    return {
        "campaign": {**campaign.house_rules.as_dict(), "token": campaign.invite_token},
        "players": sorted(campaign.players.values_list("user_id", flat=True)),
        "forces": sorted(forces.values_list("pk", "retired_at")),
        "battles": sorted(campaign.battles.values_list("pk", "status")),
        "ledger": LedgerEntry.objects.filter(campaign=campaign).count(),
        "events": CampaignEvent.objects.filter(campaign=campaign).count(),
        "members": sorted(
            Member.objects.filter(force__campaign_entry__campaign=campaign).values_list(
                "pk", "xp", "level_ups"
            )
        ),
        "rolls": SkillRoll.objects.count(),
        "forces_in_roster": Force.objects.count(),
        "campaigns": Campaign.objects.count(),
    }


# --- the permission matrix -------------------------------------------------------------------


@dataclass
class World:
    """The campaign (olga organises; alice has Red, bob has Blue) and what a case set up."""

    campaign: Campaign
    red: CampaignForce
    blue: CampaignForce
    users: dict[str, Any]
    battle: Battle | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def pending(world: World) -> None:
    world.battle = record(world.campaign, world.users["alice"], world.red, world.blue)


def confirmed(world: World) -> None:
    """Red won, Ann took an enemy Out of Action: 3 XP, a level-up waiting (R16, R17)."""
    red, blue = world.red, world.blue
    world.battle = ann_takes_an_enemy_out(
        world.campaign, red, blue, by=world.users["alice"], confirmed_by=world.users["bob"]
    )


def open_level_up_roll(world: World) -> None:
    """As `confirmed`, then Ann's level-up skill roll comes up a natural 12."""
    confirmed(world)
    services.take_level_up(
        campaign_force=world.red,
        by=world.users["alice"],
        member=member(world.red, "Ann"),
        line=4,
        rng=ScriptedDice(12),
    )


def own_force(world: World, who: str) -> dict[str, int]:
    """Each caller offers a freeform force of their own."""
    return {"force": freeform_force(world.users[who], f"{who}'s new club").pk}


@dataclass
class Case:
    id: str
    method: str
    path: str  # under the campaign: "{red}" is Red's campaign force id, etc.
    expected: dict[str, int]  # organiser, alice (Red's owner), bob (Blue's owner)
    body: Any = None  # a value, or a callable (world, caller) -> body
    setup: Callable[[World], None] | None = None

    def url(self, world: World) -> str:
        ids = {
            "red": world.red.pk,
            "ann": member(world.red, "Ann").pk,
            "battle": world.battle.pk if world.battle else 0,
        }
        return f"{campaign_url(world.campaign)}{self.path.format(**ids)}"

    def body_for(self, world: World, who: str) -> Any:
        return self.body(world, who) if callable(self.body) else self.body


def everyone_may(code: int = 200) -> dict[str, int]:
    return {"organiser": code, "alice": code, "bob": code}


ORGANISER_ONLY = {"organiser": 200, "alice": 403, "bob": 403}
RED_OWNER_ONLY = {"organiser": 403, "alice": 201, "bob": 403}

CASES = [
    Case("detail", "get", "", everyone_may()),
    Case("house-rules", "patch", "", ORGANISER_ONLY, body={"resources_for_win": 12}),
    Case("invite-reset", "post", "invite/reset/", ORGANISER_ONLY),
    Case("forces", "get", "forces/", everyone_may()),
    # Alice and Bob already have an active force each (one per player).
    # A state conflict (409): retiring the active force first would let them enter.
    Case("enter", "post", "forces/", {"organiser": 201, "alice": 409, "bob": 409}, own_force),
    Case("force", "get", "forces/{red}/", everyone_may()),
    Case("retire", "post", "forces/{red}/retire/", {"organiser": 200, "alice": 200, "bob": 403}),
    Case("ledger", "get", "forces/{red}/ledger/", everyone_may()),
    Case(
        "adjust",
        "post",
        "forces/{red}/adjustments/",
        {"organiser": 201, "alice": 403, "bob": 403},
        body={"amount": 5, "reason": "Best painted"},
    ),
    Case(
        "spend",
        "post",
        "forces/{red}/spends/",
        RED_OWNER_ONLY,
        body={"amount": 5, "reason": "Hired help"},
    ),
    Case("battles", "get", "battles/", everyone_may()),
    Case(
        "record",
        "post",
        "battles/",
        everyone_may(201),
        body=lambda world, who: battle_body(world.red, world.blue),
    ),
    Case("battle", "get", "battles/{battle}/", everyone_may(), setup=pending),
    Case(
        "confirm",
        "post",
        "battles/{battle}/confirm/",
        {"organiser": 200, "alice": 403, "bob": 200},  # alice recorded it
        setup=pending,
    ),
    Case("void-pending", "post", "battles/{battle}/void/", everyone_may(), setup=pending),
    Case(
        "void-confirmed",
        "post",
        "battles/{battle}/void/",
        ORGANISER_ONLY,
        body={"reason": "Replayed"},
        setup=confirmed,
    ),
    Case("standings", "get", "standings/", everyone_may()),
    Case("level-ups", "get", "level-ups/", everyone_may(), setup=confirmed),
    Case("log", "get", "log/", everyone_may()),
    Case("export", "get", "export/", ORGANISER_ONLY),
    Case(
        "take-level-up",
        "post",
        "forces/{red}/members/{ann}/level-ups/",
        RED_OWNER_ONLY,
        body={"line": 1, "choice": "ME"},
        setup=confirmed,
    ),
    Case(
        "level-up-roll",
        "post",
        "forces/{red}/members/{ann}/level-ups/0/rolls/",
        RED_OWNER_ONLY,
        body={"action": "roll", "table": "melee"},
        setup=open_level_up_roll,
    ),
]
CASE_IDS = [case.id for case in CASES]
# The service's own code where a 403 comes from the write path rather than the view.
# The code each case's 403 carries (dbd_site.errors.NotAllowed): who may not do what.
REFUSED_AS = {
    "house-rules": "not-organiser",
    "invite-reset": "not-organiser",
    "adjust": "not-organiser",
    "spend": "not-owner",
    "confirm": "own-battle",  # alice recorded it (R14a)
    "retire": "not-owner",
    "void-confirmed": "not-organiser",
    "export": "not-organiser",
    "take-level-up": "not-owner",
    "level-up-roll": "not-owner",
}


@pytest.fixture
def world(campaign, red, blue, organiser, alice, bob, eve) -> World:
    users = {"organiser": organiser, "alice": alice, "bob": bob, "outsider": eve}
    return World(campaign=campaign, red=red, blue=blue, users=users)


@pytest.mark.parametrize("who", ["organiser", "alice", "bob"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_players_and_the_organiser(case, who, world, clients, dice):
    dice.faces.extend([1, 1, 1])
    if case.setup:
        case.setup(world)
    body = case.body_for(world, who)
    before = snapshot(world.campaign)
    response = send(clients[who], case.method, case.url(world), body)
    assert response.status_code == case.expected[who], response.content
    if response.status_code == 403:
        assert error_keys(response) == [("", REFUSED_AS[case.id])]
        assert response.json()["errors"][0]["message"]
    if response.status_code >= 400 or case.method == "get":
        assert snapshot(world.campaign) == before  # refused or read: nothing changes


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_an_outsider_gets_404_and_changes_nothing(case, world, clients, dice):
    dice.faces.extend([1, 1, 1])
    if case.setup:
        case.setup(world)
    body, alices = case.body_for(world, "outsider"), case.body_for(world, "alice")
    before = snapshot(world.campaign)
    response = send(clients["outsider"], case.method, case.url(world), body)
    assert response.status_code == 404
    assert error_keys(response) == [("", "not-found")]
    # The answer is the same as for a campaign that does not exist at all.
    missing = case.url(world).replace(f"/{world.campaign.pk}/", f"/{world.campaign.pk + 99}/", 1)
    assert send(clients["alice"], case.method, missing, alices).json() == response.json()
    assert snapshot(world.campaign) == before


ANONYMOUS_CASES = [
    *CASES,
    Case("list", "get", "", {}),
    Case("create", "post", "", {}, body={"name": "Sneaky League"}),
    Case("join", "post", "", {}, body=lambda world, who: {"token": world.campaign.invite_token}),
]


@pytest.mark.parametrize("case", ANONYMOUS_CASES, ids=[*CASE_IDS, "list", "create", "join"])
def test_anonymous_gets_401(case, world, clients, dice):
    dice.faces.extend([1, 1, 1])
    if case.setup:
        case.setup(world)
    before = snapshot(world.campaign)
    url = case.url(world)
    if case.id in ("list", "create"):
        url = BASE
    elif case.id == "join":
        url = f"{BASE}join/"
    body = None if case.id == "enter" else case.body_for(world, "anonymous")
    response = send(clients["anonymous"], case.method, url, body)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert error_keys(response) == [("", "not-authenticated")]
    assert snapshot(world.campaign) == before


def test_a_player_outside_the_battle_may_neither_confirm_nor_void_it(world, clients, alice):
    carol = make_user("carol")
    services.join_campaign(user=carol, token=world.campaign.invite_token)
    pending(world)
    before = snapshot(world.campaign)
    for action in ("confirm", "void"):
        response = send(signed_in(carol), "post", f"{battle_url(world.battle)}{action}/")
        assert response.status_code == 403
        assert error_keys(response) == [("", "not-in-battle")]
    assert snapshot(world.campaign) == before


def test_the_outsider_lists_no_campaigns_and_may_start_or_join_one(world, clients, eve):
    assert clients["outsider"].get(BASE).json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    joined = send(
        clients["outsider"], "post", f"{BASE}join/", {"token": world.campaign.invite_token}
    )
    assert joined.status_code == 200
    assert clients["outsider"].get(campaign_url(world.campaign)).status_code == 200
    assert CampaignPlayer.objects.filter(campaign=world.campaign, user=eve).exists()


# --- campaigns -------------------------------------------------------------------------------


def test_create_a_campaign_with_house_rules(clients, organiser):
    body = {"name": "Autumn Cup", "starting_resources": 60, "level_thresholds": [0, 2, 5]}
    response = send(clients["organiser"], "post", BASE, body)
    assert response.status_code == 201, response.content
    created = response.json()
    assert response["Location"] == created["url"]
    assert set(created) == {
        "id",
        "url",
        "name",
        "organiser",
        "is_organiser",
        "created_at",
        "house_rules",
        "players",
        "invite_token",
        "invite_url",
        "links",
    }
    assert (created["name"], created["organiser"], created["is_organiser"]) == (
        "Autumn Cup",
        "olga",
        True,
    )
    assert created["house_rules"] == {
        "starting_resources": 60,
        "resources_for_win": 10,
        "resources_for_draw": 7,
        "resources_for_loss": 5,
        "xp_for_taking_part": 1,
        "xp_per_enemy_out_of_action": 1,
        "xp_per_objective": 1,
        "xp_for_winning_side": 1,
        "level_thresholds": [0, 2, 5],
        "points_for_win": 3,
        "points_for_draw": 1,
        "points_for_loss": 0,
        "entered_rolls_allowed": True,
    }
    assert [(p["username"], p["is_organiser"]) for p in created["players"]] == [("olga", True)]
    campaign = Campaign.objects.get(pk=created["id"])
    assert created["invite_url"] == f"http://testserver/campaigns/join/{campaign.invite_token}/"
    assert created["links"]["standings"] == f"http://testserver{BASE}{campaign.pk}/standings/"
    assert clients["organiser"].get(created["url"]).json() == created


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, [("/name", "required")]),
        ({"name": "  "}, [("/name", "blank")]),
        ({"name": "X", "starting_resources": 0}, [("/starting_resources", "min-value")]),
        ({"name": "X", "level_thresholds": [0, 5, 5]}, [("/level_thresholds", "invalid")]),
        ({"name": "X", "level_thresholds": [1, 5]}, [("/level_thresholds", "invalid")]),
        ({"name": "X", "colour": "red"}, [("/colour", "unknown-key")]),
        ([], [("", "invalid")]),
    ],
)
def test_a_refused_campaign(clients, body, errors):
    response = send(clients["organiser"], "post", BASE, body)
    assert response.status_code == 400
    assert error_keys(response) == errors
    assert not Campaign.objects.exists()


def test_the_list_is_mine_newest_first_and_paginated(clients, organiser, alice):
    for name in ("One", "Two", "Three"):
        services.create_campaign(organiser=organiser, name=name)
    joined = services.create_campaign(organiser=alice, name="Alice's")
    services.join_campaign(user=organiser, token=joined.invite_token)
    first = clients["organiser"].get(f"{BASE}?limit=2").json()
    assert first["count"] == 4
    assert [(c["name"], c["is_organiser"]) for c in first["results"]] == [
        ("Alice's", False),
        ("Three", True),
    ]
    second = clients["organiser"].get(first["next"]).json()
    assert [c["name"] for c in second["results"]] == ["Two", "One"]
    assert clients["alice"].get(BASE).json()["count"] == 1


def test_house_rules_change_and_are_logged(world, clients):
    url = campaign_url(world.campaign)
    response = send(clients["organiser"], "patch", url, {"resources_for_win": 12})
    assert response.status_code == 200
    assert response.json()["house_rules"]["resources_for_win"] == 12
    log = clients["alice"].get(f"{url}log/").json()["results"]
    assert log[0]["kind"] == "house-rules-changed"
    assert log[0]["actor"] == "olga"
    assert log[0]["data"] == {"changes": {"resources_for_win": [10, 12]}}


def test_entered_rolls_setting_round_trip(world, clients):
    """P5: the house rule that forbids dice entered at the table, off and on again."""
    url = campaign_url(world.campaign)
    assert clients["alice"].get(url).json()["house_rules"]["entered_rolls_allowed"] is True
    response = send(clients["organiser"], "patch", url, {"entered_rolls_allowed": False})
    assert response.status_code == 200
    assert response.json()["house_rules"]["entered_rolls_allowed"] is False
    assert clients["alice"].get(url).json()["house_rules"]["entered_rolls_allowed"] is False
    world.campaign.refresh_from_db()
    assert world.campaign.house_rules.entered_rolls_allowed is False
    log = clients["alice"].get(f"{url}log/").json()["results"]
    assert log[0]["data"] == {"changes": {"entered_rolls_allowed": [True, False]}}
    assert log[0]["message"].endswith(
        "Dice rolled at the table may be entered in battles (P5) yes -> no."
    )
    response = send(clients["organiser"], "patch", url, {"entered_rolls_allowed": True})
    assert response.json()["house_rules"]["entered_rolls_allowed"] is True


def test_a_new_campaign_may_forbid_entered_rolls(clients):
    body = {"name": "Strict Cup", "entered_rolls_allowed": False}
    response = send(clients["organiser"], "post", BASE, body)
    assert response.status_code == 201, response.content
    assert response.json()["house_rules"]["entered_rolls_allowed"] is False


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"entered_rolls_allowed": "no"}, [("/entered_rolls_allowed", "invalid")]),
        ({"entered_rolls_allowed": 0}, [("/entered_rolls_allowed", "invalid")]),
        ({"entered_rolls_allowed": None}, [("/entered_rolls_allowed", "null")]),
        ({"name": "Renamed"}, [("/name", "unknown-key")]),
        ({"resources_for_win": -1}, [("/resources_for_win", "min-value")]),
        ({"resources_for_win": "lots"}, [("/resources_for_win", "invalid")]),
        ({"level_thresholds": [0, 3, 2]}, [("/level_thresholds", "invalid")]),
        ({"level_thresholds": "1,2"}, [("/level_thresholds", "not-a-list")]),
    ],
)
def test_refused_house_rules(world, clients, body, errors):
    before = snapshot(world.campaign)
    response = send(clients["organiser"], "patch", campaign_url(world.campaign), body)
    assert response.status_code == 400
    assert error_keys(response) == errors
    assert snapshot(world.campaign) == before


def test_thresholds_that_strand_a_taken_level_up_are_refused(world, clients, alice):
    confirmed(world)
    services.take_level_up(
        campaign_force=world.red, by=alice, member=member(world.red, "Ann"), line=1, choice="ME"
    )
    body = {"level_thresholds": [0, 4, 8]}
    response = send(clients["organiser"], "patch", campaign_url(world.campaign), body)
    assert response.status_code == 400
    assert error_keys(response) == [("/level_thresholds", "invalid-house-rules")]
    assert "Ann" in response.json()["errors"][0]["message"]


def test_joining_and_a_new_invitation_link(world, clients, eve):
    url = campaign_url(world.campaign)
    old = world.campaign.invite_token
    reset = send(clients["organiser"], "post", f"{url}invite/reset/")
    assert reset.status_code == 200
    new = reset.json()["invite_token"]
    assert new != old
    assert reset.json()["invite_url"].endswith(f"/campaigns/join/{new}/")
    refused = send(clients["outsider"], "post", f"{BASE}join/", {"token": old})
    assert refused.status_code == 404  # no campaign has that link (any more)
    assert error_keys(refused) == [("", "invalid-invite")]
    assert send(clients["outsider"], "post", f"{BASE}join/", {}).status_code == 400
    joined = send(clients["outsider"], "post", f"{BASE}join/", {"token": new})
    assert joined.status_code == 200
    assert [p["username"] for p in joined.json()["players"]] == ["olga", "alice", "bob", "eve"]
    assert joined.json()["is_organiser"] is False
    again = send(clients["outsider"], "post", f"{BASE}join/", {"token": new})
    assert again.status_code == 200
    assert world.campaign.players.filter(user=eve).count() == 1


# --- forces and Resources ----------------------------------------------------------------------


def test_entering_a_force(world, clients, organiser):
    original = freeform_force(organiser, "Olga's Own")
    url = f"{campaign_url(world.campaign)}forces/"
    response = send(clients["organiser"], "post", url, {"force": original.pk})
    assert response.status_code == 201, response.content
    body = response.json()
    assert response["Location"] == body["url"]
    entry = CampaignForce.objects.get(pk=body["id"])
    assert body["force"] == entry.force_id != original.pk  # the campaign's own copy
    assert body["force_url"] == f"http://testserver/api/v1/rosters/{entry.force_id}/"
    assert (body["name"], body["player"], body["balance"], body["rating"]) == (
        "Olga's Own",
        "olga",
        45,
        5,
    )
    assert (body["valid"], body["retired"], body["retired_at"]) == (True, False, None)
    assert [(m["name"], m["xp"], m["level"], m["level_ups_waiting"]) for m in body["members"]] == [
        ("Emma", 0, 1, 0),
        ("Ann", 0, 1, 0),
        ("Ben", 0, 1, 0),
        ("Cat", 0, 1, 0),
    ]
    listed = clients["alice"].get(url).json()
    assert [(f["name"], f["player"]) for f in listed["results"]] == [
        ("Red Club", "alice"),
        ("Blue Club", "bob"),
        ("Olga's Own", "olga"),
    ]


def test_entering_refusals_point_at_the_force(world, clients, alice, bob):
    url = f"{campaign_url(world.campaign)}forces/"
    bobs = freeform_force(bob, "Bob's Spare")
    response = send(clients["organiser"], "post", url, {"force": bobs.pk})
    assert response.status_code == 400
    assert error_keys(response) == [("/force", "not-found")]
    spare = freeform_force(alice, "Alice's Spare")
    response = send(clients["alice"], "post", url, {"force": spare.pk})
    assert response.status_code == 409  # a state conflict: retire Red first
    assert error_keys(response) == [("", "already-in-campaign")]
    assert "already have a force" in response.json()["errors"][0]["message"]
    response = send(clients["alice"], "post", url, {"force": "red"})
    assert error_keys(response) == [("/force", "invalid")]
    assert CampaignForce.objects.count() == 2


def test_retiring(world, clients):
    response = send(clients["alice"], "post", f"{force_url(world.red)}retire/")
    assert response.status_code == 200
    assert response.json()["retired"] is True
    again = send(clients["alice"], "post", f"{force_url(world.red)}retire/")
    assert again.status_code == 409
    assert error_keys(again) == [("", "force-retired")]


def test_ledger_adjustments_and_spends(world, clients):
    ledger = f"{force_url(world.red)}ledger/"
    adjusted = send(
        clients["organiser"],
        "post",
        f"{force_url(world.red)}adjustments/",
        {"amount": 7, "reason": "Prize"},
    )
    assert adjusted.status_code == 201
    assert {k: adjusted.json()[k] for k in ("kind", "amount", "reason", "running_balance")} == {
        "kind": "adjustment",
        "amount": 7,
        "reason": "Prize",
        "running_balance": 52,
    }
    spent = send(
        clients["alice"], "post", f"{force_url(world.red)}spends/", {"amount": 2, "reason": "Tea"}
    )
    assert spent.status_code == 201
    assert (spent.json()["amount"], spent.json()["running_balance"]) == (-2, 50)
    assert spent.json()["created_by"] == "alice"

    page = clients["bob"].get(f"{ledger}?limit=2&offset=2").json()
    assert page["count"] == 4
    assert [(e["kind"], e["amount"], e["running_balance"]) for e in page["results"]] == [
        ("adjustment", 7, 52),
        ("purchase", -2, 50),
    ]
    first = clients["bob"].get(f"{ledger}?limit=2").json()["results"]
    assert [(e["kind"], e["running_balance"]) for e in first] == [("start", 50), ("purchase", 45)]
    assert clients["bob"].get(force_url(world.red)).json()["balance"] == 50


SHORT = [("/amount", "insufficient-resources")]


@pytest.mark.parametrize(
    ("who", "path", "body", "errors"),
    [
        ("alice", "spends/", {"amount": 46, "reason": "Bribe"}, SHORT),
        ("alice", "spends/", {"amount": 0, "reason": "Bribe"}, [("/amount", "min-value")]),
        ("alice", "spends/", {"amount": 1, "reason": " "}, [("/reason", "blank")]),
        ("organiser", "adjustments/", {"amount": -46, "reason": "Fine"}, SHORT),
        ("organiser", "adjustments/", {"amount": 0, "reason": "Fine"}, [("/amount", "invalid")]),
        ("organiser", "adjustments/", {"amount": 5}, [("/reason", "required")]),
    ],
)
def test_no_overdraft_and_refused_amounts(world, clients, who, path, body, errors):
    before = snapshot(world.campaign)
    response = send(clients[who], "post", f"{force_url(world.red)}{path}", body)
    assert response.status_code == 400
    assert error_keys(response) == errors
    assert snapshot(world.campaign) == before
    assert clients["alice"].get(force_url(world.red)).json()["balance"] == 45


# --- battles ---------------------------------------------------------------------------------


def test_record_confirm_and_what_it_gives(world, clients, alice, bob):
    red, blue = world.red, world.blue
    body = battle_body(red, blue)
    ann = member(red, "Ann")
    body["results"][0]["members"][1] = {
        "member": ann.pk,
        "enemies_out_of_action": 2,
        "objectives": 1,
        "unconscious": True,
    }
    for j in (0, 1):  # R14b: Ann's two enemies are two of Blue's members Out of Action
        body["results"][1]["members"][j]["out_of_action"] = True
    battles = f"{campaign_url(world.campaign)}battles/"
    recorded = send(clients["alice"], "post", battles, body)
    assert recorded.status_code == 201, recorded.content
    battle = recorded.json()
    assert recorded["Location"] == battle["url"]
    assert (battle["status"], battle["winner"], battle["recorded_by"]) == (
        "pending",
        red.pk,
        "alice",
    )
    assert battle["can_confirm"] is False  # alice recorded it
    assert [(f["force"], f["result"]) for f in battle["forces"]] == [
        (red.pk, "win"),
        (blue.pk, "loss"),
    ]
    assert battle["forces"][0]["members"][1] == {
        "member": ann.pk,
        "name": "Ann",
        "unconscious": True,
        "out_of_action": False,
        "enemies_out_of_action": 2,
        "objectives": 1,
        "xp_awarded": 0,
    }
    # Pending counts for nothing.
    standings = f"{campaign_url(world.campaign)}standings/"
    assert [row["played"] for row in clients["bob"].get(standings).json()] == [0, 0]
    assert clients["bob"].get(battle["url"]).json()["can_confirm"] is True
    pending_list = clients["bob"].get(f"{battles}?status=pending").json()
    assert [b["id"] for b in pending_list["results"]] == [battle["id"]]
    assert clients["bob"].get(f"{battles}?status=confirmed").json()["count"] == 0

    confirmed_ = send(clients["bob"], "post", f"{battle['url']}confirm/")
    assert confirmed_.status_code == 200
    assert (confirmed_.json()["status"], confirmed_.json()["confirmed_by"]) == ("confirmed", "bob")
    assert confirmed_.json()["can_confirm"] is False
    # R16: taking part 1, +1 per enemy, +1 per objective, +1 for the winning side.
    xp = {m["name"]: m["xp_awarded"] for m in confirmed_.json()["forces"][0]["members"]}
    assert xp == {"Emma": 2, "Ann": 5, "Ben": 2, "Cat": 2}
    assert {m["name"]: m["xp_awarded"] for m in confirmed_.json()["forces"][1]["members"]} == {
        "Emma": 1,
        "Ann": 1,
        "Ben": 1,
        "Cat": 1,
    }
    # R15: win 10, loss 5, in the ledger and the standings.
    red_ledger = clients["bob"].get(f"{force_url(red)}ledger/").json()["results"]
    assert (red_ledger[-1]["kind"], red_ledger[-1]["amount"], red_ledger[-1]["battle"]) == (
        "battle",
        10,
        battle["id"],
    )
    assert red_ledger[-1]["running_balance"] == 55
    blue_ledger = clients["alice"].get(f"{force_url(blue)}ledger/").json()["results"]
    assert (blue_ledger[-1]["amount"], blue_ledger[-1]["running_balance"]) == (5, 50)
    table = clients["organiser"].get(standings).json()
    assert table == [
        {
            "force": red.pk,
            "name": "Red Club",
            "player": "alice",
            "played": 1,
            "won": 1,
            "drawn": 0,
            "lost": 0,
            "points": 3,
            "resources": 55,
            "rating": 5,
            "retired": False,
        },
        {
            "force": blue.pk,
            "name": "Blue Club",
            "player": "bob",
            "played": 1,
            "won": 0,
            "drawn": 0,
            "lost": 1,
            "points": 0,
            "resources": 50,
            "rating": 5,
            "retired": False,
        },
    ]
    # Ann reached level 2 (5 XP): one level-up waiting.
    members = clients["alice"].get(force_url(red)).json()["members"]
    assert [(m["name"], m["xp"], m["level"], m["level_ups_waiting"]) for m in members][1] == (
        "Ann",
        5,
        2,
        1,
    )
    waiting = clients["bob"].get(f"{campaign_url(world.campaign)}level-ups/").json()
    assert [(w["force"], w["name"], w["level"], w["waiting"]) for w in waiting] == [
        (red.pk, "Ann", 2, 1)
    ]
    assert waiting[0]["player"] == "alice"
    again = send(clients["organiser"], "post", f"{battle['url']}confirm/")
    assert again.status_code == 409
    assert error_keys(again) == [("", "battle-not-pending")]


def test_the_recorder_cannot_confirm_their_own_battle(world, clients):
    battle = send(
        clients["alice"],
        "post",
        f"{campaign_url(world.campaign)}battles/",
        battle_body(world.red, world.blue),
    ).json()
    response = send(clients["alice"], "post", f"{battle['url']}confirm/")
    assert response.status_code == 403
    assert "recorder" in response.json()["errors"][0]["message"]
    assert clients["alice"].get(battle["url"]).json()["status"] == "pending"
    assert LedgerEntry.objects.filter(battle_id=battle["id"]).count() == 0


def test_a_draw(world, clients):
    body = battle_body(world.red, world.blue, winner=None)
    battle = send(clients["bob"], "post", f"{campaign_url(world.campaign)}battles/", body).json()
    assert battle["winner"] is None
    assert [f["result"] for f in battle["forces"]] == ["draw", "draw"]
    send(clients["alice"], "post", f"{battle['url']}confirm/")
    rows = clients["alice"].get(f"{campaign_url(world.campaign)}standings/").json()
    assert [(r["drawn"], r["points"], r["resources"]) for r in rows] == [(1, 1, 52), (1, 1, 52)]


def test_voiding_reverses_a_confirmed_battle(world, clients):
    confirmed(world)
    url = battle_url(world.battle)
    refused = send(clients["organiser"], "post", f"{url}void/", {"reason": " "})
    assert refused.status_code == 400
    assert error_keys(refused) == [("/reason", "required")]

    voided = send(clients["organiser"], "post", f"{url}void/", {"reason": "Wrong scenario"})
    assert voided.status_code == 200
    assert (voided.json()["status"], voided.json()["voided_by"], voided.json()["void_reason"]) == (
        "void",
        "olga",
        "Wrong scenario",
    )
    ledger = clients["alice"].get(f"{force_url(world.red)}ledger/").json()["results"]
    battle_entry, reversal = ledger[-2:]
    assert (battle_entry["kind"], battle_entry["amount"]) == ("battle", 10)
    assert (reversal["kind"], reversal["amount"], reversal["reverses"]) == (
        "reversal",
        -10,
        battle_entry["id"],
    )
    assert reversal["running_balance"] == 45
    rows = clients["bob"].get(f"{campaign_url(world.campaign)}standings/").json()
    assert [(r["played"], r["points"], r["resources"]) for r in rows] == [(0, 0, 45), (0, 0, 45)]
    members = clients["alice"].get(force_url(world.red)).json()["members"]
    assert all(m["xp"] == 0 for m in members)
    again = send(clients["organiser"], "post", f"{url}void/", {"reason": "Twice"})
    assert again.status_code == 409
    assert error_keys(again) == [("", "battle-not-pending")]


def test_voiding_is_refused_when_the_reward_was_spent(world, clients, alice):
    confirmed(world)
    services.spend(campaign_force=world.red, amount=50, reason="Mercenaries", by=alice)
    before = snapshot(world.campaign)
    response = send(
        clients["organiser"], "post", f"{battle_url(world.battle)}void/", {"reason": "Oops"}
    )
    assert response.status_code == 400
    assert error_keys(response) == [("", "void-overdraws")]
    assert snapshot(world.campaign) == before


def test_withdrawing_and_disputing_a_pending_battle(world, clients):
    pending(world)
    disputed = send(clients["bob"], "post", f"{battle_url(world.battle)}void/")
    assert disputed.status_code == 200
    assert disputed.json()["status"] == "void"
    pending(world)
    withdrawn = send(clients["alice"], "post", f"{battle_url(world.battle)}void/", {"reason": ""})
    assert withdrawn.status_code == 200
    battles = clients["bob"].get(f"{campaign_url(world.campaign)}battles/?status=void").json()
    assert battles["count"] == 2


def test_a_force_in_a_pending_battle_waits(world, clients):
    pending(world)
    body = battle_body(world.red, world.blue)
    response = send(clients["alice"], "post", f"{campaign_url(world.campaign)}battles/", body)
    assert response.status_code == 409
    assert error_keys(response) == [("", "battle-pending")]
    assert "waiting for confirmation" in response.json()["errors"][0]["message"]
    assert Battle.objects.count() == 1


def _results_with(red, blue, change):
    body = battle_body(red, blue)
    change(body)
    return body


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        (lambda b: b.update(winner=99999), [("/winner", "invalid")]),
        (lambda b: b.pop("winner"), [("/winner", "required")]),
        (
            lambda b: b["results"][1]["members"][0].update(objectives=-1),
            [("/results/1/members/0/objectives", "min-value")],
        ),
        (
            lambda b: b["results"][0]["members"][2].update(enemies_out_of_action=100),
            [("/results/0/members/2/enemies_out_of_action", "max-value")],
        ),
        (
            lambda b: b["results"][1]["members"].append(dict(b["results"][1]["members"][0])),
            [("/results/1/members/4/member", "listed-twice")],
        ),
        (
            lambda b: b["results"][1]["members"][0].update(b["results"][0]["members"][0]),
            [("/results/1/members/0/member", "not-found")],
        ),
        (lambda b: b["results"][1].update(force=99999), [("/results/1/force", "not-found")]),
        (
            lambda b: b["results"][1].update(force=b["results"][0]["force"]),
            [("/results/1/force", "listed-twice")],
        ),
        (lambda b: b["results"].pop(), [("/results", "min-length")]),
        (lambda b: b["results"][0].update(members=[]), [("/results/0/members", "min-length")]),
        (
            lambda b: b.update(played_on=(TODAY + datetime.timedelta(days=3650)).isoformat()),
            [("/played_on", "battle-in-future")],
        ),
        (lambda b: b.update(played_on="yesterday"), [("/played_on", "invalid")]),
        (lambda b: b.update(scenario=""), [("/scenario", "blank")]),
    ],
)
def test_a_refused_battle_points_at_its_mistake(world, clients, change, errors):
    body = _results_with(world.red, world.blue, change)
    before = snapshot(world.campaign)
    response = send(clients["alice"], "post", f"{campaign_url(world.campaign)}battles/", body)
    assert response.status_code == 400
    assert error_keys(response) == errors
    assert snapshot(world.campaign) == before


def test_a_battle_with_another_campaigns_force(world, clients, alice, bob, organiser):
    other = services.create_campaign(organiser=organiser, name="Other")
    services.join_campaign(user=bob, token=other.invite_token)
    elsewhere = services.enter_force(
        campaign=other, player=bob, force=freeform_force(bob, "Blue Elsewhere")
    )
    body = battle_body(world.red, world.blue)
    body["results"][1] = {
        "force": elsewhere.pk,
        "members": [{"member": m.pk} for m in elsewhere.force.members.all()],
    }
    response = send(clients["alice"], "post", f"{campaign_url(world.campaign)}battles/", body)
    assert error_keys(response) == [("/results/1/force", "not-found")]


def test_a_bad_status_filter(world, clients):
    response = clients["alice"].get(f"{campaign_url(world.campaign)}battles/?status=lost")
    assert response.status_code == 400
    assert error_keys(response) == [("/status", "invalid-choice")]


def test_battles_are_paginated_newest_first(world, clients, alice, bob):
    for days in (3, 1, 2):
        battle = record(
            world.campaign,
            alice,
            world.red,
            world.blue,
            played_on=TODAY - datetime.timedelta(days=days),
            scenario=f"{days} days ago",
        )
        services.confirm_battle(battle=battle, by=bob)
    url = f"{campaign_url(world.campaign)}battles/?limit=2"
    first = clients["bob"].get(url).json()
    assert first["count"] == 3
    assert [b["scenario"] for b in first["results"]] == ["1 days ago", "2 days ago"]
    assert [b["scenario"] for b in clients["bob"].get(first["next"]).json()["results"]] == [
        "3 days ago"
    ]


# --- level-ups (R17) -----------------------------------------------------------------------


def level_up_url(world: World, name: str = "Ann") -> str:
    return f"{force_url(world.red)}members/{member(world.red, name).pk}/level-ups/"


def test_taking_a_statistic_level_up(world, clients):
    confirmed(world)
    response = send(clients["alice"], "post", level_up_url(world), {"line": 1, "choice": "ME"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slot"] == "level_ups/0"
    assert body["advancement"] == {"line": 1, "choice": "ME"}
    assert body["roll"] is None
    assert (body["member"]["name"], body["member"]["level_ups_waiting"]) == ("Ann", 0)
    assert body["force"]["valid"] is True
    again = send(clients["alice"], "post", level_up_url(world), {"line": 1, "choice": "ME"})
    assert again.status_code == 400
    assert error_keys(again) == [("/line", "no-level-up-waiting")]
    assert "no level-up waiting" in again.json()["errors"][0]["message"]


def test_a_level_up_skill_rolled_with_the_servers_dice(world, clients, dice):
    confirmed(world)
    dice.faces.append(2)
    response = send(clients["alice"], "post", level_up_url(world), {"line": 4})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["roll"]["dice"] == [2]
    assert body["roll"]["outcome"] == "skill"
    assert body["advancement"] == {"line": 4, "skill": body["roll"]["skill"], "method": "rolled"}
    assert body["force"]["valid"] is True
    roll = SkillRoll.objects.get(member=member(world.red, "Ann"))
    assert (roll.slot, roll.rolled_by.username) == ("level_ups/0", "alice")


def test_a_natural_12_is_finished_with_the_rolls_endpoint(world, clients, dice):
    confirmed(world)
    dice.faces.append(12)
    taken = send(clients["alice"], "post", level_up_url(world), {"line": 4}).json()
    assert taken["roll"]["outcome"] == "natural-12"
    assert taken["advancement"] == {"line": 4, "method": "rolled", "natural_12": True}
    rolls = f"{level_up_url(world)}0/rolls/"

    dice.faces.append(3)
    refused = send(clients["alice"], "post", rolls, {"action": "roll"})
    assert refused.status_code == 400
    assert error_keys(refused) == [("/table", "table-required")]
    assert send(clients["alice"], "post", rolls, {"action": "dance"}).status_code == 400

    dice.faces[:] = [10]
    rolled = send(clients["alice"], "post", rolls, {"action": "roll", "table": "melee"})
    assert rolled.status_code == 201, rolled.content
    assert (rolled.json()["roll"]["table"], rolled.json()["roll"]["skill"]) == (
        "melee",
        "melee/dual-wield",
    )
    assert rolled.json()["advancement"]["skill"] == "melee/dual-wield"
    assert rolled.json()["force"]["valid"] is True

    picked = send(clients["alice"], "post", rolls, {"action": "pick", "skill": "movement/catfall"})
    assert picked.status_code == 200
    assert picked.json()["advancement"] == {
        "line": 4,
        "skill": "movement/catfall",
        "method": "picked",
    }
    missing = send(clients["alice"], "post", f"{level_up_url(world)}1/rolls/", {"action": "roll"})
    assert missing.status_code == 404


def fr_of(cf: CampaignForce, name: str) -> int:
    members = Force.objects.get(pk=cf.force_id).evaluation["members"]
    return next(m for m in members if m["name"] == name)["stats"]["FR"]


@pytest.mark.parametrize(("fr", "allowed"), [(engine.REROLL_FR_COST, True), (0, False)])
def test_r5a_a_level_up_reroll_needs_the_fr_to_pay_for_it(world, clients, dice, fr, allowed):
    """R17 rolls skills as R5 does: with FR exactly the re-roll's cost it is taken (FR 0
    after, R3); below it, refused with one problem and nothing changes (R5a)."""
    confirmed(world)
    dice.faces.append(2)
    assert send(clients["alice"], "post", level_up_url(world), {"line": 4}).status_code == 201
    rolls = f"{level_up_url(world)}0/rolls/"
    while fr_of(world.red, "Ann") > fr:
        dice.faces.append(2)
        assert send(clients["alice"], "post", rolls, {"action": "roll"}).status_code == 201
    assert fr_of(world.red, "Ann") == fr
    ann = member(world.red, "Ann")
    before = (ann.level_ups, SkillRoll.objects.count(), Force.objects.get(pk=ann.force_id).version)

    dice.faces.append(5)
    response = send(clients["alice"], "post", rolls, {"action": "roll"})
    if allowed:
        assert response.status_code == 201, response.content
        assert response.json()["roll"]["dice"] == [5]
        assert fr_of(world.red, "Ann") == 0
        return
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "pointer": "/slot",
                "code": "reroll-fr",
                "message": "Ann has no FR left to pay for this (R5a: FR may not go below 0).",
            }
        ]
    }
    ann = member(world.red, "Ann")
    after = (ann.level_ups, SkillRoll.objects.count(), Force.objects.get(pk=ann.force_id).version)
    assert after == before


def test_level_ups_of_a_member_of_another_force_are_404(world, clients):
    confirmed(world)
    url = f"{force_url(world.red)}members/{member(world.blue, 'Ann').pk}/level-ups/"
    response = send(clients["alice"], "post", url, {"line": 1, "choice": "ME"})
    assert response.status_code == 404


# --- export, auth, schema ----------------------------------------------------------------------


def test_the_export(world, clients):
    confirmed(world)
    response = clients["organiser"].get(f"{campaign_url(world.campaign)}export/")
    assert response.status_code == 200
    document = response.json()
    assert document["format"] == "dbd-campaign/1"
    assert len(document["forces"]) == 2
    assert world.campaign.invite_token not in response.content.decode()


def test_token_authentication(world, alice):
    _, raw = create_api_token(user=alice, name="league app")
    strict = APIClient(enforce_csrf_checks=True)
    strict.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert strict.get(BASE).json()["count"] == 1
    body = battle_body(world.red, world.blue)
    recorded = strict.post(f"{campaign_url(world.campaign)}battles/", body, format="json")
    assert recorded.status_code == 201  # no session, so no CSRF token needed
    wrong = APIClient().get(BASE, HTTP_AUTHORIZATION="Token not-a-token")
    assert wrong.status_code == 401
    assert error_keys(wrong) == [("", "authentication-failed")]


def test_a_session_needs_its_csrf_token(world, alice):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.get(campaign_url(world.campaign)).status_code == 200
    refused = browser.post(f"{force_url(world.red)}retire/")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["errors"][0]["message"]
    assert CampaignForce.objects.get(pk=world.red.pk).retired_at is None


def test_a_body_that_is_not_json(world, clients):
    response = send(clients["alice"], "post", f"{BASE}join/", "{not json")
    assert response.status_code == 400
    assert error_keys(response) == [("", "parse-error")]
    form = clients["alice"].post(f"{BASE}join/", {"token": "x"}, format="multipart")
    assert form.status_code == 415


def test_the_api_root_links_campaigns(client):
    assert client.get("/api/v1/").json()["campaigns"] == f"http://testserver{BASE}"


def test_every_endpoint_is_described(client):
    schema = client.get("/api/schema/?format=json").json()
    operations = {
        (path, method): operation
        for path, item in schema["paths"].items()
        if path.startswith(BASE)
        for method, operation in item.items()
    }
    c = f"{BASE}{{campaign_id}}/"
    f = f"{c}forces/{{campaign_force_id}}/"
    m = f"{f}members/{{member_id}}/level-ups/"
    b = f"{c}battles/{{battle_id}}/"
    assert set(operations) == {
        (BASE, "get"),
        (BASE, "post"),
        (f"{BASE}join/", "post"),
        (f"{BASE}import/", "post"),
        (c, "get"),
        (c, "patch"),
        (f"{c}invite/reset/", "post"),
        (f"{c}forces/", "get"),
        (f"{c}forces/", "post"),
        (f, "get"),
        (f"{f}retire/", "post"),
        (f"{f}ledger/", "get"),
        (f"{f}adjustments/", "post"),
        (f"{f}spends/", "post"),
        (m, "post"),
        (f"{m}{{level_up_index}}/rolls/", "post"),
        (f"{c}battles/", "get"),
        (f"{c}battles/", "post"),
        (b, "get"),
        (f"{b}confirm/", "post"),
        (f"{b}void/", "post"),
        (f"{c}standings/", "get"),
        (f"{c}level-ups/", "get"),
        (f"{c}log/", "get"),
        (f"{c}export/", "get"),
    }
    assert all(op["tags"] == ["campaigns"] for op in operations.values())
    assert all(op.get("summary") for op in operations.values())
    for key, operation in operations.items():
        if key[0] not in (BASE, f"{BASE}join/", f"{BASE}import/"):  # no id in the path
            assert "404" in operation["responses"], key
        assert "401" in operation["responses"], key
    listed = operations[(f"{c}battles/", "get")]["responses"]["200"]
    assert listed["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PaginatedBattleList"
    }


@pytest.mark.parametrize("who", ["alice", "outsider"])
@pytest.mark.parametrize("path", ["", "{c}", "{c}forces/", "{c}battles/", "{c}standings/"])
def test_the_browsable_api_renders(world, clients, who, path):
    url = f"{BASE}{path.format(c=f'{world.campaign.pk}/')}"
    response = clients[who].get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == (404 if who == "outsider" and path else 200)
    assert response["Content-Type"].startswith("text/html")
