"""The builder between battles (R17a, R18): a campaign copy's member who has fought buys
from the ledger at the price shown, through the same write path as every other change."""

import pytest
from django.urls import reverse

from campaign import services
from campaign.models import LedgerEntry
from roster.models import Force, Member
from tests.campaign.conftest import everyone, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def fought(campaign, organiser, red, blue):
    """Red and Blue have fought one confirmed battle (everyone took part)."""
    battle = record(
        campaign,
        organiser,
        red,
        blue,
        red_results=everyone(red),
        blue_results=everyone(blue),
    )
    services.confirm_battle(battle=battle, by=red.player)
    return red


def _edit(client, force: Force, member: Member, step: str, data: dict, **headers):
    url = reverse("roster:member_edit", args=[force.pk, member.pk, step])
    return client.post(url, data, HTTP_HX_REQUEST="true", **headers)


def test_a_member_who_fought_buys_between_battles_from_the_ledger(client, alice, fought):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    balance = services.balance_of(fought)
    client.force_login(alice)
    page = client.get(reverse("roster:member", args=[force.pk, ann.pk]))
    assert "Between battles" in page.content.decode()
    assert f"<strong>{balance} Resources</strong> left to spend." in page.content.decode()

    # Technical line 2 "+1 HP or +1 FR", bought again after creation: 2 x HP (R6, R17a).
    hp = force.evaluation["members"][1]["stats"]["HP"]
    answer = _edit(client, force, ann, "purchase-add", {"add": "line:2:HP"})
    assert answer.status_code == 200
    ann.refresh_from_db()
    assert ann.purchases == [{"line": 2, "choice": "HP", "between_battles": True}]
    debits = list(
        LedgerEntry.objects.filter(campaign_force=fought, kind="purchase").order_by("-id")
    )
    assert (debits[0].amount, debits[0].reason) == (-2 * hp, "Ann: bought +1 HP")
    assert services.balance_of(fought) == balance - 2 * hp
    force.refresh_from_db()
    assert force.resources == force.evaluation["total_cost"] + services.balance_of(fought)


def test_a_purchase_the_balance_cannot_pay_changes_nothing(client, alice, fought):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    services.spend(
        campaign_force=fought, amount=services.balance_of(fought), reason="All of it", by=alice
    )
    version = Force.objects.get(pk=force.pk).version
    entries = LedgerEntry.objects.count()
    client.force_login(alice)
    answer = _edit(client, force, ann, "equipment-add", {"add": "tool-kit"})
    assert answer.status_code == 400
    assert "this costs 10" in answer.content.decode()
    ann.refresh_from_db()
    assert "tool-kit" not in ann.equipment
    assert Force.objects.get(pk=force.pk).version == version
    assert LedgerEntry.objects.count() == entries


def test_a_stale_builder_edit_is_refused_with_the_fresh_step(client, alice, fought):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    client.force_login(alice)
    stale = Force.objects.get(pk=force.pk).version
    first = _edit(client, force, ann, "equipment-add", {"add": "tool-kit", "version": stale})
    assert first.status_code == 200
    second = _edit(client, force, ann, "equipment-add", {"add": "escape-kit", "version": stale})
    assert second.status_code == 409
    assert "This force changed since this page was loaded" in second.content.decode()
    assert "Tool Kit" in second.content.decode()  # the step as it is now
    ann.refresh_from_db()
    assert ann.equipment == ["tool-kit"]
    # The header the page's script sends wins over a stale form field.
    fresh = Force.objects.get(pk=force.pk).version
    third = _edit(
        client,
        force,
        ann,
        "equipment-add",
        {"add": "escape-kit", "version": stale},
        HTTP_X_FORCE_VERSION=str(fresh),
    )
    assert third.status_code == 200
    ann.refresh_from_db()
    assert ann.equipment == ["tool-kit", "escape-kit"]
