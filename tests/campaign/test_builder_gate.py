"""Campaign copies change through the one write path (`roster.services`), from the
builder pages and the roster API alike, judged by the campaign's policy: owner only,
not while a battle is pending, Resources from the ledger, each purchase one ledger entry
(R11, R15, R17a, R18a). A campaign edit evaluates the force once."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from campaign import selectors, services
from campaign.models import Campaign, LedgerEntry
from dbd_site.errors import Conflict, Invalid, NotAllowed
from roster import engine
from roster import services as roster_services
from roster.models import Force, Member
from tests.campaign.conftest import (
    assert_resources_in_step,
    buy_equipment,
    change_member,
    ledger,
    member,
    problems,
    record,
)
from tests.roster.builders import student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db

START = [("start", 50, "Starting Resources (R11)"), ("purchase", -5, "Initial roster")]


def ann_of(campaign_force) -> Member:
    return Member.objects.get(force_id=campaign_force.force_id, name="Ann")


def add_equipment(client, campaign_force, slug: str, **extra):
    ann = ann_of(campaign_force)
    url = reverse("roster:member_edit", args=[campaign_force.force_id, ann.pk, "equipment-add"])
    return client.post(url, {"add": slug}, **extra)


def version(campaign_force) -> int:
    return Force.objects.get(pk=campaign_force.force_id).version


# --- the builder pages --------------------------------------------------------------------


def test_buying_equipment_in_the_builder_spends_from_the_ledger(client, alice, red):
    client.force_login(alice)
    response = add_equipment(client, red, "tool-kit")  # a flat 10 (R7)
    assert response.status_code == 302
    assert ann_of(red).equipment == ["tool-kit"]
    entries = ledger(red)
    assert entries[:2] == START
    assert [(kind, amount) for kind, amount, _ in entries[2:]] == [("purchase", -10)]
    assert selectors.balance(campaign_force=red) == 35
    assert_resources_in_step(red)


def test_no_changes_while_a_battle_is_pending(client, campaign, alice, red, blue):
    record(campaign, alice, red, blue)
    client.force_login(alice)
    before = version(red)
    response = add_equipment(client, red, "tool-kit", HTTP_HX_REQUEST="true")
    assert response.status_code == 409  # a state conflict: wait for the battle
    assert "waiting for confirmation" in response.content.decode()
    assert ann_of(red).equipment == []
    assert (version(red), ledger(red)) == (before, START)


def test_more_than_the_balance_is_refused_and_nothing_changes(client, alice, red):
    client.force_login(alice)
    for _ in range(4):  # 4 x 10 of the 45
        assert add_equipment(client, red, "tool-kit").status_code == 302
    kept, entries, before = ann_of(red).equipment, ledger(red), version(red)
    response = add_equipment(client, red, "tool-kit", HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "has 5 Resources; this costs 10" in response.content.decode()
    assert ann_of(red).equipment == kept
    assert (ledger(red), version(red)) == (entries, before)  # a refused purchase costs 0
    assert selectors.balance(campaign_force=red) == 5
    assert_resources_in_step(red)


def test_resources_and_delete_belong_to_the_campaign(client, alice, red):
    client.force_login(alice)
    force = Force.objects.get(pk=red.force_id)
    client.post(reverse("roster:edit", args=[force.pk]), {"name": force.name, "resources": 999})
    assert Force.objects.get(pk=force.pk).resources == force.resources
    response = client.post(reverse("roster:delete", args=[force.pk]))
    assert response.status_code == 302
    assert Force.objects.filter(pk=force.pk).exists()
    assert ledger(red) == START


NOTE = (
    "This is your copy of the force in the campaign Spring League: its Resources come "
    "from the campaign's ledger (R15), and it leaves the campaign by being retired there, "
    "not deleted."
)


def test_a_copy_s_pages_say_so_and_offer_no_control_the_campaign_refuses(
    client, alice, campaign, red
):
    client.force_login(alice)
    force = Force.objects.get(pk=red.force_id)
    campaign_page = reverse("campaign:force", args=[campaign.pk, red.pk])
    delete = f'href="{reverse("roster:delete", args=[force.pk])}"'
    page = client.get(reverse("roster:detail", args=[force.pk])).content.decode()
    assert page.count(escape(NOTE)) == 1
    assert f'<a href="{campaign_page}">Its page in Spring League</a>' in page
    assert delete not in page
    assert ">Rename</summary>" in page
    assert "Edit name and Resources" not in page
    # The rename form has no Resources field; a forged one changes nothing (R15).
    form = client.get(reverse("roster:edit", args=[force.pk])).content.decode()
    assert 'name="name"' in form
    assert 'name="resources"' not in form
    response = client.post(
        reverse("roster:edit", args=[force.pk]), {"name": "Red Renamed", "resources": 999}
    )
    assert response.status_code == 302
    renamed = Force.objects.get(pk=force.pk)
    assert (renamed.name, renamed.resources) == ("Red Renamed", force.resources)
    assert ledger(red) == START
    # The builder says so too.
    ann = ann_of(red)
    builder = client.get(reverse("roster:member", args=[force.pk, ann.pk])).content.decode()
    assert builder.count(escape(NOTE)) == 1


def test_a_renamed_campaign_shows_on_its_copy_s_cached_force_page(client, alice, campaign, red):
    # A campaign is renamed without a write to its forces (from the admin), so the force
    # page's cache key holds the campaign's note as it reads now, not the force's version.
    client.force_login(alice)
    url = reverse("roster:detail", args=[red.force_id])
    before = client.get(url).content.decode()
    assert before.count(escape(NOTE)) == 1
    Campaign.objects.filter(pk=campaign.pk).update(name="Autumn League")
    after = client.get(url).content.decode()
    assert after.count(escape(NOTE.replace("Spring League", "Autumn League"))) == 1
    assert ">Its page in Autumn League</a>" in after
    assert "Spring League" not in after


def test_a_force_of_one_s_own_offers_delete_and_resources(client, alice, red):
    client.force_login(alice)
    original = Force.objects.get(owner=alice, campaign_entry__isnull=True)
    page = client.get(reverse("roster:detail", args=[original.pk])).content.decode()
    assert "Campaign copy" not in page
    assert f'href="{reverse("roster:delete", args=[original.pk])}"' in page
    assert "Edit name and Resources" in page
    form = client.get(reverse("roster:edit", args=[original.pk])).content.decode()
    assert 'name="resources"' in form


def test_opponents_cannot_touch_another_players_campaign_force(client, bob, red):
    client.force_login(bob)
    assert add_equipment(client, red, "tool-kit").status_code == 404
    assert client.get(f"/api/v1/rosters/{red.force_id}/").status_code == 404
    assert ann_of(red).equipment == []


# --- the write path's answers ----------------------------------------------------------------


def test_resources_are_the_ledgers_and_delete_is_retire(alice, red):
    force = Force.objects.get(pk=red.force_id)
    with pytest.raises(Invalid) as refused:
        roster_services.update_force_details(force=force, actor=alice, resources=999)
    assert problems(refused) == [("/resources", "campaign-resources")]
    with pytest.raises(Conflict) as refused:
        roster_services.delete_force(force=force, actor=alice)
    assert problems(refused) == [("", "campaign-force")]
    renamed = roster_services.update_force_details(force=force, actor=alice, name="Crimson")
    assert (renamed.name, renamed.resources) == ("Crimson", force.resources)
    assert ledger(red) == START


def test_only_the_owner_edits_a_campaign_copy(organiser, bob, red):
    before = version(red)
    for user in (bob, organiser):
        with pytest.raises(NotAllowed) as refused:
            buy_equipment(red, "Ann", "tool-kit", by=user)
        assert problems(refused) == [("", "not-owner")]
    assert (version(red), ledger(red), ann_of(red).equipment) == (before, START, [])


def test_a_stale_builder_version_is_refused(alice, red):
    """A change made on an older version of the force is refused (409), nothing changed."""
    stale = version(red)
    buy_equipment(red, "Ann", "climbing-gear")
    with pytest.raises(Conflict) as refused:
        roster_services.change_member(
            force=Force.objects.get(pk=red.force_id),
            actor=alice,
            member_id=ann_of(red).pk,
            change=lambda data: {**data, "equipment": [*data["equipment"], "tool-kit"]},
            made_on=stale,
        )
    assert problems(refused) == [("/version", "stale-version")]
    assert ann_of(red).equipment == ["climbing-gear"]
    assert version(red) == stale + 1


# --- one evaluation per edit ----------------------------------------------------------------


@pytest.fixture
def evaluations(monkeypatch) -> list[int]:
    """Counts every evaluation of a force (the real engine runs; the count is the spy)."""
    calls: list[int] = []
    real = engine.evaluate_roster

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "evaluate_roster", counted)
    return calls


def test_a_campaign_edit_evaluates_the_force_once(alice, red, evaluations):
    buy_equipment(red, "Ann", "tool-kit")
    assert len(evaluations) == 1
    roster_services.add_member(force=red.force, actor=alice, data=student("Dan"))
    assert len(evaluations) == 2


def test_a_builder_edit_of_a_campaign_copy_evaluates_the_force_once(
    client, alice, red, evaluations
):
    client.force_login(alice)
    assert add_equipment(client, red, "tool-kit").status_code == 302
    assert len(evaluations) == 1
    assert ann_of(red).equipment == ["tool-kit"]


def test_a_level_up_evaluates_the_force_once(campaign, alice, bob, red, blue, evaluations):
    battle = record(
        campaign,
        alice,
        red,
        blue,
        red_results=[
            services.MemberOutcome(member=ann_of(red), enemies_out_of_action=1),
        ],
        blue_results=[services.MemberOutcome(member=member(blue, "Ben"), out_of_action=True)],
    )
    evaluations.clear()
    services.confirm_battle(battle=battle, by=bob)
    assert len(evaluations) == 2  # one per force in the battle
    evaluations.clear()
    services.take_level_up(
        campaign_force=red, by=alice, member=ann_of(red), line=4, rng=ScriptedDice(2)
    )
    assert len(evaluations) == 1
    evaluations.clear()
    change_member(
        red,
        "Ann",
        lambda data: {**data, "purchases": [{"line": 1, "choice": "ME", "between_battles": True}]},
    )
    assert len(evaluations) == 1


def test_the_ledger_entry_of_a_builder_purchase_names_it(client, alice, red):
    """R17a: each purchase is one ledger entry a player can read back."""
    client.force_login(alice)
    add_equipment(client, red, "tool-kit")
    reason = LedgerEntry.objects.filter(campaign_force=red).latest("id").reason
    assert reason.startswith("Ann: ")
    assert "Tool Kit" in reason
