"""Campaign fixtures: an organiser, two players, and a campaign with a force each."""

import datetime

import pytest

from campaign import services
from campaign.models import CampaignForce
from campaign.services import MemberOutcome
from dbd_site.errors import DomainError
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.models import Force, Member
from tests.conftest import make_user  # noqa: F401 (the campaign tests import it from here)
from tests.roster.builders import emma, force, student

TODAY = datetime.date(2025, 3, 1)


def freeform_force(owner, name: str, *, extra_equipment: tuple[str, ...] = ()) -> Force:
    """A legal force of four (Emma plus three plain students) costing 5 (R7)."""
    first = emma()
    first["equipment"] = [*first["equipment"], *extra_equipment]
    document = force(first, student("Ann"), student("Ben"), student("Cat"), name=name)
    return roster_services.import_force(owner=owner, document=document)


def problems(refusal: DomainError | pytest.ExceptionInfo) -> list[tuple[str, str]]:
    """A refusal's whole answer: every (pointer, code), in order (R12)."""
    error = refusal.value if isinstance(refusal, pytest.ExceptionInfo) else refusal
    return [(p.pointer, p.code) for p in error.problems]


def api_problems(response) -> list[tuple[str, str]]:
    """An API refusal's whole answer: every (pointer, code), in order."""
    return [(e["pointer"], e["code"]) for e in response.json()["errors"]]


def ledger(campaign_force: CampaignForce) -> list[tuple[str, int, str]]:
    """The force's whole ledger, oldest first: (kind, amount, reason)."""
    return list(
        campaign_force.ledger_entries.order_by("id").values_list("kind", "amount", "reason")
    )


def member(campaign_force: CampaignForce, name: str) -> Member:
    return Member.objects.get(force_id=campaign_force.force_id, name=name)


def assert_resources_in_step(campaign_force: CampaignForce) -> None:
    """R11/R15: Force.resources = engine total cost + ledger balance, the ledger's sum is
    the balance, and the stored evaluation is what the engine says now."""
    force = roster_selectors.get_force(
        user=campaign_force.player, force_id=campaign_force.force_id
    )
    balance = services.balance_of(campaign_force)
    assert balance == sum(amount for _, amount, _ in ledger(campaign_force))
    assert balance >= 0
    assert force.resources == max(1, force.evaluation["total_cost"] + balance)
    assert force.evaluation == roster_selectors.evaluate_force(force=force).as_dict()


def change_member(campaign_force: CampaignForce, name: str, change, *, by=None, description=""):
    """A builder edit of a campaign copy's member, through the write path."""
    return roster_services.change_member(
        force=Force.objects.get(pk=campaign_force.force_id),
        actor=by or campaign_force.player,
        member_id=member(campaign_force, name).pk,
        change=change,
        description=description,
    )


def buy_equipment(campaign_force: CampaignForce, name: str, *items: str, by=None):
    """A between-battles purchase of equipment (R17a, R18), as the builder makes it."""
    return change_member(
        campaign_force,
        name,
        lambda data: {**data, "equipment": [*data["equipment"], *items]},
        by=by,
        description=f"bought {', '.join(items)}",
    )


def everyone(campaign_force: CampaignForce, **per_name) -> list[MemberOutcome]:
    """A MemberOutcome for every member; `per_name` overrides, e.g. Ann={"objectives": 1}."""
    return [
        MemberOutcome(member=m, **per_name.get(m.name, {}))
        for m in campaign_force.force.members.all()
    ]


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


def ann_takes_an_enemy_out(campaign, red, blue, *, by, confirmed_by, **kw):
    """Red wins, and Red's Ann takes Blue's Ben Out of Action (R14b): `by` records it and
    `confirmed_by` confirms it (R14a), so Ann has 3 XP and a level-up waiting (R16, R17).
    `kw` goes to `record` (a scenario, a date). Returns the confirmed battle."""
    battle = record(
        campaign,
        by,
        red,
        blue,
        red_results=everyone(red, Ann={"enemies_out_of_action": 1}),
        blue_results=everyone(blue, Ben={"out_of_action": True}),
        **kw,
    )
    services.confirm_battle(battle=battle, by=confirmed_by)
    return battle
