"""Campaign fixtures: an organiser, two players, and a campaign with a force each."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from campaign import services
from campaign.models import Campaign, CampaignForce
from campaign.services import MemberOutcome
from roster import services as roster_services
from roster.models import Force
from tests.roster.builders import emma, force, student

TODAY = datetime.date(2025, 3, 1)


def make_user(username: str):
    return get_user_model().objects.create_user(username, password=f"pw-{username}-1234")


def freeform_force(owner, name: str, *, extra_equipment: tuple[str, ...] = ()) -> Force:
    """A legal force of four (Emma plus three plain students) costing 5 (R7)."""
    first = emma()
    first["equipment"] = [*first["equipment"], *extra_equipment]
    document = force(first, student("Ann"), student("Ben"), student("Cat"), name=name)
    return roster_services.import_force(owner=owner, document=document)


def everyone(campaign_force: CampaignForce, **per_name) -> list[MemberOutcome]:
    """A MemberOutcome for every member; `per_name` overrides, e.g. Ann={"objectives": 1}."""
    return [
        MemberOutcome(member=m, **per_name.get(m.name, {}))
        for m in campaign_force.force.members.all()
    ]


@pytest.fixture
def organiser():
    return make_user("olga")


@pytest.fixture
def alice():
    return make_user("alice")


@pytest.fixture
def bob():
    return make_user("bob")


@pytest.fixture
def campaign(organiser, alice, bob) -> Campaign:
    campaign = services.create_campaign(organiser=organiser, name="Spring League")
    services.join_campaign(user=alice, token=campaign.invite_token)
    services.join_campaign(user=bob, token=campaign.invite_token)
    return campaign


@pytest.fixture
def red(campaign, alice) -> CampaignForce:
    original = freeform_force(alice, "Red Club")
    return services.enter_force(campaign=campaign, player=alice, force=original)


@pytest.fixture
def blue(campaign, bob) -> CampaignForce:
    original = freeform_force(bob, "Blue Club")
    return services.enter_force(campaign=campaign, player=bob, force=original)


def record(campaign, by, red, blue, *, winner="red", scenario="Capture the Flag", **kw):
    winner_force = {"red": red, "blue": blue, None: None}[winner]
    return services.record_battle(
        campaign=campaign,
        by=by,
        played_on=kw.pop("played_on", TODAY),
        scenario=scenario,
        winner=winner_force,
        results={
            red: kw.pop("red_results", None) or everyone(red),
            blue: kw.pop("blue_results", None) or everyone(blue),
        },
    )
