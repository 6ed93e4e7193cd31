"""Campaign forces change through the same builder pages and API, but only as the
campaign allows: owner only, between battles, costs paid from the ledger (R17, R18)."""

import pytest
from django.urls import reverse

from campaign import selectors
from campaign.models import LedgerEntry
from roster.models import Force, Member
from tests.campaign.conftest import record

pytestmark = pytest.mark.django_db


def ann_of(campaign_force) -> Member:
    return Member.objects.get(force_id=campaign_force.force_id, name="Ann")


def add_equipment(client, campaign_force, slug: str, **extra):
    ann = ann_of(campaign_force)
    url = reverse("roster:member_edit", args=[campaign_force.force_id, ann.pk, "equipment-add"])
    return client.post(url, {"add": slug}, **extra)


def test_buying_equipment_in_the_builder_spends_from_the_ledger(client, alice, red):
    client.force_login(alice)
    before = selectors.balance(campaign_force=red)
    response = add_equipment(client, red, "tool-kit")  # a flat 10 (R7)
    assert response.status_code == 302
    assert "tool-kit" in ann_of(red).equipment
    assert selectors.balance(campaign_force=red) == before - 10
    spend = LedgerEntry.objects.filter(campaign_force=red).latest("created_at")
    assert (spend.amount, spend.kind) == (-10, LedgerEntry.Kind.PURCHASE)
    force = Force.objects.get(pk=red.force_id)
    assert force.resources == force.evaluation["total_cost"] + before - 10


def test_no_changes_while_a_battle_is_pending(client, campaign, alice, red, blue):
    record(campaign, alice, red, blue)
    client.force_login(alice)
    response = add_equipment(client, red, "tool-kit", HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "waiting for confirmation" in response.content.decode()
    assert "tool-kit" not in ann_of(red).equipment


def test_more_than_the_balance_is_refused_and_nothing_changes(client, alice, red):
    client.force_login(alice)
    balance = selectors.balance(campaign_force=red)
    for _ in range(balance // 10):
        add_equipment(client, red, "tool-kit")
    kept = ann_of(red).equipment
    response = add_equipment(client, red, "tool-kit", HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert ann_of(red).equipment == kept
    assert selectors.balance(campaign_force=red) >= 0


def test_resources_and_delete_belong_to_the_campaign(client, alice, red):
    client.force_login(alice)
    force = Force.objects.get(pk=red.force_id)
    url = reverse("roster:edit", args=[force.pk])
    response = client.post(url, {"name": force.name, "resources": 999})
    assert response.status_code == 400
    assert Force.objects.get(pk=force.pk).resources == force.resources
    response = client.post(reverse("roster:delete", args=[force.pk]))
    assert response.status_code == 302
    assert Force.objects.filter(pk=force.pk).exists()


def test_the_api_answers_409_for_what_the_campaign_refuses(client, alice, red):
    client.force_login(alice)
    url = f"/api/v1/rosters/{red.force_id}/"
    document = client.get(url + "export/").json()
    assert client.put(url, document, content_type="application/json").status_code == 409
    response = client.patch(url, {"resources": 999}, content_type="application/json")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "campaign-refused"
    assert client.delete(url).status_code == 409
    assert Force.objects.filter(pk=red.force_id).exists()


def test_opponents_cannot_touch_another_players_campaign_force(client, bob, red):
    client.force_login(bob)
    assert add_equipment(client, red, "tool-kit").status_code == 404
    assert client.get(f"/api/v1/rosters/{red.force_id}/").status_code == 404
