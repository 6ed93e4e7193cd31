"""The amended rulings (R5a, R14a, R14b, R14c, R15a, R17a, R18a), legal and illegal side,
through the services and through the REST API. Each refusal is asserted whole (every
pointer and code) with what it leaves unchanged."""

import pytest

from campaign import services
from campaign.models import Battle, CampaignEvent, LedgerEntry
from dbd_site.errors import Conflict, Invalid, NotAllowed
from roster import services as roster_services
from roster.models import Force, Member
from rules.loader import get_catalogue
from tests.campaign.conftest import (
    ann_takes_an_enemy_out,
    api_problems,
    assert_resources_in_step,
    change_member,
    everyone,
    freeform_force,
    ledger,
    member,
    problems,
    record,
)
from tests.roster.builders import force, signed_in, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db


def version(cf) -> int:
    return Force.objects.get(pk=cf.force_id).version


def buy(cf, name: str, *purchases: dict):
    """Append between-battles purchases to a member (R17a)."""
    return change_member(
        cf,
        name,
        lambda data: {**data, "purchases": [*data["purchases"], *purchases]},
        description="bought",
    )


ME = {"line": 1, "choice": "ME", "between_battles": True}


@pytest.fixture
def fought(campaign, alice, bob, red, blue):
    """Red beat Blue, everyone took part: Red's balance 55, Blue's 50; all have fought."""
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    return red


def tail(cf, after: int) -> list[tuple[str, int, str]]:
    return ledger(cf)[after:]


# --- R17a, R18a: buying between battles (services) ----------------------------------------------


def test_a_statistic_line_is_bought_again_at_todays_price(fought):
    """R17a: a line taken at creation may be bought again; each purchase is priced from
    the statistics at the time (ME 1 -> 2, then ME 2 -> 4), one ledger entry each."""
    before = len(ledger(fought))
    buy(fought, "Ann", ME)
    buy(fought, "Ann", ME)
    assert tail(fought, before) == [
        ("purchase", -2, "Ann: bought +1 ME"),
        ("purchase", -4, "Ann: bought +1 ME"),
    ]
    assert member(fought, "Ann").purchases == [ME, ME]
    assert Force.objects.get(pk=fought.force_id).is_legal
    assert_resources_in_step(fought)


def test_a_skill_is_bought_between_battles(fought):
    """R6/R17a: a Movement skill costs 1.5 x max(ME, RA) = 1.5 x 4 = 6 for Ann's first."""
    before = len(ledger(fought))
    buy(fought, "Ann", {"skill": "movement/catfall", "between_battles": True})
    name = get_catalogue().skills["movement/catfall"].name
    assert tail(fought, before) == [("purchase", -6, f"Ann: bought {name}")]
    assert_resources_in_step(fought)


def test_equipment_is_paid_once_and_discarded_for_nothing(fought):
    """R17a: a later +1 ME charges for the ME itself, not again for the ME-priced weapon;
    R18: a discard gives no refund and writes no entry."""
    before = len(ledger(fought))
    change_member(fought, "Ann", lambda d: {**d, "equipment": [*d["equipment"], "hand-weapon"]})
    evaluation = Force.objects.get(pk=fought.force_id).evaluation
    price = evaluation["members"][1]["equipment_costs"][0]
    assert price > 0
    buy(fought, "Ann", ME)
    repriced = Force.objects.get(pk=fought.force_id).evaluation
    assert repriced["members"][1]["equipment_costs"][0] > price  # today's price shows
    change_member(fought, "Ann", lambda d: {**d, "equipment": []})
    name = get_catalogue().equipment["hand-weapon"].name
    assert tail(fought, before) == [
        ("purchase", -price, f"Ann: bought {name}"),
        ("purchase", -2, "Ann: bought +1 ME"),
    ]
    assert member(fought, "Ann").equipment == []
    assert_resources_in_step(fought)


def test_recruits_pay_their_cost_and_retire_for_nothing(fought, alice):
    """R18a: a recruit is paid from the ledger; a retirement refunds nothing; R10 holds."""
    before = len(ledger(fought))
    dan = roster_services.add_member(
        force=fought.force, actor=alice, data=student("Dan", equipment=["tool-kit"])
    )
    roster_services.remove_member(force=fought.force, actor=alice, member_id=dan.pk)
    assert tail(fought, before) == [("purchase", -10, "Recruited Dan")]
    assert not Member.objects.filter(pk=dan.pk).exists()
    assert_resources_in_step(fought)


def test_changing_a_fought_members_creation_choices_is_refused(fought):
    before, entries = version(fought), ledger(fought)
    with pytest.raises(Invalid) as refused:
        change_member(
            fought,
            "Ann",
            lambda d: {
                **d,
                "base": {"ME": 3, "RA": 2, "CA": 1, "DF": 2},
                "purchases": [{"line": 1, "choice": "ME"}],
                "xp": 9,
            },
        )
    assert problems(refused) == [
        ("/members/1/xp", "xp-from-battles"),
        ("/members/1/base", "history-fixed"),
        ("/members/1/purchases/0", "not-between-battles"),
    ]
    assert (version(fought), ledger(fought)) == (before, entries)


def test_a_purchase_the_balance_cannot_pay_changes_nothing(fought, alice):
    """R17a: `insufficient-resources` at `/resources`; the ledger, the members and the
    version stay as they were: a refused purchase costs 0. Paying exactly the balance
    is fine."""
    services.spend(campaign_force=fought, amount=54, reason="Feast", by=alice)  # 1 left
    entries, before = ledger(fought), version(fought)
    members = list(Member.objects.filter(force_id=fought.force_id).values())
    with pytest.raises(Invalid) as refused:
        buy(fought, "Ann", ME)  # costs 2
    assert problems(refused) == [("/resources", "insufficient-resources")]
    assert ledger(fought) == entries
    assert list(Member.objects.filter(force_id=fought.force_id).values()) == members
    assert version(fought) == before
    services.adjust_resources(
        campaign_force=fought, amount=1, reason="Prize", by=fought.campaign.organiser
    )
    buy(fought, "Ann", ME)  # exactly the balance of 2
    assert services.balance_of(fought) == 0
    assert_resources_in_step(fought)


# --- R17a, R18a through the roster API ----------------------------------------------------------


def test_put_and_patch_of_a_campaign_copy_buy_recruit_and_discard(fought, alice):
    client = signed_in(alice)
    url = f"/api/v1/rosters/{fought.force_id}/"
    before = len(ledger(fought))
    document = client.get(url + "export/").json()
    document["members"][1]["purchases"].append(ME)
    document["members"][2]["equipment"].append("tool-kit")
    response = client.put(url, document, format="json", HTTP_IF_MATCH=client.get(url)["ETag"])
    assert response.status_code == 200, response.content
    tool_kit = get_catalogue().equipment["tool-kit"].name
    assert tail(fought, before) == [
        ("purchase", -2, "Ann: bought +1 ME"),
        ("purchase", -10, f"Ben: bought {tool_kit}"),
    ]
    document = client.get(url + "export/").json()
    members = document["members"]
    members[2]["equipment"] = []  # discarded: no refund
    members.append(student("Dee", equipment=["tool-kit"]))  # recruited: paid
    response = client.patch(url, {"members": members}, format="json")
    assert response.status_code == 200, response.content
    assert tail(fought, before)[2:] == [("purchase", -10, "Recruited Dee")]
    assert_resources_in_step(fought)


def test_the_roster_api_refuses_what_the_campaign_refuses(fought, alice):
    client = signed_in(alice)
    url = f"/api/v1/rosters/{fought.force_id}/"
    entries, before = ledger(fought), version(fought)
    document = client.get(url + "export/").json()
    document["members"][1]["purchases"].append({"line": 1, "choice": "ME"})  # unmarked
    response = client.put(url, document, format="json")
    assert response.status_code == 400
    assert api_problems(response) == [("/members/1/purchases/0", "not-between-battles")]
    document = client.get(url + "export/").json()
    # +1 HP (technical line 2) has no upper bound (R3), so only the price refuses it:
    # 2 x HP each, 12 + 13 + ... far beyond the 55 left.
    for _ in range(30):
        document["members"][1]["purchases"].append(
            {"line": 2, "choice": "HP", "between_battles": True}
        )
    response = client.put(url, document, format="json")
    assert response.status_code == 400
    assert api_problems(response) == [("/resources", "insufficient-resources")]
    assert (ledger(fought), version(fought)) == (entries, before)


# --- R15a: a void takes back the level-ups its XP paid for ---------------------------------------


def test_void_plan_lists_and_the_void_removes_the_level_up_latest_first(
    campaign, organiser, alice, bob, red, blue
):
    battle = ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    battle.refresh_from_db()
    ann = member(red, "Ann")
    services.take_level_up(campaign_force=red, by=alice, member=ann, line=2, choice="HP")
    plan = services.void_plan(battle=battle)
    assert [(x.member.name, x.index, x.advancement) for x in plan] == [
        ("Ann", 0, {"line": 2, "choice": "HP"})
    ]
    client = signed_in(organiser)
    url = f"/api/v1/campaigns/{campaign.pk}/battles/{battle.pk}/void/"
    response = client.post(url, {"reason": "Wrong table"}, format="json")
    assert response.status_code == 200, response.content
    ann = member(red, "Ann")
    assert (ann.xp, ann.level_ups) == (0, [])
    evaluation = Force.objects.get(pk=red.force_id).evaluation
    assert evaluation["errors"] == []
    assert evaluation["members"][1]["stats"]["HP"] == 11  # the level-up's +1 HP is gone
    event = campaign.events.filter(kind=CampaignEvent.Kind.BATTLE_VOIDED).get()
    assert event.data["level_ups_lost"] == ["Ann's level-up 1"]
    assert_resources_in_step(red)
    assert_resources_in_step(blue)


def test_a_void_that_would_leave_a_force_illegal_is_refused(campaign, organiser, alice, bob, blue):
    """R15a: Zoe (ME 0) raised ME with her level-up and then bought an ME-priced weapon
    (R7 needs ME >= 1); taking the level-up back would leave it illegal: 409."""
    zoe = student("Zoe", base={"ME": 1, "RA": 3, "CA": 2, "DF": 2})  # technical: ME 0
    document = force(zoe, student("Ann"), student("Ben"), student("Cat"), name="Red Club")
    original = roster_services.import_force(owner=alice, document=document)
    red = services.enter_force(campaign=campaign, player=alice, force=original)
    battle = record(
        campaign,
        alice,
        red,
        blue,
        red_results=everyone(red, Zoe={"enemies_out_of_action": 1}),
        blue_results=everyone(blue, Ben={"out_of_action": True}),
    )
    services.confirm_battle(battle=battle, by=bob)
    services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Zoe"), line=1, choice="ME"
    )
    change_member(red, "Zoe", lambda d: {**d, "equipment": ["hand-weapon"]})
    entries, before = ledger(red), version(red)
    with pytest.raises(Conflict) as refused:
        services.void_battle(battle=battle, by=organiser, reason="Oops")
    assert {code for _, code in problems(refused)} == {"void-breaks-force"}
    assert problems(refused)[0][0].startswith("/members/0")
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.CONFIRMED
    assert (ledger(red), version(red)) == (entries, before)
    assert member(red, "Zoe").level_ups == [{"line": 1, "choice": "ME"}]


def test_a_void_that_would_overdraw_is_refused_through_the_api(
    campaign, organiser, alice, bob, red, blue
):
    battle = record(campaign, alice, red, blue)
    services.confirm_battle(battle=battle, by=bob)
    services.spend(campaign_force=red, amount=50, reason="Mercenaries", by=alice)
    entries = ledger(red)
    url = f"/api/v1/campaigns/{campaign.pk}/battles/{battle.pk}/void/"
    response = signed_in(organiser).post(url, {"reason": "Oops"}, format="json")
    assert response.status_code == 400
    assert api_problems(response) == [("", "void-overdraws")]
    assert ledger(red) == entries


# --- R14a: who confirms ----------------------------------------------------------------------


def test_r14a_through_the_api(campaign, organiser, alice, bob, red, blue):
    """The opponent confirms; the recorder cannot; the organiser who recorded it cannot;
    the organiser not in it can (R14a)."""
    confirm = "/api/v1/campaigns/{}/battles/{}/confirm/"
    first = record(campaign, organiser, red, blue)
    response = signed_in(organiser).post(confirm.format(campaign.pk, first.pk))
    assert (response.status_code, api_problems(response)) == (403, [("", "own-battle")])
    assert signed_in(bob).post(confirm.format(campaign.pk, first.pk)).status_code == 200
    second = record(campaign, alice, red, blue)
    response = signed_in(alice).post(confirm.format(campaign.pk, second.pk))
    assert (response.status_code, api_problems(response)) == (403, [("", "own-battle")])
    assert signed_in(organiser).post(confirm.format(campaign.pk, second.pk)).status_code == 200


def test_an_organiser_who_plays_cannot_confirm_their_own_record(campaign, organiser, alice, red):
    olive = services.enter_force(
        campaign=campaign, player=organiser, force=freeform_force(organiser, "Olive")
    )
    battle = record(campaign, organiser, red, olive)
    with pytest.raises(NotAllowed) as refused:
        services.confirm_battle(battle=battle, by=organiser)
    assert problems(refused) == [("", "own-battle")]
    services.confirm_battle(battle=battle, by=alice)
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.CONFIRMED


# --- R14b: a consistent record ---------------------------------------------------------------


def test_r14b_every_problem_at_once_at_its_pointer(campaign, alice, red, blue):
    with pytest.raises(Invalid) as refused:
        record(
            campaign,
            alice,
            red,
            blue,
            red_results=everyone(red, Ann={"enemies_out_of_action": 2, "objectives": 11}),
            blue_results=[
                *everyone(blue, Ben={"out_of_action": True}),
                services.MemberOutcome(member=member(red, "Cat")),
            ],
        )
    assert problems(refused) == [
        ("/results/0/members/1/objectives", "objectives-range"),
        ("/results/0/members", "out-of-action-credit"),
        ("/results/1/members/4/member", "member-not-in-force"),
    ]
    assert refused.value.problems[1].message == (
        "Red Club's members are credited with 2 enemies taken Out of Action, but the other "
        "forces have 1 member marked Out of Action (R14b)."
    )
    assert not Battle.objects.exists()


@pytest.mark.parametrize("objectives", [0, 10])
def test_r14b_objectives_0_and_10_are_fine(campaign, alice, red, blue, objectives):
    battle = record(
        campaign,
        alice,
        red,
        blue,
        red_results=everyone(red, Ann={"objectives": objectives, "enemies_out_of_action": 1}),
        blue_results=everyone(blue, Ben={"out_of_action": True}),  # exactly one credit
    )
    assert battle.status == Battle.Status.PENDING


def test_r14b_and_misspelt_keys_through_the_api(campaign, alice, red, blue):
    client = signed_in(alice)
    url = f"/api/v1/campaigns/{campaign.pk}/battles/"

    def body(**ann):
        results = [
            {"force": cf.pk, "members": [{"member": m.pk} for m in cf.force.members.all()]}
            for cf in (red, blue)
        ]
        results[0]["members"][1].update(ann)
        return {
            "played_on": "2025-03-01",
            "scenario": "Raid",
            "winner": red.pk,
            "results": results,
        }

    response = client.post(url, body(enemies_out_of_action=1), format="json")
    assert response.status_code == 400
    assert api_problems(response) == [("/results/0/members", "out-of-action-credit")]
    response = client.post(url, body(enemies_out_of_actoin=3), format="json")
    assert response.status_code == 400
    assert api_problems(response) == [
        ("/results/0/members/1/enemies_out_of_actoin", "unknown-key")
    ]
    response = client.post(url, body(objectives=11), format="json")
    assert response.status_code == 400
    assert api_problems(response) == [("/results/0/members/1/objectives", "max-value")]
    assert not Battle.objects.exists()
    assert client.post(url, body(objectives=10), format="json").status_code == 201


def test_a_level_up_body_with_a_stray_key_is_refused(fought, alice):
    ann = member(fought, "Ann")
    Member.objects.filter(pk=ann.pk).update(xp=3)  # a level-up waiting (set by hand)
    url = f"/api/v1/campaigns/{fought.campaign_id}/forces/{fought.pk}/members/{ann.pk}/level-ups/"
    before = version(fought)
    response = signed_in(alice).post(
        url, {"line": 1, "choice": "ME", "skill": "movement/catfall"}, format="json"
    )
    assert response.status_code == 400
    assert api_problems(response) == [("/skill", "invalid")]
    response = signed_in(alice).post(
        url, {"line": 1, "choice": "ME", "colour": "red"}, format="json"
    )
    assert response.status_code == 400
    assert api_problems(response) == [("/colour", "unknown-key")]
    assert version(fought) == before
    assert member(fought, "Ann").level_ups == []


# --- R14c: scored with the rules at confirmation ------------------------------------------------


def test_r14c_the_rules_in_force_at_confirmation_score_it(
    campaign, organiser, alice, bob, red, blue
):
    battle = record(campaign, alice, red, blue)
    services.update_house_rules(
        campaign=campaign, by=organiser, resources_for_win=12, xp_for_winning_side=3
    )
    services.confirm_battle(battle=battle, by=bob)
    assert ledger(red)[-1][:2] == ("battle", 12)
    assert set(Member.objects.filter(force_id=red.force_id).values_list("xp", flat=True)) == {4}
    assert_resources_in_step(red)


# --- R5a: re-rolls -----------------------------------------------------------------------------


def rolled_force(owner):
    ann = student("Ann", free_advancements=[{"line": 4}, {"line": 3}])  # a Movement roll
    document = force(ann, student("Ben"), student("Cat"), student("Dan"), name="Dice")
    saved = roster_services.import_force(owner=owner, document=document)
    return saved, saved.members.get(name="Ann")


def fr(saved) -> int:
    return Force.objects.get(pk=saved.pk).evaluation["members"][0]["stats"]["FR"]


def test_r5a_a_reroll_may_take_fr_to_0_and_no_further(alice):
    saved, ann = rolled_force(alice)

    def roll():
        return roster_services.roll_skill(
            force=saved,
            actor=alice,
            member_id=ann.pk,
            slot="free_advancements/0",
            rng=ScriptedDice(2),
        )

    roll()
    for _ in range(5):
        roll()  # each re-roll -1 FR (R5): 5 -> 0
    assert fr(saved) == 0
    assert Force.objects.get(pk=saved.pk).is_legal  # FR exactly 0 is legal (R3)
    before = Force.objects.get(pk=saved.pk).version
    with pytest.raises(Invalid) as refused:
        roll()
    assert problems(refused) == [("/slot", "reroll-fr")]
    assert Force.objects.get(pk=saved.pk).version == before
    assert member_rerolls(ann) == 5


def member_rerolls(ann) -> int:
    return Member.objects.get(pk=ann.pk).free_advancements[0].get("rerolls", 0)


def test_r5a_a_reroll_then_a_pick_pays_1_plus_2(alice):
    saved, ann = rolled_force(alice)
    for _ in range(2):
        roster_services.roll_skill(
            force=saved,
            actor=alice,
            member_id=ann.pk,
            slot="free_advancements/0",
            rng=ScriptedDice(2),
        )
    roster_services.pick_skill(
        force=saved,
        actor=alice,
        member_id=ann.pk,
        slot="free_advancements/0",
        skill="movement/catfall",
    )
    assert fr(saved) == 5 - 1 - 2


def test_r5a_a_hundred_rolls_leave_the_member_readable(client, alice):
    saved, ann = rolled_force(alice)
    outcomes = []
    for _ in range(100):
        try:
            roster_services.roll_skill(
                force=Force.objects.get(pk=saved.pk),
                actor=alice,
                member_id=ann.pk,
                slot="free_advancements/0",
                rng=ScriptedDice(2),
            )
            outcomes.append("rolled")
        except Invalid as exc:
            outcomes.append(exc.code)
    assert outcomes == ["rolled"] * 6 + ["reroll-fr"] * 94
    client.force_login(alice)
    assert client.get(f"/forces/{saved.pk}/").status_code == 200
    assert client.get(f"/forces/{saved.pk}/members/{ann.pk}/").status_code == 200
    exported = signed_in(alice).get(f"/api/v1/rosters/{saved.pk}/export/")
    assert exported.status_code == 200
    again = roster_services.import_force(owner=alice, document=exported.json())
    assert again.members.count() == 4


def test_ledger_entries_are_one_per_purchase(fought):
    before = LedgerEntry.objects.filter(campaign_force=fought).count()
    buy(fought, "Ann", ME, {"skill": "movement/catfall", "between_battles": True})
    amounts = [amount for _, amount, _ in tail(fought, before)]
    assert amounts == [-2, -6]  # ME 1 -> 2 first; the skill after statistics (R6)
