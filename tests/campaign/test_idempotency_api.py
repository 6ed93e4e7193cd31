"""Every API write that creates or spends honours `Idempotency-Key` (issue #32,
docs/idempotency.md): sent twice with one key it is done once and answered alike; the
key with another body is refused and does nothing. Racing requests: see
tests/test_idempotency_races.py."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from campaign.models import Battle, Campaign, CampaignPlayer, LedgerEntry
from roster.models import Force
from tests.campaign.conftest import freeform_force, member
from tests.campaign.test_api import battle_body, confirmed, force_url, level_up_url
from tests.roster.builders import legal_force, signed_in
from tests.test_idempotency import same_answer

pytestmark = pytest.mark.django_db


@dataclass
class World:
    campaign: Any
    red: Any
    blue: Any
    users: dict
    battle: Any = None


@dataclass(frozen=True)
class Write:
    """One operation: who sends what where, and the count it moves by one."""

    name: str
    who: str
    url: Callable[[World], str]
    body: Callable[[World], dict]
    other: Callable[[World], dict]
    count: Callable[[World], int]
    setup: Callable[[World], None] | None = None


def _enter_eves_force(world: World) -> None:
    from campaign import services

    services.join_campaign(user=world.users["eve"], token=world.campaign.invite_token)


WRITES = [
    Write(
        "rosters_create",
        "alice",
        lambda w: "/api/v1/rosters/",
        lambda w: legal_force(),
        lambda w: {**legal_force(), "name": "Another"},
        lambda w: Force.objects.count(),
    ),
    Write(
        "campaigns_create",
        "alice",
        lambda w: "/api/v1/campaigns/",
        lambda w: {"name": "Summer Cup"},
        lambda w: {"name": "Winter Cup"},
        lambda w: Campaign.objects.count(),
    ),
    Write(
        "campaigns_join",
        "eve",
        lambda w: "/api/v1/campaigns/join/",
        lambda w: {"token": w.campaign.invite_token},
        lambda w: {"token": "another"},
        lambda w: CampaignPlayer.objects.count(),
    ),
    Write(
        "campaigns_forces_create",
        "eve",
        lambda w: f"/api/v1/campaigns/{w.campaign.pk}/forces/",
        lambda w: {"force": freeform_force(w.users["eve"], "Eve's Club").pk},
        lambda w: {"force": 0},
        lambda w: w.campaign.forces.count(),
        setup=_enter_eves_force,
    ),
    Write(
        "campaigns_forces_spends_create",
        "alice",
        lambda w: f"{force_url(w.red)}spends/",
        lambda w: {"amount": 1, "reason": "Hired help"},
        lambda w: {"amount": 2, "reason": "Hired help"},
        lambda w: LedgerEntry.objects.count(),
    ),
    Write(
        "campaigns_forces_adjustments_create",
        "organiser",
        lambda w: f"{force_url(w.red)}adjustments/",
        lambda w: {"amount": 3, "reason": "Best painted"},
        lambda w: {"amount": 4, "reason": "Best painted"},
        lambda w: LedgerEntry.objects.count(),
    ),
    Write(
        "campaigns_battles_create",
        "alice",
        lambda w: f"/api/v1/campaigns/{w.campaign.pk}/battles/",
        lambda w: battle_body(w.red, w.blue),
        lambda w: battle_body(w.red, w.blue, winner=None),
        lambda w: Battle.objects.count(),
    ),
    Write(
        "campaigns_members_level_ups_create",
        "alice",
        lambda w: level_up_url(w),
        lambda w: {"line": 1, "choice": "ME"},
        lambda w: {"line": 1, "choice": "RA"},
        lambda w: len(member(w.red, "Ann").level_ups),
        setup=confirmed,
    ),
]


@pytest.fixture
def world(campaign, red, blue, organiser, alice, bob, eve) -> World:
    users = {"organiser": organiser, "alice": alice, "bob": bob, "eve": eve}
    return World(campaign=campaign, red=red, blue=blue, users=users)


def send(world: World, write: Write, body: dict, key: str):
    return signed_in(world.users[write.who]).post(
        write.url(world), body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


@pytest.mark.parametrize("write", WRITES, ids=[w.name for w in WRITES])
def test_sent_twice_with_its_key_it_is_done_once_and_answered_alike(world, write):
    if write.setup:
        write.setup(world)
    body = write.body(world)
    before = write.count(world)
    first = send(world, write, body, "tap-1")
    assert first.status_code in (200, 201), first.content
    again = send(world, write, body, "tap-1")
    same_answer(first, again)
    assert write.count(world) == before + 1


@pytest.mark.parametrize("write", WRITES, ids=[w.name for w in WRITES])
def test_the_key_with_another_body_is_refused_and_does_nothing(world, write):
    if write.setup:
        write.setup(world)
    first = send(world, write, write.body(world), "tap-2")
    assert first.status_code in (200, 201), first.content
    after_first = write.count(world)
    refused = send(world, write, write.other(world), "tap-2")
    assert refused.status_code == 400
    assert [e["code"] for e in refused.json()["errors"]] == ["idempotency-key-reused"]
    assert write.count(world) == after_first


def test_every_post_that_changes_something_declares_the_key(alice_api):
    """Only the POSTs that change nothing (odds, a document's check) take no key; the
    other writes that do take one say so too."""
    schema = alice_api.get("/api/schema/?format=json").json()
    keyed = {
        (method, operation["operationId"])
        for path in schema["paths"].values()
        for method, operation in path.items()
        if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
    }
    posts = {
        operation["operationId"]
        for path in schema["paths"].values()
        for method, operation in path.items()
        if method == "post"
    }
    assert posts - {op for _, op in keyed} == {
        "battles_odds",
        "battles_spell_attack_odds",
        "battles_spell_odds",
        "rosters_validate",
    }
    assert {
        ("put", "rosters_replace"),
        ("patch", "rosters_update_details"),
        ("delete", "rosters_destroy"),
        ("patch", "campaigns_house_rules_update"),
        ("delete", "battles_spectator_link_withdraw"),
    } <= keyed
