"""Campaign services: every write keeps the house rules (R14-R18) and logs itself.

Refusals are `dbd_site.errors` kinds; each test asserts the whole refusal (every pointer
and code), and what a refused call leaves unchanged.
"""

import dataclasses

import pytest
from django.db.models import Sum

from campaign import progression, selectors, services
from campaign.models import Battle, CampaignEvent, CampaignForce, LedgerEntry
from dbd_site.errors import Conflict, Invalid, NotAllowed, NotFound
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.models import Force, Member, SkillRoll
from tests.campaign.conftest import (
    TODAY,
    assert_resources_in_step,
    buy_equipment,
    change_member,
    everyone,
    freeform_force,
    ledger,
    make_user,
    member,
    problems,
    record,
)
from tests.roster.builders import student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db


def balance(cf: CampaignForce) -> int:
    return selectors.balance(campaign_force=cf)


def xps(cf: CampaignForce) -> dict[str, int]:
    return dict(Member.objects.filter(force_id=cf.force_id).values_list("name", "xp"))


def kinds(campaign) -> list[str]:
    return list(campaign.events.order_by("id").values_list("kind", flat=True))


def stored_resources(cf: CampaignForce) -> int:
    return Force.objects.get(pk=cf.force_id).resources


def version(cf: CampaignForce) -> int:
    return Force.objects.get(pk=cf.force_id).version


# --- campaigns and players ---------------------------------------------------------------


def test_a_new_campaign_has_the_rulings_defaults_and_the_organiser_plays(organiser):
    campaign = services.create_campaign(organiser=organiser, name="  League  ")
    assert campaign.name == "League"
    assert campaign.house_rules == progression.HouseRules()
    assert selectors.is_player(campaign=campaign, user=organiser)
    assert len(campaign.invite_token) >= 32
    assert kinds(campaign) == [CampaignEvent.Kind.CAMPAIGN_CREATED]


def test_house_rules_can_be_set_at_creation_and_bad_ones_are_refused(organiser):
    campaign = services.create_campaign(
        organiser=organiser, name="Fast", resources_for_win=12, level_thresholds=[0, 2, 4]
    )
    campaign.refresh_from_db()
    assert campaign.house_rules.resources_for_win == 12
    assert campaign.house_rules.level_thresholds == (0, 2, 4)
    with pytest.raises(Invalid, match="strictly increasing") as refused:
        services.create_campaign(organiser=organiser, name="Bad", level_thresholds=[0, 2, 2])
    assert problems(refused) == [("", "invalid-house-rules")]
    with pytest.raises(Invalid) as refused:
        services.create_campaign(organiser=organiser, name="Bad", gold_per_win=3, xp_per_kill=1)
    assert problems(refused) == [("/gold_per_win", "unknown-key"), ("/xp_per_kill", "unknown-key")]
    assert campaign.__class__.objects.filter(name="Bad").count() == 0


def test_only_the_organiser_changes_house_rules_and_it_is_logged(campaign, organiser, alice):
    with pytest.raises(NotAllowed) as refused:
        services.update_house_rules(campaign=campaign, by=alice, resources_for_win=20)
    assert problems(refused) == [("", "not-organiser")]
    with pytest.raises(Invalid, match="between 0") as refused:
        services.update_house_rules(campaign=campaign, by=organiser, resources_for_draw=-1)
    assert problems(refused) == [("", "invalid-house-rules")]
    services.update_house_rules(campaign=campaign, by=organiser, resources_for_win=20)
    campaign.refresh_from_db()
    assert campaign.resources_for_win == 20
    event = campaign.events.get(kind=CampaignEvent.Kind.HOUSE_RULES_CHANGED)
    assert event.data == {"changes": {"resources_for_win": [10, 20]}}
    assert "Resources for a win (R15) 10 -> 20" in event.message


def test_joining_needs_the_right_token_and_twice_is_once(campaign, alice):
    outsider = make_user("eve")
    with pytest.raises(NotFound, match="not valid") as refused:
        services.join_campaign(user=outsider, token="guessed")
    assert problems(refused) == [("", "invalid-invite")]
    assert not selectors.is_player(campaign=campaign, user=outsider)
    services.join_campaign(user=alice, token=campaign.invite_token)
    assert kinds(campaign).count(CampaignEvent.Kind.PLAYER_JOINED) == 2  # alice and bob


def test_a_new_invite_link_stops_the_old_one(campaign, organiser):
    old = campaign.invite_token
    services.reset_invite_token(campaign=campaign, by=organiser)
    with pytest.raises(NotFound) as refused:
        services.join_campaign(user=make_user("late"), token=old)
    assert problems(refused) == [("", "invalid-invite")]


# --- entering a force ------------------------------------------------------------------------


def test_entering_copies_the_force_and_leaves_the_original_untouched(campaign, alice):
    original = freeform_force(alice, "Red Club")
    before = roster_selectors.force_document(
        force=roster_selectors.get_force(user=alice, force_id=original.pk)
    )
    cf = services.enter_force(campaign=campaign, player=alice, force=original)
    assert cf.force_id != original.pk
    assert cf.entered_from_id == original.pk
    assert cf.force.owner == alice
    original = roster_selectors.get_force(user=alice, force_id=original.pk)
    assert roster_selectors.force_document(force=original) == before
    assert not hasattr(original, "campaign_entry") or original.campaign_entry is None
    copy = roster_selectors.get_force(user=alice, force_id=cf.force_id)
    assert roster_selectors.force_document(force=copy)["members"] == before["members"]
    assert copy.name == "Red Club"
    # Changing the campaign copy leaves the original alone too.
    buy_equipment(cf, "Ann", "hand-weapon")
    original = roster_selectors.get_force(user=alice, force_id=original.pk)
    assert roster_selectors.force_document(force=original) == before


def test_entering_writes_the_start_entries(red):
    entries = list(red.ledger_entries.values_list("kind", "amount", "reason"))
    assert entries == [
        ("start", 50, "Starting Resources (R11)"),
        ("purchase", -5, "Initial roster"),
    ]
    assert balance(red) == 45
    assert stored_resources(red) == 50  # cost 5 + balance 45
    assert_resources_in_step(red)
    assert red.campaign.events.filter(kind=CampaignEvent.Kind.FORCE_ENTERED).count() == 1


def test_the_starting_resources_setting_is_honoured(organiser, alice):
    rich = services.create_campaign(organiser=organiser, name="Rich", starting_resources=80)
    services.join_campaign(user=alice, token=rich.invite_token)
    cf = services.enter_force(campaign=rich, player=alice, force=freeform_force(alice, "R"))
    assert balance(cf) == 75
    poor = services.create_campaign(organiser=organiser, name="Poor", starting_resources=4)
    services.join_campaign(user=alice, token=poor.invite_token)
    with pytest.raises(Invalid, match="legal with 4 starting Resources") as refused:
        services.enter_force(campaign=poor, player=alice, force=freeform_force(alice, "P"))
    assert problems(refused) == [("/force", "force-not-ready")]
    assert not poor.forces.exists()


def test_entering_refuses_what_is_not_allowed(campaign, alice, bob):
    outsider = make_user("eve")
    with pytest.raises(NotAllowed, match="Join the campaign") as refused:
        services.enter_force(
            campaign=campaign, player=outsider, force=freeform_force(outsider, "X")
        )
    assert problems(refused) == [("", "not-a-player")]
    with pytest.raises(NotAllowed, match="you own") as refused:
        services.enter_force(campaign=campaign, player=alice, force=freeform_force(bob, "B"))
    assert problems(refused) == [("", "not-owner")]
    illegal = roster_services.import_force(
        owner=alice,
        document={"format": "dbd-roster/1", "name": "Two", "resources": 50, "members": []},
    )
    with pytest.raises(Invalid, match="R10") as refused:
        services.enter_force(campaign=campaign, player=alice, force=illegal)
    assert problems(refused) == [("/force", "force-not-ready")]
    veteran = freeform_force(alice, "Veteran")
    Member.objects.filter(force=veteran, name="Ann").update(xp=3)
    with pytest.raises(Invalid, match="no XP") as refused:
        services.enter_force(campaign=campaign, player=alice, force=veteran)
    assert problems(refused) == [("/force", "force-not-ready")]
    cf = services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "A"))
    with pytest.raises(Conflict, match="already have a force") as refused:
        services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "B"))
    assert problems(refused) == [("", "already-in-campaign")]
    services.retire_campaign_force(campaign_force=cf, by=alice)
    with pytest.raises(Invalid, match="already a campaign force") as refused:
        services.enter_force(campaign=campaign, player=alice, force=cf.force)
    assert problems(refused) == [("/force", "already-in-campaign")]
    assert services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "C"))


def test_entering_keeps_the_roll_history(campaign, alice):
    original = freeform_force(alice, "Rolled")
    ann = original.members.get(name="Ann")
    roster_services.update_member(
        force=original,
        actor=alice,
        member_id=ann.pk,
        data=student("Ann", free_advancements=[{"line": 4}, {"line": 3}]),
    )
    roster_services.roll_skill(
        force=original,
        actor=alice,
        member_id=ann.pk,
        slot="free_advancements/0",
        rng=ScriptedDice(2),
    )
    cf = services.enter_force(campaign=campaign, player=alice, force=original)
    assert SkillRoll.objects.filter(member__force_id=cf.force_id).count() == 1
    assert Force.objects.get(pk=cf.force_id).evaluation["members"][1]["unverified_rolls"] == 0


# --- battles ---------------------------------------------------------------------------------


def test_a_recorded_battle_is_pending_and_counts_for_nothing(campaign, alice, red, blue):
    battle = record(campaign, alice, red, blue)
    assert battle.status == Battle.Status.PENDING
    assert set(xps(red).values()) == set(xps(blue).values()) == {0}
    assert (balance(red), balance(blue)) == (45, 45)
    assert all(row.played == 0 for row in selectors.standings(campaign=campaign))
    assert selectors.recent_battles(campaign=campaign) == []
    assert battle.battle_forces.get(campaign_force=red).outcome == "win"
    assert battle.battle_forces.get(campaign_force=blue).outcome == "loss"
    assert kinds(campaign)[-1] == CampaignEvent.Kind.BATTLE_RECORDED


def test_confirming_applies_xp_and_resources_to_everyone(campaign, alice, bob, red, blue):
    battle = record(
        campaign,
        alice,
        red,
        blue,
        red_results=everyone(red, Ann={"enemies_out_of_action": 2, "objectives": 1}),
        blue_results=everyone(
            blue,
            Ben={"unconscious": True, "out_of_action": True},
            Cat={"out_of_action": True},  # R14b: two enemies credited, two Out of Action
        ),
    )
    services.confirm_battle(battle=battle, by=bob)
    # R16: +1 taking part, +1 per enemy, +1 per objective, +1 on the winning side.
    assert xps(red) == {"Emma": 2, "Ann": 5, "Ben": 2, "Cat": 2}
    assert xps(blue) == {"Emma": 1, "Ann": 1, "Ben": 1, "Cat": 1}  # Out of Action still counts
    # R15: win 10, loss 5.
    assert (balance(red), balance(blue)) == (55, 50)
    battle.refresh_from_db()
    assert (battle.status, battle.confirmed_by) == (Battle.Status.CONFIRMED, bob)
    assert sorted(
        battle.ledger_entries.values_list("campaign_force_id", "amount", "kind")
    ) == sorted([(red.pk, 10, "battle"), (blue.pk, 5, "battle")])
    awarded = dict(
        battle.battle_forces.get(campaign_force=red).member_results.values_list(
            "member_name", "xp_awarded"
        )
    )
    assert awarded == {"Emma": 2, "Ann": 5, "Ben": 2, "Cat": 2}
    assert_resources_in_step(red)
    assert_resources_in_step(blue)
    event = campaign.events.filter(kind=CampaignEvent.Kind.BATTLE_CONFIRMED).get()
    assert "Ann reached level 2" in event.message


def test_only_members_who_took_part_earn_xp(campaign, alice, bob, red, blue):
    ann = member(red, "Ann")
    battle = record(campaign, alice, red, blue, red_results=[services.MemberOutcome(member=ann)])
    services.confirm_battle(battle=battle, by=bob)
    assert xps(red) == {"Emma": 0, "Ann": 2, "Ben": 0, "Cat": 0}


def test_a_draw_gives_every_force_the_draw_reward(campaign, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    assert (balance(red), balance(blue)) == (52, 52)
    assert set(xps(red).values()) == {1}


def test_the_campaigns_settings_are_applied(organiser, alice, bob):
    campaign = services.create_campaign(
        organiser=organiser,
        name="House",
        resources_for_win=3,
        resources_for_loss=1,
        xp_for_taking_part=2,
        xp_for_winning_side=0,
    )
    for user in (alice, bob):
        services.join_campaign(user=user, token=campaign.invite_token)
    red = services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "R"))
    blue = services.enter_force(campaign=campaign, player=bob, force=freeform_force(bob, "B"))
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    assert (balance(red), balance(blue)) == (45 + 3, 45 + 1)
    assert set(xps(red).values()) == set(xps(blue).values()) == {2}


def test_confirming_is_all_or_nothing(campaign, alice, bob, red, blue, monkeypatch):
    battle = record(campaign, alice, red, blue)
    real = progression.resources_earned

    def fail_on_loss(outcome, rules):
        if outcome == "loss":
            raise RuntimeError("the database went away")
        return real(outcome, rules)

    monkeypatch.setattr(progression, "resources_earned", fail_on_loss)
    entries = LedgerEntry.objects.count()
    with pytest.raises(RuntimeError):
        services.confirm_battle(battle=battle, by=bob)
    # XP had been added and the winner's reward written before the failure: all undone.
    assert set(xps(red).values()) == set(xps(blue).values()) == {0}
    assert LedgerEntry.objects.count() == entries
    assert (balance(red), balance(blue)) == (45, 45)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PENDING
    assert set(battle.battle_forces.values_list("member_results__xp_awarded", flat=True)) == {0}
    assert not campaign.events.filter(kind=CampaignEvent.Kind.BATTLE_CONFIRMED).exists()
    monkeypatch.undo()
    services.confirm_battle(battle=battle, by=bob)
    assert (balance(red), balance(blue)) == (55, 50)


def test_the_recorder_cannot_confirm_their_own_battle(campaign, organiser, alice, bob, red, blue):
    """R14a: not the recorder, not a player outside the battle; the organiser who neither
    recorded it nor plays in it may."""
    battle = record(campaign, alice, red, blue)
    with pytest.raises(NotAllowed, match="not its recorder") as refused:
        services.confirm_battle(battle=battle, by=alice)
    assert problems(refused) == [("", "own-battle")]
    carol = make_user("carol")
    services.join_campaign(user=carol, token=campaign.invite_token)
    with pytest.raises(NotAllowed, match="opponent") as refused:
        services.confirm_battle(battle=battle, by=carol)  # a player, but not in the battle
    assert problems(refused) == [("", "not-in-battle")]
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.PENDING
    assert balance(red) == 45
    services.confirm_battle(battle=battle, by=organiser)
    with pytest.raises(Conflict, match="already confirmed") as refused:
        services.confirm_battle(battle=battle, by=bob)
    assert problems(refused) == [("", "battle-not-pending")]
    assert balance(red) == 55


def test_the_organiser_cannot_confirm_a_battle_they_recorded(campaign, organiser, bob, red, blue):
    """R14a changed this: it used to be allowed. Nobody confirms a battle alone, so an
    organiser who recorded a battle waits for a player in it to confirm."""
    battle = record(campaign, organiser, red, blue)
    with pytest.raises(NotAllowed) as refused:
        services.confirm_battle(battle=battle, by=organiser)
    assert problems(refused) == [("", "own-battle")]
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.PENDING
    services.confirm_battle(battle=battle, by=bob)
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.CONFIRMED


def test_recording_refuses_what_is_not_a_battle(campaign, organiser, alice, bob, red, blue):
    with pytest.raises(Invalid, match="two or more") as refused:
        services.record_battle(
            campaign=campaign,
            by=alice,
            played_on=TODAY,
            scenario="Solo",
            winner=None,
            results={red: everyone(red)},
        )
    assert problems(refused) == [("/results", "battle-forces")]
    with pytest.raises(Invalid, match="is not in Blue Club") as refused:
        record(campaign, alice, red, blue, blue_results=everyone(red))
    assert problems(refused) == [
        (f"/results/1/members/{j}/member", "member-not-in-force") for j in range(4)
    ]
    ann = member(red, "Ann")
    with pytest.raises(Invalid, match="listed twice") as refused:
        record(campaign, alice, red, blue, red_results=[services.MemberOutcome(ann)] * 2)
    assert problems(refused) == [("/results/0/members/1/member", "listed-twice")]
    with pytest.raises(Invalid, match="0 to 10") as refused:
        record(
            campaign,
            alice,
            red,
            blue,
            red_results=everyone(red, Ann={"objectives": -1}),
        )
    assert problems(refused) == [("/results/0/members/1/objectives", "objectives-range")]
    with pytest.raises(Invalid, match="scenario") as refused:
        record(campaign, alice, red, blue, scenario="  ")
    assert problems(refused) == [("/scenario", "required")]
    with pytest.raises(Invalid, match="future") as refused:
        record(campaign, alice, red, blue, played_on=TODAY.replace(year=2999))
    assert problems(refused) == [("/played_on", "battle-in-future")]
    carol = make_user("carol")
    services.join_campaign(user=carol, token=campaign.invite_token)
    with pytest.raises(NotAllowed) as refused:
        record(campaign, carol, red, blue)
    assert problems(refused) == [("", "not-in-battle")]
    other = services.create_campaign(organiser=organiser, name="Other")
    services.join_campaign(user=carol, token=other.invite_token)
    green = services.enter_force(campaign=other, player=carol, force=freeform_force(carol, "G"))
    with pytest.raises(Invalid, match="not in this campaign") as refused:
        services.record_battle(
            campaign=campaign,
            by=organiser,
            played_on=TODAY,
            scenario="Raid",
            winner=None,
            results={red: everyone(red), green: everyone(green)},
        )
    assert problems(refused) == [("/results/1/force", "battle-forces")]
    assert not Battle.objects.exists()


def test_a_force_is_in_one_pending_battle_at_a_time(campaign, organiser, alice, bob, red, blue):
    record(campaign, alice, red, blue)
    with pytest.raises(Conflict, match="waiting for confirmation: Blue Club, Red Club") as refused:
        record(campaign, bob, red, blue)
    assert problems(refused) == [("", "battle-pending")]


# --- voiding -----------------------------------------------------------------------------


def test_voiding_reverses_everything_by_new_entries(campaign, organiser, alice, bob, red, blue):
    battle = record(campaign, alice, red, blue)
    services.confirm_battle(battle=battle, by=bob)
    entries = LedgerEntry.objects.count()
    rewards = list(battle.ledger_entries.order_by("id"))
    with pytest.raises(NotAllowed) as refused:
        services.void_battle(battle=battle, by=bob, reason="Wrong result")
    assert problems(refused) == [("", "not-organiser")]
    with pytest.raises(Invalid, match="reason") as refused:
        services.void_battle(battle=battle, by=organiser, reason="")
    assert problems(refused) == [("/reason", "required")]
    assert LedgerEntry.objects.count() == entries
    services.void_battle(battle=battle, by=organiser, reason="Wrong result")
    assert LedgerEntry.objects.count() == entries + 2  # nothing deleted, two reversals added
    for reward in rewards:
        reward.refresh_from_db()  # still there, unchanged
        reversal = reward.reversed_by
        assert (reversal.kind, reversal.amount, reversal.battle) == (
            "reversal",
            -reward.amount,
            battle,
        )
    assert (balance(red), balance(blue)) == (45, 45)
    assert set(xps(red).values()) == set(xps(blue).values()) == {0}
    battle.refresh_from_db()
    assert (battle.status, battle.voided_by, battle.void_reason) == (
        "void",
        organiser,
        "Wrong result",
    )
    assert all(row.played == 0 for row in selectors.standings(campaign=campaign))
    assert_resources_in_step(red)
    with pytest.raises(Conflict, match="already void") as refused:
        services.void_battle(battle=battle, by=organiser, reason="Again")
    assert problems(refused) == [("", "battle-not-pending")]


def test_voiding_is_refused_when_the_reward_was_spent(campaign, organiser, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    battle = Battle.objects.get()
    services.spend(campaign_force=red, amount=50, reason="Mercenaries", by=alice)
    entries = ledger(red)
    with pytest.raises(Invalid, match="Red Club has 5 Resources") as refused:
        services.void_battle(battle=battle, by=organiser, reason="Oops")
    assert problems(refused) == [("", "void-overdraws")]
    battle.refresh_from_db()
    assert battle.status == Battle.Status.CONFIRMED
    assert ledger(red) == entries
    assert balance(red) == 5
    assert set(xps(red).values()) == {2}


def test_a_pending_battle_can_be_withdrawn_or_disputed(campaign, organiser, alice, bob, red, blue):
    battle = record(campaign, alice, red, blue)
    carol = make_user("carol")
    services.join_campaign(user=carol, token=campaign.invite_token)
    with pytest.raises(NotAllowed) as refused:
        services.void_battle(battle=battle, by=carol)
    assert problems(refused) == [("", "not-in-battle")]
    services.void_battle(battle=battle, by=bob, reason="That is not what happened")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.VOID
    assert LedgerEntry.objects.filter(battle=battle).count() == 0
    with pytest.raises(Conflict, match="already void") as refused:
        services.confirm_battle(battle=battle, by=bob)
    assert problems(refused) == [("", "battle-not-pending")]
    # The forces are free again: a new battle can be recorded, edits are allowed.
    buy_equipment(red, "Ann", "hand-weapon")
    again = record(campaign, alice, red, blue)
    services.void_battle(battle=again, by=alice)  # the recorder withdraws it


def test_voiding_takes_back_the_level_up_the_battle_paid_for(
    campaign, organiser, alice, bob, red, blue
):
    """R15a changed this: a void used to leave the taken level-up behind, the force
    illegal (`too-many-level-ups`) until the owner removed it. Now the void removes it,
    with its effects, and the log says so; the force stays legal."""
    battle = win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    battle.refresh_from_db()
    assert member(red, "Ann").xp == 3
    services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=1, choice="ME"
    )
    assert [(x.member.name, x.index) for x in services.void_plan(battle=battle)] == [("Ann", 0)]
    services.void_battle(battle=battle, by=organiser, reason="Played the wrong scenario")
    ann = member(red, "Ann")
    assert (ann.xp, ann.level_ups) == (0, [])
    force = Force.objects.get(pk=red.force_id)
    assert force.is_legal
    assert force.evaluation["errors"] == []
    event = campaign.events.filter(kind=CampaignEvent.Kind.BATTLE_VOIDED).get()
    assert event.data["level_ups_lost"] == ["Ann's level-up 1"]
    assert event.message.endswith("Level-ups taken back: Ann's level-up 1.")
    assert_resources_in_step(red)


# --- Resources ------------------------------------------------------------------------------


def test_spend_refuses_an_overdraft(red, alice, bob):
    with pytest.raises(NotAllowed) as refused:
        services.spend(campaign_force=red, amount=5, reason="Bribe", by=bob)
    assert problems(refused) == [("", "not-owner")]
    services.spend(campaign_force=red, amount=40, reason="Bribe", by=alice)
    with pytest.raises(Invalid, match="has 5 Resources; this needs 6") as refused:
        services.spend(campaign_force=red, amount=6, reason="Another", by=alice)
    assert problems(refused) == [("/amount", "insufficient-resources")]
    with pytest.raises(Invalid, match="1 or more") as refused:
        services.spend(campaign_force=red, amount=0, reason="Nothing", by=alice)
    assert problems(refused) == [("/amount", "not-a-whole-number")]
    services.spend(campaign_force=red, amount=5, reason="Last", by=alice)
    assert balance(red) == 0
    assert_resources_in_step(red)
    assert list(red.ledger_entries.values_list("amount", flat=True)) == [50, -5, -40, -5]


def test_adjustments_are_the_organisers_with_a_reason(campaign, organiser, alice, red):
    with pytest.raises(NotAllowed) as refused:
        services.adjust_resources(campaign_force=red, amount=5, reason="Gift", by=alice)
    assert problems(refused) == [("", "not-organiser")]
    with pytest.raises(Invalid, match="reason") as refused:
        services.adjust_resources(campaign_force=red, amount=5, reason=" ", by=organiser)
    assert problems(refused) == [("/reason", "required")]
    with pytest.raises(Invalid, match="below 0") as refused:
        services.adjust_resources(campaign_force=red, amount=-46, reason="Fine", by=organiser)
    assert problems(refused) == [("/amount", "insufficient-resources")]
    services.adjust_resources(campaign_force=red, amount=-45, reason="Fine", by=organiser)
    services.adjust_resources(campaign_force=red, amount=7, reason="Prize", by=organiser)
    assert balance(red) == 7
    assert_resources_in_step(red)
    assert kinds(campaign).count(CampaignEvent.Kind.RESOURCES_ADJUSTED) == 2


def test_ledger_with_running_balance(campaign, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    services.spend(campaign_force=red, amount=20, reason="Armour", by=alice)
    rows = [
        (e.kind, e.amount, e.running_balance)
        for e in selectors.ledger_with_running_balance(campaign_force=red)
    ]
    assert rows == [
        ("start", 50, 50),
        ("purchase", -5, 45),
        ("battle", 10, 55),
        ("purchase", -20, 35),
    ]


# --- changes between battles (R17, R18) ----------------------------------------------------


def test_a_purchase_between_battles_spends_the_cost_increase(campaign, red):
    """A member who has not fought yet (still being recruited) pays what their cost
    rises by, in one ledger entry."""
    buy_equipment(red, "Ann", "tool-kit")
    assert ledger(red) == [
        ("start", 50, "Starting Resources (R11)"),
        ("purchase", -5, "Initial roster"),
        ("purchase", -10, "Ann: bought tool-kit"),
    ]
    assert balance(red) == 35
    assert_resources_in_step(red)
    assert Force.objects.get(pk=red.force_id).is_legal
    event = campaign.events.filter(kind=CampaignEvent.Kind.FORCE_CHANGED).get()
    assert event.message == "alice changed Red Club: bought tool-kit (10 Resources)."
    assert (event.data["cost_before"], event.data["cost_after"], event.data["spent"]) == (
        5,
        15,
        10,
    )


def test_an_unaffordable_change_is_refused_and_rolled_back(red, alice):
    services.spend(campaign_force=red, amount=40, reason="Spent", by=alice)
    entries, before = ledger(red), version(red)
    with pytest.raises(Invalid, match="has 5 Resources; this costs 10") as refused:
        buy_equipment(red, "Ann", "tool-kit")
    assert problems(refused) == [("/resources", "insufficient-resources")]
    assert member(red, "Ann").equipment == []  # the roster change was undone too
    assert ledger(red) == entries  # a refused purchase costs 0
    assert version(red) == before
    assert_resources_in_step(red)


def test_discarding_gives_no_refund(red):
    buy_equipment(red, "Ann", "tool-kit")
    entries = ledger(red)
    change_member(red, "Ann", lambda data: {**data, "equipment": []}, description="discarded")
    assert ledger(red) == entries  # R18: no refund, and no entry
    assert balance(red) == 35
    assert stored_resources(red) == 40  # cost 5 + balance 35: the engine cannot re-buy free
    assert_resources_in_step(red)


def test_changes_wait_while_a_battle_is_pending(campaign, alice, bob, red, blue):
    battle = record(campaign, alice, red, blue)
    before = version(red)
    with pytest.raises(Conflict, match="waiting for confirmation") as refused:
        buy_equipment(red, "Ann", "hand-weapon")
    assert problems(refused) == [("", "battle-pending")]
    assert version(red) == before
    services.confirm_battle(battle=battle, by=bob)
    buy_equipment(red, "Ann", "hand-weapon")
    assert member(red, "Ann").equipment == ["hand-weapon"]


def test_only_the_owner_changes_a_campaign_force(red, bob, organiser):
    ann = member(red, "Ann")
    for user in (bob, organiser):
        with pytest.raises(NotAllowed) as refused:
            roster_services.remove_member(force=red.force, actor=user, member_id=ann.pk)
        assert problems(refused) == [("", "not-owner")]
    assert member(red, "Ann")


def test_recruiting_and_retiring_keep_r10(red, alice):
    recruit = roster_services.add_member(force=red.force, actor=alice, data=student("Dan"))
    assert recruit.name == "Dan"
    roster_services.remove_member(force=red.force, actor=alice, member_id=recruit.pk)
    # Four students is the minimum (R10): retiring a fourth is refused.
    with pytest.raises(Invalid, match="4 to 6 students") as refused:
        roster_services.remove_member(
            force=red.force, actor=alice, member_id=member(red, "Cat").pk
        )
    assert problems(refused) == [("/members", "force-size")]
    assert member(red, "Cat")
    with pytest.raises(Invalid) as refused:
        roster_services.add_member(
            force=red.force,
            actor=alice,
            data=student("Vet", xp=12, level_ups=[{"line": 1, "choice": "ME"}]),
        )
    assert problems(refused) == [
        ("/members/4/xp", "recruit-fresh"),
        ("/members/4/level_ups", "recruit-fresh"),
    ]
    assert Member.objects.filter(force_id=red.force_id).count() == 4
    assert ledger(red) == [
        ("start", 50, "Starting Resources (R11)"),
        ("purchase", -5, "Initial roster"),
    ]  # Dan cost nothing; the refusals cost nothing


def test_history_cannot_be_rewritten(campaign, red, blue, alice, bob):
    """R17a: a member who fought keeps their creation choices and XP; an advancement
    bought now is marked `between_battles` and may repeat a creation line."""
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    before, entries = version(red), ledger(red)
    cheats = [
        ({"xp": 30}, [("/members/1/xp", "xp-from-battles")]),
        (
            {"free_advancements": [{"line": 3}, {"line": 2, "choice": "FR"}]},
            [("/members/1/free_advancements", "history-fixed")],
        ),
        (
            {"purchases": [{"line": 1, "choice": "ME"}]},
            [("/members/1/purchases/0", "not-between-battles")],
        ),
    ]
    for changes, expected in cheats:
        with pytest.raises(Invalid) as refused:
            change_member(red, "Ann", lambda data, changes=changes: {**data, **changes})
        assert problems(refused) == expected, changes
    assert version(red) == before
    assert ledger(red) == entries
    # The same statistic bought between battles is fine, at its price (R6, R17a).
    change_member(
        red,
        "Ann",
        lambda data: {
            **data,
            "purchases": [{"line": 1, "choice": "ME", "between_battles": True}],
        },
    )
    assert ledger(red)[len(entries) :] == [("purchase", -2, "Ann: bought +1 ME")]  # 2 x ME 1
    assert_resources_in_step(red)


def test_a_recruit_is_built_step_by_step_until_they_fight(campaign, red, blue, alice, bob):
    """R18: a new member joins between battles with only base, club and society, then
    takes free advancements in later steps, as in the builder; fighting fixes them."""
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    roster_services.add_member(
        force=red.force,
        actor=alice,
        data={k: v for k, v in student("Dee").items() if k in ("name", "club", "base")},
    )
    built = [{"line": 3}, {"line": 2, "choice": "HP"}]
    change_member(red, "Dee", lambda data: {**data, "free_advancements": built})
    assert member(red, "Dee").free_advancements == built
    assert_resources_in_step(red)


def test_a_retired_force_is_done(campaign, organiser, alice, bob, red, blue):
    with pytest.raises(NotAllowed) as refused:
        services.retire_campaign_force(campaign_force=red, by=bob)
    assert problems(refused) == [("", "not-owner")]
    services.retire_campaign_force(campaign_force=red, by=organiser)
    with pytest.raises(Conflict, match="retired") as refused:
        buy_equipment(red, "Ann", "hand-weapon")
    assert problems(refused) == [("", "force-retired")]
    with pytest.raises(Conflict, match="retired") as refused:
        record(campaign, bob, red, blue)
    assert problems(refused) == [("", "force-retired")]
    retired = {row.name: row.retired for row in selectors.standings(campaign=campaign)}
    assert retired == {"Red Club": True, "Blue Club": False}


# --- level-ups (R16, R17) -------------------------------------------------------------------


def win_with(campaign, alice, bob, red, blue, **ann):
    """Red wins; Ann's results are `ann`; as many Blue members are Out of Action as Ann
    is credited with (R14b)."""
    out = {
        name: {"out_of_action": True}
        for name in ["Emma", "Ann", "Ben", "Cat"][: ann.get("enemies_out_of_action", 0)]
    }
    battle = record(
        campaign,
        alice,
        red,
        blue,
        red_results=everyone(red, Ann=ann),
        blue_results=everyone(blue, **out),
    )
    services.confirm_battle(battle=battle, by=bob)
    return battle


def test_level_ups_waiting_and_taking_one(campaign, alice, bob, red, blue):
    assert selectors.level_ups_waiting(campaign=campaign) == []
    with pytest.raises(Invalid, match="no level-up waiting") as refused:
        services.take_level_up(campaign_force=red, by=alice, member=member(red, "Ann"), line=1)
    assert problems(refused) == [("/line", "no-level-up-waiting")]
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)  # Ann: 3 XP
    waiting = selectors.level_ups_waiting(campaign=campaign)
    assert [(w.member.name, w.level, w.taken, w.waiting) for w in waiting] == [("Ann", 2, 0, 1)]
    assert waiting[0].campaign_force == red
    with pytest.raises(NotAllowed) as refused:
        services.take_level_up(campaign_force=red, by=bob, member=member(red, "Ann"), line=1)
    assert problems(refused) == [("", "not-owner")]
    ann = services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=1, choice="ME"
    )
    assert ann.level_ups == [{"line": 1, "choice": "ME"}]
    assert selectors.level_ups_waiting(campaign=campaign) == []
    assert campaign.events.filter(kind=CampaignEvent.Kind.LEVEL_UP).count() == 1
    assert_resources_in_step(red)


def test_a_level_up_is_free_even_when_it_reprices_equipment(campaign, alice, bob, red, blue):
    buy_equipment(red, "Ann", "hand-weapon")  # priced by ME (R7)
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    before = balance(red)
    cost_before = Force.objects.get(pk=red.force_id).evaluation["total_cost"]
    services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=1, choice="ME"
    )
    force = Force.objects.get(pk=red.force_id)
    assert force.evaluation["total_cost"] > cost_before
    assert balance(red) == before  # R17: a free advancement
    assert_resources_in_step(red)


def test_an_illegal_level_up_is_refused(campaign, alice, bob, red, blue):
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    with pytest.raises(Invalid) as refused:
        services.take_level_up(
            campaign_force=red, by=alice, member=member(red, "Ann"), line=1, choice="HP"
        )
    assert problems(refused) == [("/choice", "invalid-choice")]
    assert member(red, "Ann").level_ups == []


def test_a_level_up_skill_is_rolled_on_the_server(campaign, alice, bob, red, blue):
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    ann = services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=4, rng=ScriptedDice(2)
    )
    roll = SkillRoll.objects.get(member=ann)
    assert (roll.slot, roll.rolled_by, roll.dice, roll.outcome) == (
        "level_ups/0",
        alice,
        [2],
        "skill",
    )
    assert ann.level_ups[0]["method"] == "rolled"
    assert ann.level_ups[0]["skill"] == roll.skill
    force = Force.objects.get(pk=red.force_id)
    assert force.is_legal
    assert force.evaluation["members"][1]["unverified_rolls"] == 0


def test_a_level_up_skill_may_be_picked_for_2_fr(campaign, alice, bob, red, blue):
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    ann = services.take_level_up(
        campaign_force=red,
        by=alice,
        member=member(red, "Ann"),
        line=4,
        method="picked",
        skill="movement/catfall",
    )
    assert ann.level_ups == [{"line": 4, "skill": "movement/catfall", "method": "picked"}]
    assert not SkillRoll.objects.filter(member=ann).exists()
    force = Force.objects.get(pk=red.force_id)
    assert force.is_legal
    assert force.evaluation["members"][1]["stats"]["FR"] == 5 - 2  # R5


def test_an_open_level_up_roll_is_finished_later(campaign, alice, bob, red, blue):
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    ann = services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=4, rng=ScriptedDice(12)
    )
    assert "skill" not in ann.level_ups[0]  # a natural 12: roll again on any table
    ann = services.continue_level_up_roll(
        campaign_force=red,
        by=alice,
        member=ann,
        slot="level_ups/0",
        action="roll",
        table="melee",
        rng=ScriptedDice(1),
    )
    assert ann.level_ups[0]["natural_12"] is True
    assert ann.level_ups[0]["skill"].startswith("melee/")
    assert SkillRoll.objects.filter(member=ann).count() == 2
    assert Force.objects.get(pk=red.force_id).is_legal


def test_new_thresholds_cannot_strand_taken_level_ups(campaign, organiser, alice, bob, red, blue):
    win_with(campaign, alice, bob, red, blue, enemies_out_of_action=1)
    services.take_level_up(
        campaign_force=red, by=alice, member=member(red, "Ann"), line=1, choice="ME"
    )
    with pytest.raises(Invalid, match="Ann") as refused:
        services.update_house_rules(campaign=campaign, by=organiser, level_thresholds=[0, 4, 8])
    assert problems(refused) == [("/level_thresholds", "invalid-house-rules")]
    services.update_house_rules(campaign=campaign, by=organiser, level_thresholds=[0, 2, 8])
    assert [w.member.name for w in selectors.level_ups_waiting(campaign=campaign)] == [
        "Emma",
        "Ben",
        "Cat",
    ]


# --- the log ----------------------------------------------------------------------------------


def test_every_change_is_in_the_campaign_log(campaign, organiser, alice, bob, red, blue):
    battle = record(campaign, alice, red, blue)
    services.confirm_battle(battle=battle, by=bob)
    services.spend(campaign_force=red, amount=1, reason="Snacks", by=alice)
    services.adjust_resources(campaign_force=blue, amount=1, reason="Fair play", by=organiser)
    services.void_battle(battle=battle, by=organiser, reason="Rematch")
    log = list(selectors.campaign_log(campaign=campaign))
    assert [e.kind for e in reversed(log)] == [
        "campaign-created",
        "player-joined",
        "player-joined",
        "force-entered",
        "force-entered",
        "battle-recorded",
        "battle-confirmed",
        "resources-spent",
        "resources-adjusted",
        "battle-voided",
    ]
    assert log[0].actor == organiser
    assert log[0].message == "olga voided Capture the Flag (2025-03-01): Rematch."
    assert "alice recorded Capture the Flag on 2025-03-01: Red Club vs Blue Club" in (
        log[4].message
    )


def test_ledger_sums_match_the_balances(campaign, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    total = LedgerEntry.objects.filter(campaign=campaign).aggregate(t=Sum("amount"))["t"]
    assert total == balance(red) + balance(blue)


def test_house_rules_are_a_value(campaign):
    rules = campaign.house_rules
    assert dataclasses.asdict(rules)["starting_resources"] == 50
