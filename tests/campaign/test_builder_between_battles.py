"""The builder between battles (R17a, R18): a campaign copy's member who has fought buys
from the ledger at the price shown, through the same write path as every other change."""

import re

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
    """A builder change as htmx sends it; a purchase confirmed as its row's second button
    sends it (the row asks first, below)."""
    url = reverse("roster:member_edit", args=[force.pk, member.pk, step])
    if "add" in data and "confirmed" not in data:
        data = {**data, "confirmed": data["add"]}
    return client.post(url, data, HTTP_HX_REQUEST="true", **headers)


# The header's status, then the "Between battles" box.
MONEY = re.compile(
    r"Resources spent, (\d+) left\.|<strong>(\d+) Resources</strong> left to spend\."
)


def money_figures(html: str) -> list[int]:
    """Every figure of Resources left on a page or in an answer (header, Between battles)."""
    return [int(a or b) for a, b in MONEY.findall(html)]


def test_a_member_who_fought_buys_between_battles_from_the_ledger(client, alice, fought):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    balance = services.balance_of(fought)
    client.force_login(alice)
    page = client.get(reverse("roster:member", args=[force.pk, ann.pk]))
    assert "Between battles" in page.content.decode()
    assert money_figures(page.content.decode()) == [balance, balance]

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
    # The row says so before any tap, with no button; nothing is asked about it.
    page = client.get(reverse("roster:member", args=[force.pk, ann.pk]) + "?step=equipment")
    row = re.search(r'<tr data-anchor="option-tool-kit".*?</tr>', page.content.decode(), re.S)[0]
    assert '<span class="reason">Costs 10; 0 Resources left.</span>' in row
    assert "<button" not in row
    url = reverse("roster:member_edit", args=[force.pk, ann.pk, "equipment-add"])
    first = client.post(url, {"add": "tool-kit"}, HTTP_HX_REQUEST="true")
    assert "confirm beside it" not in first.content.decode()
    assert "Costs 10; 0 Resources left." in first.content.decode()
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


def test_a_purchase_the_rules_refuse_is_not_bought_between_battles(
    client, organiser, alice, fought
):
    """Bought advancements stay bought (R17a): one that breaks R3 (DF above 16) is
    refused, costs nothing, and the force stays legal."""
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    services.adjust_resources(campaign_force=fought, amount=100, reason="Prize", by=organiser)
    entries = LedgerEntry.objects.count()
    balance = services.balance_of(fought)
    client.force_login(alice)
    # Technical line 3 is +2 DF: Ann's DF 10 goes 12, 14, 16 (2 x DF each: 20, 24, 28),
    # and a fourth would take it to 18, past 16 (R3).
    for _ in range(3):
        answer = _edit(client, force, ann, "purchase-add", {"add": "line:3"})
        assert answer.status_code == 200
    refused = _edit(client, force, ann, "purchase-add", {"add": "line:3"})
    assert refused.status_code == 400
    assert "This takes DF to 18; at most 16." in refused.content.decode()
    ann.refresh_from_db()
    assert len(ann.purchases) == 3
    assert LedgerEntry.objects.count() == entries + 3
    assert services.balance_of(fought) == balance - 20 - 24 - 28
    assert Force.objects.get(pk=force.pk).is_legal


# --- asked once, and every figure agrees (issue #31) ------------------------------------------


def test_a_purchase_between_battles_is_asked_once_and_changes_nothing_until_confirmed(
    client, alice, fought
):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    balance = services.balance_of(fought)
    version, entries = force.version, LedgerEntry.objects.count()
    client.force_login(alice)
    url = reverse("roster:member_edit", args=[force.pk, ann.pk, "equipment-add"])
    asked = client.post(url, {"add": "medical-kit"}, HTTP_HX_REQUEST="true")
    assert asked.status_code == 200
    assert "HX-Trigger" not in asked  # nothing changed: the other steps stay as they are
    html = asked.content.decode()
    assert (
        f"Buying Medical Kit takes 7 of the {balance} Resources left, and cannot be undone: "
        "confirm beside it."
    ) in html
    assert f"Pays 7 of the {balance} Resources left. It cannot be undone (R18)." in html
    assert '<input type="hidden" name="confirmed" value="medical-kit">' in html
    assert 'id="add-medical-kit" class="button button--small button--danger"' in html
    assert Force.objects.get(pk=force.pk).version == version
    assert LedgerEntry.objects.count() == entries
    # A confirmation of another row asks about the one now clicked instead.
    other = client.post(
        url, {"add": "tool-kit", "confirmed": "medical-kit"}, HTTP_HX_REQUEST="true"
    )
    assert "Buying Tool Kit takes 10" in other.content.decode()
    assert LedgerEntry.objects.count() == entries
    # The second tap pays, and every figure of the answer is the ledger's new balance.
    paid = client.post(
        url, {"add": "medical-kit", "confirmed": "medical-kit"}, HTTP_HX_REQUEST="true"
    )
    assert paid.status_code == 200
    assert services.balance_of(fought) == balance - 7
    assert money_figures(paid.content.decode()) == [balance - 7, balance - 7]
    assert 'id="between-balance" hx-swap-oob="true"' in paid.content.decode()
    ann.refresh_from_db()
    assert ann.equipment == ["medical-kit"]


def test_without_javascript_the_question_is_the_page_and_the_answer_agrees(client, alice, fought):
    force = Force.objects.get(pk=fought.force_id)
    ann = force.members.get(name="Ann")
    balance = services.balance_of(fought)
    hp = force.evaluation["members"][1]["stats"]["HP"]
    client.force_login(alice)
    url = reverse("roster:member_edit", args=[force.pk, ann.pk, "purchase-add"])
    asked = client.post(url, {"add": "line:2:HP"})
    assert asked.status_code == 200
    html = asked.content.decode()
    assert f"Buying +1 HP takes {2 * hp} of the {balance} Resources left" in html
    assert money_figures(html) == [balance, balance]
    paid = client.post(url, {"add": "line:2:HP", "confirmed": "line:2:HP"})
    assert paid.status_code == 302
    page = client.get(paid["Location"]).content.decode()
    assert money_figures(page) == [balance - 2 * hp] * 2
    assert services.balance_of(fought) == balance - 2 * hp


def test_a_member_who_has_not_fought_is_not_asked(client, alice, red):
    """Building a campaign copy's members before any battle is not between battles."""
    force = Force.objects.get(pk=red.force_id)
    ann = force.members.get(name="Ann")
    client.force_login(alice)
    url = reverse("roster:member_edit", args=[force.pk, ann.pk, "equipment-add"])
    answer = client.post(url, {"add": "medical-kit"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert "confirm beside it" not in answer.content.decode()
    ann.refresh_from_db()
    assert "medical-kit" in ann.equipment
