"""Concurrent writes: no 500, no lost update, no overdraft, rewards applied once.

Real threads, each with its own database connection, against committed data
(`transaction=True`), on PostgreSQL (row locks) and on SQLite (a file database whose
writers queue on its write lock: `transaction_mode: IMMEDIATE` and a busy timeout, see
`dbd_site/settings.py` and `settings_test.py`). Threads are released together by a
barrier; nothing waits on time.
"""

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from campaign import selectors, services
from campaign.models import Battle, CampaignForce, LedgerEntry
from dbd_site.errors import Conflict, DomainError, Invalid
from roster import services as roster_services
from roster.models import Force, Member
from rules.loader import clear_catalogue_cache
from tests.campaign.conftest import freeform_force, record
from tests.campaign.test_tallies import assert_tallies_recount
from tests.concurrency import at_once
from tests.roster.builders import student

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    """Transactional tests flush the database after each test, the rules included."""
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def names(force_id: int) -> list[str]:
    return list(
        Member.objects.filter(force_id=force_id)
        .order_by("position")
        .values_list("name", flat=True)
    )


# --- campaign ledger and battles --------------------------------------------------------------


def test_twenty_spends_at_once_never_overdraw(campaign, organiser, alice, red):
    services.adjust_resources(campaign_force=red, amount=5, reason="Round up", by=organiser)
    assert selectors.balance(campaign_force=red) == 50

    def spend(i: int) -> LedgerEntry:
        cf = CampaignForce.objects.get(pk=red.pk)
        return services.spend(campaign_force=cf, amount=5, reason=f"Spend {i}", by=alice)

    results = at_once(20, spend)
    succeeded = [r for r in results if isinstance(r, LedgerEntry)]
    refused = [r for r in results if isinstance(r, Invalid)]
    assert (len(succeeded), len(refused)) == (10, 10), results
    assert {(p.pointer, p.code) for r in refused for p in r.problems} == {
        ("/amount", "insufficient-resources")
    }
    assert selectors.balance(campaign_force=red) == 0
    spends = LedgerEntry.objects.filter(campaign_force=red, reason__startswith="Spend ")
    assert spends.count() == 10
    assert spends.aggregate(total=Sum("amount"))["total"] == -50
    # The running balance never dips below 0 (R15), and the ledger adds up.
    running = [
        e.running_balance for e in selectors.ledger_with_running_balance(campaign_force=red)
    ]
    assert min(running) == 0
    assert running[-1] == sum(red.ledger_entries.values_list("amount", flat=True)) == 0
    force = Force.objects.get(pk=red.force_id)
    assert force.resources == max(1, force.evaluation["total_cost"])
    assert_tallies_recount(campaign)


def test_two_confirmations_at_once_apply_the_battle_once(
    campaign, organiser, alice, bob, red, blue
):
    battle = record(campaign, alice, red, blue)

    def confirm(i: int) -> Battle:
        return services.confirm_battle(
            battle=Battle.objects.get(pk=battle.pk), by=(bob, organiser)[i]
        )

    results = at_once(2, confirm)
    confirmed = [r for r in results if isinstance(r, Battle)]
    refused = [r for r in results if isinstance(r, DomainError)]
    assert (len(confirmed), len(refused)) == (1, 1), results
    assert isinstance(refused[0], Conflict)
    assert [(p.pointer, p.code) for p in refused[0].problems] == [("", "battle-not-pending")]
    assert LedgerEntry.objects.filter(battle=battle).count() == 2
    assert selectors.balance(campaign_force=red) == 55
    assert selectors.balance(campaign_force=blue) == 50
    assert set(Member.objects.filter(force_id=red.force_id).values_list("xp", flat=True)) == {2}
    assert set(Member.objects.filter(force_id=blue.force_id).values_list("xp", flat=True)) == {1}
    # The standings' tallies took the battle once too.
    tallies = CampaignForce.objects.order_by("pk").values_list("pk", "won", "drawn", "lost")
    assert list(tallies) == [(red.pk, 1, 0, 0), (blue.pk, 0, 0, 1)]
    assert_tallies_recount(campaign)


def test_confirmations_and_spends_at_once_through_the_api(
    campaign, organiser, alice, bob, red, blue
):
    """The issue's SQLite "database is locked" 500s: a confirmation by the opponent, one
    by the organiser, and two spends by the owner, all at once; each answers in the
    error shape or succeeds, and the ledger adds up."""
    battle = record(campaign, alice, red, blue)
    base = f"/api/v1/campaigns/{campaign.pk}"
    clients = [signed_in(u) for u in (bob, organiser, alice, alice)]

    def act(i: int):
        if i < 2:
            return clients[i].post(f"{base}/battles/{battle.pk}/confirm/")
        return clients[i].post(
            f"{base}/forces/{red.pk}/spends/",
            {"amount": 20, "reason": f"Kit {i}"},
            content_type="application/json",
        )

    responses = at_once(4, act)
    statuses = sorted(r.status_code for r in responses[:2])
    assert statuses == [200, 409], [r.content for r in responses]
    refused = next(r for r in responses[:2] if r.status_code == 409)
    assert [(e["pointer"], e["code"]) for e in refused.json()["errors"]] == [
        ("", "battle-not-pending")
    ]
    # Two spends of 20 fit in the 45 before the reward, in any order.
    assert [r.status_code for r in responses[2:]] == [201, 201], [r.content for r in responses]
    assert sorted(
        LedgerEntry.objects.filter(campaign_force=red).values_list("kind", "amount")
    ) == sorted(
        [("start", 50), ("purchase", -5), ("battle", 10), ("purchase", -20), ("purchase", -20)]
    )
    assert selectors.balance(campaign_force=red) == 15
    force = Force.objects.get(pk=red.force_id)
    assert force.resources == force.evaluation["total_cost"] + 15
    assert_tallies_recount(campaign)


# --- roster writes ------------------------------------------------------------------------------


def test_members_added_at_once_all_land(alice):
    """The issue's 500 on `unique_member_position`: positions are given under the lock."""
    force = freeform_force(alice, "Crowd")

    def add(i: int) -> Member:
        return roster_services.add_member(
            force=Force.objects.get(pk=force.pk), actor=alice, data=student(f"New {i}")
        )

    results = at_once(2, add)
    assert all(isinstance(r, Member) for r in results), results
    assert names(force.pk)[:4] == ["Emma", "Ann", "Ben", "Cat"]
    assert sorted(names(force.pk)[4:]) == ["New 0", "New 1"]
    assert list(
        Member.objects.filter(force_id=force.pk)
        .order_by("position")
        .values_list("position", flat=True)
    ) == [0, 1, 2, 3, 4, 5]
    assert Force.objects.get(pk=force.pk).version == force.version + 2


def test_members_added_at_once_through_the_builder_all_land(alice):
    force = freeform_force(alice, "Crowd")
    clients = [signed_in(alice), signed_in(alice)]
    url = reverse("roster:member_add", args=[force.pk])

    def add(i: int):
        return clients[i].post(
            url,
            {
                "name": f"New {i}",
                "role": "student",
                "ME": 3,
                "RA": 2,
                "CA": 2,
                "DF": 1,
                "club_name": "Chess Club",
                "society": "technical:RA",
            },
        )

    responses = at_once(2, add)
    assert [r.status_code for r in responses] == [302, 302], [r.content[:500] for r in responses]
    assert sorted(names(force.pk)[4:]) == ["New 0", "New 1"]


def test_roster_puts_at_once_never_500(alice):
    """Two PUTs without If-Match: both apply, one after the other (the last one wins);
    neither is a 500 on `unique_member_position`."""
    force = freeform_force(alice, "Swap")
    url = f"/api/v1/rosters/{force.pk}/"
    client = signed_in(alice)
    document = client.get(url + "export/").json()
    bodies = []
    for i in range(2):
        body = {**document, "members": [*document["members"], student(f"New {i}")]}
        body["members"] = list(reversed(body["members"]))  # every position moves
        bodies.append(body)
    clients = [signed_in(alice), signed_in(alice)]

    responses = at_once(
        2, lambda i: clients[i].put(url, bodies[i], content_type="application/json")
    )
    assert [r.status_code for r in responses] == [200, 200], [r.content for r in responses]
    landed = names(force.pk)
    assert landed in (
        [m["name"] for m in bodies[0]["members"]],
        [m["name"] for m in bodies[1]["members"]],
    )
    assert Force.objects.get(pk=force.pk).version == force.version + 2


def test_roster_puts_at_once_on_one_etag_one_wins_one_is_412(alice):
    force = freeform_force(alice, "Swap")
    url = f"/api/v1/rosters/{force.pk}/"
    client = signed_in(alice)
    etag = client.get(url)["ETag"]
    document = client.get(url + "export/").json()
    bodies = [{**document, "name": f"Renamed {i}"} for i in range(2)]
    clients = [signed_in(alice), signed_in(alice)]

    responses = at_once(
        2,
        lambda i: clients[i].put(
            url, bodies[i], content_type="application/json", HTTP_IF_MATCH=etag
        ),
    )
    assert sorted(r.status_code for r in responses) == [200, 412], [r.content for r in responses]
    loser = next(r for r in responses if r.status_code == 412)
    assert [(e["pointer"], e["code"]) for e in loser.json()["errors"]] == [
        ("", "precondition-failed")
    ]
    winner = next(i for i, r in enumerate(responses) if r.status_code == 200)
    assert Force.objects.get(pk=force.pk).name == f"Renamed {winner}"
    assert Force.objects.get(pk=force.pk).version == force.version + 1


@pytest.mark.parametrize("in_campaign", [False, True], ids=["freeform", "campaign-copy"])
def test_two_sessions_adding_equipment_to_one_member_both_land(request, alice, in_campaign):
    """The issue's lost item (6 of 10 freeform, 5 of 5 campaign copies): each change is
    applied to the member as stored under the lock, so both items land, and a campaign
    copy pays for each once (R17a)."""
    if in_campaign:
        red = request.getfixturevalue("red")
        force_id = red.force_id
        balance = selectors.balance(campaign_force=red)
    else:
        force_id = freeform_force(alice, "Kit").pk
    ann = Member.objects.get(force_id=force_id, name="Ann")
    url = reverse("roster:member_edit", args=[force_id, ann.pk, "equipment-add"])
    clients = [signed_in(alice), signed_in(alice)]
    items = ["tool-kit", "climbing-gear"]

    responses = at_once(2, lambda i: clients[i].post(url, {"add": items[i]}))
    assert [r.status_code for r in responses] == [302, 302], [r.content[:300] for r in responses]
    assert sorted(Member.objects.get(pk=ann.pk).equipment) == sorted(items)
    if in_campaign:
        # One ledger entry per purchase at its price (R17a): Tool Kit 10, Climbing Gear 5.
        purchases = LedgerEntry.objects.filter(campaign_force=red).order_by("id")[2:]
        assert sorted(p.amount for p in purchases) == [-10, -5]
        assert selectors.balance(campaign_force=red) == balance - 15
        force = Force.objects.get(pk=force_id)
        assert force.resources == force.evaluation["total_cost"] + balance - 15


def test_builder_changes_made_on_one_version_one_lands_one_is_told(alice):
    """Two tabs post a change made on the same version: the first lands, the second is
    refused as stale (409) with nothing changed, never silently lost."""
    force = freeform_force(alice, "Tabs")
    version = Force.objects.get(pk=force.pk).version
    ann = Member.objects.get(force_id=force.pk, name="Ann")
    url = reverse("roster:member_edit", args=[force.pk, ann.pk, "equipment-add"])
    clients = [signed_in(alice), signed_in(alice)]
    items = ["tool-kit", "climbing-gear"]

    responses = at_once(
        2,
        lambda i: clients[i].post(
            url, {"add": items[i], "version": version}, HTTP_HX_REQUEST="true"
        ),
    )
    assert sorted(r.status_code for r in responses) == [200, 409], [
        r.status_code for r in responses
    ]
    winner = next(i for i, r in enumerate(responses) if r.status_code == 200)
    assert Member.objects.get(pk=ann.pk).equipment == [items[winner]]
    assert Force.objects.get(pk=force.pk).version == version + 1
