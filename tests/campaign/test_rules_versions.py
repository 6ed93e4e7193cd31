"""A campaign copy and new rules (issue #13): its policy decides when it may move, and
the ledger neither charges nor refunds what the rules change."""

import pytest

from campaign import services
from roster import services as roster_services
from roster.engine import evaluation_version
from roster.models import Force
from tests.campaign.conftest import assert_resources_in_step, ledger, record
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db

BATTLE_PENDING = {
    "pointer": "",
    "code": "battle-pending",
    "message": "Red Club has a battle waiting for confirmation; changes wait until it is "
    "confirmed or voided.",
}


def force_of(entry) -> Force:
    return Force.objects.get(pk=entry.force_id)


def test_a_pending_battle_holds_the_move_until_it_is_confirmed(
    campaign, alice, bob, red, blue, rules_change
):
    battle = record(campaign, alice, red, blue)
    cost = force_of(red).evaluation["total_cost"]
    rules_change(edition="dbd-core-2", equipment="medical-kit", cost_constant=3)
    api = signed_in(alice)
    url = f"/api/v1/rosters/{red.force_id}/rules-update/"

    preview = api.get(url).json()
    assert preview["refusals"] == [BATTLE_PENDING]
    assert preview["cost"] == {"before": cost, "after": cost + 3}
    refused = api.post(url)
    assert (refused.status_code, refused.json()) == (409, {"errors": [BATTLE_PENDING]})
    assert force_of(red).rules_version == "dbd-core-1"

    # The battle's bookkeeping is the campaign's, not the player's: it does not wait.
    services.confirm_battle(battle=battle, by=bob)
    assert api.get(url).json()["refusals"] == []
    balance = services.balance_of(red)
    entries = ledger(red)
    assert api.post(url, HTTP_IF_MATCH=api.get(url)["ETag"]).status_code == 200
    moved = force_of(red)
    assert moved.rules_version == "dbd-core-2"
    # The ledger neither charges nor refunds what the rules change (R15, R17a).
    assert ledger(red) == entries
    assert moved.resources == moved.evaluation["total_cost"] + balance
    assert_resources_in_step(red)


def test_new_content_is_neither_charged_nor_refunded(red, rules_change):
    entries, balance = ledger(red), services.balance_of(red)
    cost = force_of(red).evaluation["total_cost"]
    rules_change(equipment="medical-kit", cost_constant=3)
    roster_services.refresh_evaluation(force=force_of(red))
    refreshed = force_of(red)
    assert refreshed.evaluation["total_cost"] == cost + 3
    assert (ledger(red), services.balance_of(red)) == (entries, balance)
    assert_resources_in_step(red)


def test_a_player_changes_nothing_on_an_old_edition(red, alice, rules_change):
    rules_change(edition="dbd-core-2")
    api = signed_in(alice)
    detail = api.get(f"/api/v1/rosters/{red.force_id}/")
    answer = api.patch(
        f"/api/v1/rosters/{red.force_id}/",
        {"name": "Renamed"},
        format="json",
        HTTP_IF_MATCH=detail["ETag"],
    )
    assert answer.status_code == 409
    assert [e["code"] for e in answer.json()["errors"]] == ["rules-update-pending"]


def test_a_campaign_copy_read_after_new_content_shows_the_new_cost(
    campaign, alice, red, rules_change
):
    cost = force_of(red).evaluation["total_cost"]
    catalogue = rules_change(equipment="medical-kit", cost_constant=3)
    page = signed_in(alice).get(f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/")

    assert page.status_code == 200
    stored = force_of(red)
    assert (stored.evaluation["total_cost"], stored.evaluation_version) == (
        cost + 3,
        evaluation_version(catalogue),
    )
    assert_resources_in_step(red)
