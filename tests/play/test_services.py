"""Battles through play.services: start, every action, undo, end into the campaign (P1-P6,
R14, R14a), and who may do what."""

import pytest
from django.contrib.auth.models import AnonymousUser

from campaign import services as campaign_services
from campaign.models import Battle as CampaignBattle
from campaign.models import BattleMemberResult
from dbd_site.errors import Conflict, Invalid, NotAllowed, NotFound, PreconditionFailed
from play import selectors, services, sharing, table
from play.models import Battle, BattleAction, BattleFigure
from play.table.attacks import AttackDeclaration
from play.table.state import Change
from roster import services as roster_services
from tests.conftest import make_user
from tests.play import acting
from tests.play.conftest import Dice, ids, play_force, two_players

pytestmark = pytest.mark.django_db


def codes(error):
    return [(p.pointer, p.code) for p in error.value.problems]


def shoot(battle, by, attacker, target, *faces, **situation):
    return acting.attack(
        battle=battle,
        by=by,
        declaration=AttackDeclaration(
            attacker=attacker,
            target=target,
            kind="ranged",
            weapon="light-pistol",
            situation=table.attacks.Situation(**situation),
        ),
        rng=Dice(*faces),
    )


# --- starting -------------------------------------------------------------------------------


def test_a_campaign_battle_copies_each_figure_as_it_stands(campaign_battle, red, blue):
    battle = campaign_battle
    assert [s.force_name for s in battle.sides.all()] == ["Red Club", "Blue Club"]
    assert [s.campaign_force for s in battle.sides.all()] == [red, blue]
    ann = battle.sides.get(position=0).figures.get(name="Ann")
    assert ann.numbers == {
        "stats": {"ME": 1, "RA": 4, "CA": 1, "DF": 10, "HP": 11, "FR": 5},
        "defence": {"melee": 10, "ranged": 10},
        "skills": [],
        "equipment": ["light-pistol"],
        "spells": [],
        "spell_focus": False,
        "mastery": None,
        "role": "student",
    }
    state = battle.state["figures"][str(ann.pk)]
    assert state == {
        "side": 0,
        "hp": 11,
        "max_hp": 11,
        "status": "active",
        "activated": False,
        "markers": {},
        "discarded": [],
        "forgotten": [],
        "activations": 0,
        "lapses": {},
        "determined": False,
        "spent": [],
        "gamble": None,
    }
    assert (battle.state["turn"], battle.state["initiative"], battle.version) == (1, None, 1)
    assert (battle.state["activating"], battle.state["decisions"]) == (None, [])
    assert [a.words for a in battle.actions.all()] == [
        "alice started Rooftop Duel: Red Club against Blue Club."
    ]


def test_starting_refuses_what_cannot_be(campaign, alice, bob, red, blue, eve):
    with pytest.raises(Invalid) as error:
        services.start_battle(by=alice, forces=[red.force, red.force], scenario="X")
    assert codes(error) == [("/forces", "invalid-sides")]
    with pytest.raises(Invalid) as error:
        services.start_battle(by=alice, forces=[red.force, blue.force], scenario="  ")
    assert codes(error) == [("/scenario", "invalid")]
    stray = play_force(alice, "Not Entered")
    with pytest.raises(Invalid) as error:
        services.start_battle(
            by=alice, forces=[stray, blue.force], scenario="X", campaign=campaign
        )
    assert codes(error) == [("/forces/0", "force-not-in-campaign")]
    with pytest.raises(NotAllowed):
        services.start_battle(by=eve, forces=[red.force, blue.force], scenario="X")
    assert Battle.objects.count() == 0


# --- attacks, damage, Unconscious and Out of Action --------------------------------------------


def test_hits_take_a_figure_unconscious_then_out_of_action(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    # Ann (RA 4, Light Pistol) stands still and shoots Blue's Ben (DF 10): needs 5.
    first = shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")
    assert first.words == (
        "Ann attacks Ben (ranged, Light Pistol; needs 5+): rolled 12. Hit, Success Rating 7: "
        '7 damage, the target Dodges for Cover 2". Blue Club may transfer some of the 7 '
        "damage (Friendship)."
    )
    assert first.dice == [12]
    assert first.entered is False
    ben = battle.state["figures"][str(f["1:Ben"])]
    assert (ben["hp"], ben["status"]) == (4, "active")
    acting.no_transfer(battle, bob)  # P9: the defender's decision comes first
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 9, movement="none")  # SR 4: HP 0
    assert battle.state["figures"][str(f["1:Ben"])]["status"] == "unconscious"
    acting.no_transfer(battle, bob)
    zero = shoot(battle, alice, f["0:Ann"], f["1:Ben"], 5, movement="none")  # SR 0
    assert battle.state["figures"][str(f["1:Ben"])]["status"] == "unconscious"
    assert zero.events == []
    out = shoot(battle, alice, f["0:Ann"], f["1:Ben"], 6, movement="none")  # SR 1
    assert out.words.endswith("Ben is Out of Action.")
    assert battle.state["figures"][str(f["1:Ben"])]["status"] == "out-of-action"
    assert battle.version == 7
    record = services.record_from_log(battle)
    assert record[str(f["0:Ann"])] == table.record.MemberRecord(str(f["0:Ann"]), False, False, 1)
    assert record[str(f["1:Ben"])] == table.record.MemberRecord(str(f["1:Ben"]), True, True, 0)


def test_a_weapon_with_rate_of_fire_rolls_a_die_each(campaign_battle, bob):
    battle = campaign_battle
    f = ids(battle)
    action = acting.attack(
        battle=battle,
        by=bob,
        declaration=AttackDeclaration(f["1:Cat"], f["0:Ann"], "ranged", "submachine-gun"),
        rng=Dice(11, 3),
    )
    # RA 4, SMG -1 against DF 10: needs 7. 11 -> SR 4; 3 misses.
    assert action.dice == [11, 3]
    assert [r["damage"] for r in action.detail["results"]] == [4, 0]
    assert battle.state["figures"][str(f["0:Ann"])]["hp"] == 7


def test_entered_dice_are_marked_and_may_be_forbidden(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    declaration = AttackDeclaration(f["0:Ann"], f["1:Ben"], "ranged", "light-pistol")
    action = acting.attack(battle=battle, by=alice, declaration=declaration, dice=[10])
    assert (action.entered, action.dice) == (True, [10])
    assert action.words.endswith("(dice entered as rolled)")
    with pytest.raises(Invalid) as error:
        acting.attack(battle=battle, by=alice, declaration=declaration, dice=[13])
    assert codes(error) == [("/dice/0", "invalid-roll")]
    Battle.objects.filter(pk=battle.pk).update(entered_rolls_allowed=False)
    with pytest.raises(Invalid) as error:
        acting.attack(battle=battle, by=alice, declaration=declaration, dice=[10])
    assert codes(error) == [("/dice", "entered-rolls-forbidden")]
    assert BattleAction.objects.filter(battle=battle).count() == 2  # start + one attack


def test_attacks_refused_change_nothing(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    with pytest.raises(Invalid) as error:
        shoot(battle, alice, f["0:Ann"], f["0:Ben"], 12)
    assert codes(error) == [("/target", "same-side")]
    with pytest.raises(Invalid) as error:
        acting.attack(
            battle=battle,
            by=alice,
            declaration=AttackDeclaration(f["0:Ben"], f["1:Ben"], "ranged", "light-pistol"),
        )
    assert codes(error) == [("/weapon", "weapon-not-carried")]
    battle.refresh_from_db()
    assert battle.version == 1


def test_friendship_transfer_after_the_hit(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")  # 7 damage: Ben 4
    action = acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Cat"]: 5})
    assert action.words == "Friendship: Ben transfers 5 to Cat."
    figures = battle.state["figures"]
    assert figures[str(f["1:Ben"])]["hp"] == 9
    assert figures[str(f["1:Cat"])]["hp"] == 6
    with pytest.raises(Invalid) as error:
        acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Cat"]: 1})
    assert codes(error) == [("/transfers", "nothing-to-transfer")]
    services.undo(battle=battle, by=bob)
    with pytest.raises(Invalid) as error:
        acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Cat"]: 6})
    assert codes(error) == [("/transfers/0", "invalid-transfer")]


def test_a_transfer_that_keeps_a_figure_conscious_keeps_it_off_the_record(
    campaign_battle, alice, bob
):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")  # Ben 4
    acting.no_transfer(battle, bob)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 9, movement="none")  # 4 damage: Unconscious
    assert battle.state["figures"][str(f["1:Ben"])]["status"] == "unconscious"
    acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Emma"]: 3})
    assert battle.state["figures"][str(f["1:Ben"])]["hp"] == 3
    assert battle.state["figures"][str(f["1:Ben"])]["status"] == "active"
    assert services.record_from_log(battle)[str(f["1:Ben"])].unconscious is False


# --- spells, heal, revive, jump, plain rolls, changes -------------------------------------------


def test_emma_casts_healing_spring_rolling_1_2_7_8(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    acting.attack(
        battle=battle,
        by=bob,
        declaration=AttackDeclaration(f["1:Ann"], f["0:Ben"], "ranged", "light-pistol"),
        rng=Dice(12),
    )  # 6 damage: Ben 5
    acting.no_transfer(battle, alice)
    action = acting.cast_spell(
        battle=battle,
        by=alice,
        caster=f["0:Emma"],
        spell="healing-spring",
        target=f["0:Ben"],
        dice=[1, 2, 7, 8],
    )
    assert action.detail["successes"] == 2
    assert action.words == (
        "Emma casts Healing Spring (Difficulty 7, 4 dice) on Ben. Rolled 1, 2, 7, 8: "
        "2 successes. The target recovers 2 HP. Ben recovers 2 HP. (dice entered as rolled)"
    )
    assert battle.state["figures"][str(f["0:Ben"])]["hp"] == 7
    with pytest.raises(Invalid) as error:
        acting.cast_spell(
            battle=battle, by=alice, caster=f["0:Emma"], spell="seraphic-bolt", dice=[1] * 4
        )
    assert codes(error) == [("/spell", "spell-not-known")]


def test_heal_revive_and_jump(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, bob, f["1:Ann"], f["0:Ann"], 12)  # RA4 vs DF10: SR 6, Ann 5
    acting.no_transfer(battle, alice)
    healed = acting.heal(
        battle=battle, by=alice, healer=f["0:Emma"], target=f["0:Ann"], rng=Dice(9)
    )
    # 9 beats HP 5 by 4; Emma's FR is 3.
    assert healed.detail["amount"] == 3
    assert battle.state["figures"][str(f["0:Ann"])]["hp"] == 8
    with pytest.raises(Invalid) as error:
        acting.heal(battle=battle, by=alice, healer=f["0:Ann"], target=f["0:Ann"])
    assert codes(error) == [("/figure", "needs-equipment")]
    shoot(battle, bob, f["1:Ann"], f["0:Ann"], 12)  # 6 damage: Ann 2
    acting.no_transfer(battle, alice)
    shoot(battle, bob, f["1:Ann"], f["0:Ann"], 12)  # Unconscious
    acting.no_transfer(battle, alice)
    with pytest.raises(Invalid) as error:
        acting.revive(battle=battle, by=alice, reviver=f["0:Emma"], target=f["0:Ben"])
    assert codes(error) == [("/target", "figure-not-unconscious")]
    failed = acting.revive(
        battle=battle, by=alice, reviver=f["0:Emma"], target=f["0:Ann"], rng=Dice(6)
    )
    assert failed.detail["revived"] is False  # 6 is above Ann's FR 5
    acting.revive(battle=battle, by=alice, reviver=f["0:Emma"], target=f["0:Ann"], rng=Dice(5))
    ann = battle.state["figures"][str(f["0:Ann"])]
    assert (ann["hp"], ann["status"]) == (1, "active")
    jumped = acting.jump(battle=battle, by=alice, figure=f["0:Ben"], distance=4, rng=Dice(2))
    assert jumped.detail == {
        "figure": str(f["0:Ben"]),
        "distance": 4,
        "needed": 5,
        "damage": 3,
        "side": 0,
    }
    assert battle.state["figures"][str(f["0:Ben"])]["hp"] == 8


def test_plain_rolls_changes_activation_and_turns(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    assert (
        acting.roll_d12(battle=battle, by=alice, count=2, reason="objective", rng=Dice(4, 9)).words
        == "Rolled 4, 9 for objective."
    )
    acting.change_figure(
        battle=battle,
        by=bob,
        change=Change(figure=f["1:Cat"], markers={"clock-down": 2}, discard=None),
    )
    assert battle.state["figures"][str(f["1:Cat"])]["markers"] == {"clock-down": 2}
    with pytest.raises(Invalid) as error:
        acting.change_figure(
            battle=battle, by=bob, change=Change(figure=f["1:Cat"], markers={"moon": 1})
        )
    assert codes(error) == [("/markers/moon", "unknown-marker")]
    acting.roll_initiative(battle=battle, by=alice, rng=Dice(8, 3))
    assert battle.state["initiative"] == {"rolls": [[8, 3]], "bonuses": [0, 0], "winner": 0}
    view = selectors.battle_view(battle=battle)
    assert view.acting_side == 0
    acting.end_activation(battle=battle, by=alice, figure=f["0:Ann"])
    assert selectors.battle_view(battle=battle).acting_side == 1
    acting.next_turn(battle=battle, by=alice)
    assert battle.state["turn"] == 2
    assert battle.state["initiative"] is None
    assert not any(fig["activated"] for fig in battle.state["figures"].values())


def test_initiative_bonus_for_fewer_active_figures(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    acting.change_figure(
        battle=battle, by=bob, change=Change(figure=f["1:Cat"], status="out-of-action")
    )
    action = acting.roll_initiative(battle=battle, by=alice, dice=[[7, 6], [2, 9]])
    # Blue has fewer active figures: 7 against 6 + 1 ties, then 2 against 9 + 1.
    assert action.words == (
        "Turn 1 initiative: rolled 7, 6; then 2, 9 (+1 for Blue Club); "
        "Blue Club activates first. (dice entered as rolled)"
    )


# --- undo -----------------------------------------------------------------------------------


def test_undo_goes_back_last_first(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    start = battle.state
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12)
    after_first = battle.state
    shoot(battle, alice, f["0:Ann"], f["1:Cat"], 12)
    with pytest.raises(NotAllowed) as error:  # P9: Alice's attack is hers to undo
        services.undo(battle=battle, by=bob)
    assert codes(error) == [("", "not-your-figure")]
    undone = services.undo(battle=battle, by=alice)
    assert undone.detail["target"] == str(f["1:Cat"])
    assert battle.state == after_first
    services.undo(battle=battle, by=alice)
    assert battle.state == start
    battle.refresh_from_db()
    assert (battle.state, battle.version) == (start, 5)
    with pytest.raises(Conflict) as error:
        services.undo(battle=battle, by=alice)
    assert codes(error) == [("", "nothing-to-undo")]
    assert [a.undone_at is not None for a in battle.actions.order_by("seq")] == [
        False,
        True,
        True,
    ]


def test_an_action_on_a_stale_version_is_refused(campaign_battle, alice):
    battle = campaign_battle
    with pytest.raises(PreconditionFailed):
        acting.roll_d12(battle=battle, by=alice, if_match=7)
    acting.roll_d12(battle=battle, by=alice, if_match=1, rng=Dice(3))
    assert battle.version == 2


# --- who may do what -------------------------------------------------------------------------


def test_only_the_sides_act_and_others_read_by_link(campaign_battle, organiser, eve, bob):
    battle = campaign_battle
    for outsider in (organiser, eve):
        with pytest.raises(NotAllowed) as error:
            acting.roll_d12(battle=battle, by=outsider)
        assert codes(error) == [("", "not-a-side")]
        with pytest.raises(NotAllowed):
            services.undo(battle=battle, by=outsider)
    assert selectors.may_act(battle=battle, user=bob) is True
    assert selectors.may_act(battle=battle, user=organiser) is False
    # The organiser sees the campaign's battle; a stranger does not, but reads by the link.
    assert selectors.get_battle(user=organiser, battle_id=battle.pk) == battle
    with pytest.raises(NotFound):
        selectors.get_battle(user=eve, battle_id=battle.pk)
    assert selectors.get_battle_by_token(token=battle.spectator_token) == battle
    with pytest.raises(NotFound):
        selectors.get_battle_by_token(token="nope")


def test_who_sees_which_battle(campaign, campaign_battle, one_off, organiser, alice, bob, eve):
    """The one rule of who sees a battle (`selectors._ways_to_see`): its sides' players,
    its starter, its campaign's organiser and players; read the same way by the lookup
    (`battles_for`), the list (`battle_list_for`, latest first), one battle and an idle
    poll's version check."""
    carol = make_user("carol")  # in the campaign, with no force in its battle
    campaign_services.join_campaign(user=carol, token=campaign.invite_token)
    seen = {
        user.username: {b.scenario for b in selectors.battles_for(user=user)}
        for user in (organiser, alice, bob, carol, eve)
    }
    assert seen == {
        "olga": {"Rooftop Duel"},
        "alice": {"Rooftop Duel", "Practice"},
        "bob": {"Rooftop Duel", "Practice"},
        "carol": {"Rooftop Duel"},
        "eve": set(),
    }
    assert list(selectors.battles_for(user=AnonymousUser())) == []
    assert list(selectors.battle_list_for(user=AnonymousUser())) == []
    for user in (organiser, alice, bob, carol, eve):
        listed = [b.scenario for b in selectors.battle_list_for(user=user)]
        assert listed == [
            b.scenario for b in (one_off, campaign_battle) if b.scenario in seen[user.username]
        ]
        for battle in (campaign_battle, one_off):
            if battle.scenario in seen[user.username]:
                assert selectors.get_battle(user=user, battle_id=battle.pk) == battle
                assert selectors.battle_version(user=user, battle_id=battle.pk) == battle.version
            else:
                with pytest.raises(NotFound):
                    selectors.get_battle(user=user, battle_id=battle.pk)
                with pytest.raises(NotFound):
                    selectors.battle_version(user=user, battle_id=battle.pk)


def test_one_off_against_a_shared_force(alice, bob, eve):
    mine = play_force(alice, "Mine")
    theirs = play_force(bob, "Theirs")
    roster_services.set_share_link(force=theirs, actor=None, enabled=True)
    theirs.refresh_from_db()
    found = selectors.shared_force_from_link(
        link=f"https://example.org/forces/shared/{theirs.share_token}/"
    )
    assert found == theirs
    battle = services.start_battle(by=alice, forces=[mine, found], scenario="Friendly")
    # Alice plays both sides until Bob accepts to take his force's over (play.sharing).
    assert [(s.player, s.invited) for s in battle.sides.all()] == [(alice, None), (alice, bob)]
    assert selectors.may_act(battle=battle, user=bob) is False
    assert list(selectors.battles_for(user=bob)) == []
    sharing.accept_invitation(battle_id=battle.pk, user=bob)
    assert [(s.player, s.invited) for s in battle.sides.all()] == [(alice, None), (bob, None)]
    assert selectors.may_act(battle=battle, user=bob) is True
    assert list(selectors.battles_for(user=bob)) == [battle]
    assert list(selectors.battles_for(user=eve)) == []


# --- the end and the record -------------------------------------------------------------------


def test_ending_fills_the_record_and_the_campaign_gets_a_pending_battle(
    campaign_battle, alice, bob, red, blue
):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")  # Ben 4
    acting.no_transfer(battle, bob)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")  # Unconscious
    acting.no_transfer(battle, bob)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"], 12, movement="none")  # Out of Action
    ended = services.end_battle(battle=battle, by=alice, winner=0, objectives={f["0:Emma"]: 2})
    assert ended.status == "ended"
    pending = ended.recorded_battle
    assert pending.status == CampaignBattle.Status.PENDING
    assert pending.scenario == "Rooftop Duel"
    assert pending.winner == red
    lines = {
        (r.battle_force.campaign_force_id, r.member_name): (
            r.unconscious,
            r.out_of_action,
            r.enemies_out_of_action,
            r.objectives,
        )
        for r in BattleMemberResult.objects.filter(battle_force__battle=pending)
    }
    assert lines == {
        (red.pk, "Emma"): (False, False, 0, 2),
        (red.pk, "Ann"): (False, False, 1, 0),
        (red.pk, "Ben"): (False, False, 0, 0),
        (red.pk, "Cat"): (False, False, 0, 0),
        (blue.pk, "Emma"): (False, False, 0, 0),
        (blue.pk, "Ann"): (False, False, 0, 0),
        (blue.pk, "Ben"): (True, True, 0, 0),
        (blue.pk, "Cat"): (False, False, 0, 0),
    }
    with pytest.raises(Conflict):
        acting.roll_d12(battle=battle, by=alice)
    confirmed = campaign_services.confirm_battle(battle=pending, by=bob)
    assert confirmed.status == CampaignBattle.Status.CONFIRMED


def test_ending_refuses_bad_objectives_and_changes_nothing(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    with pytest.raises(Invalid) as error:
        services.end_battle(
            battle=battle, by=alice, winner=0, objectives={f["0:Emma"]: 11, 999999: 1}
        )
    assert codes(error) == [
        (f"/objectives/{f['0:Emma']}", "invalid"),
        ("/objectives/999999", "not-found"),
    ]
    with pytest.raises(Invalid) as error:
        services.end_battle(battle=battle, by=alice, winner=2)
    assert codes(error) == [("/winner", "invalid")]
    battle.refresh_from_db()
    assert battle.status == "playing"
    assert CampaignBattle.objects.count() == 0


def test_a_one_off_ends_with_its_record_on_the_battle(one_off, alice):
    ended = services.end_battle(battle=one_off, by=alice, winner=None)
    assert ended.recorded_battle is None
    assert ended.record["winner"] is None
    assert [s["force"] for s in ended.record["sides"]] == ["Alice's Club", "Bob's Club"]
    assert [m["name"] for m in ended.record["sides"][0]["members"]] == [
        "Emma",
        "Ann",
        "Ben",
        "Cat",
    ]


def test_subdual_from_behind_rolls_the_targets_knock_out_die(alice, bob):
    mine = play_force(alice, "Mine")
    theirs = play_force(bob, "Theirs")
    battle = two_players(alice, [mine, theirs], "Alley", bob)
    f = ids(battle)
    # Ben carries a Subdual Weapon and knows The Basics of CQC in this battle's copy.
    ben = BattleFigure.objects.get(pk=f["0:Ben"])
    ben.numbers = {
        **ben.numbers,
        "equipment": ["subdual-weapon"],
        "skills": ["melee/the-basics-of-cqc"],
    }
    ben.save()
    declaration = AttackDeclaration(
        f["0:Ben"],
        f["1:Emma"],
        "melee",
        "subdual-weapon",
        situation=table.attacks.Situation(rear_arc=True),
    )
    # ME 1 against Emma's DF 8 - 2 (rear arc), no Subdual penalty with CQC: needs 5.
    # 5 hits (SR 0); the second die 12 is not under Emma's 12 HP: Unconscious.
    action = acting.attack(battle=battle, by=alice, declaration=declaration, dice=[5, 12])
    assert action.words == (
        "Ben attacks Emma (melee, Subdual Weapon; needs 5+): rolled 5. Hit, Success Rating 0: "
        '0 damage, the target is Pushed Back 1". Subdual: the target rolled 12, not under its '
        "12 HP. Emma is Unconscious. (dice entered as rolled)"
    )
    assert battle.state["figures"][str(f["1:Emma"])]["status"] == "unconscious"
    with pytest.raises(Invalid) as error:
        acting.attack(battle=battle, by=alice, declaration=declaration, dice=[5])
    assert codes(error) == [("/dice", "wrong-dice-count")]
    with pytest.raises(Invalid) as error:
        acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Ann"]: 1})
    assert codes(error) == [("/transfers", "nothing-to-transfer")]


def test_exploit_weakness_on_success_rating_zero(alice, bob):
    battle = services.start_battle(
        by=alice, forces=[play_force(alice, "Mine"), play_force(bob, "Theirs")], scenario="Gym"
    )
    f = ids(battle)
    ben = BattleFigure.objects.get(pk=f["0:Ben"])
    ben.numbers = {**ben.numbers, "skills": ["melee/exploit-weakness"]}
    ben.save()
    declaration = AttackDeclaration(f["0:Ben"], f["1:Emma"], "melee", "hand-weapon")
    # ME 1 against DF 8: needs 7; 7 is SR 0; the second die 1 is at or under ME 1.
    action = acting.attack(battle=battle, by=alice, declaration=declaration, dice=[7, 1])
    assert "Exploit Weakness: rolled 1, at or under ME: 1 damage." in action.words
    assert battle.state["figures"][str(f["1:Emma"])]["hp"] == 11
    acting.no_transfer(battle, alice)  # Alice plays Bob's side until he takes it over
    acting.attack(battle=battle, by=alice, declaration=declaration, dice=[7, 2])
    assert battle.state["figures"][str(f["1:Emma"])]["hp"] == 11  # 2 is over ME 1


def test_activation_lapses_the_markers_that_last_until_it(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    acting.change_figure(
        battle=battle,
        by=alice,
        change=Change(figure=f["0:Ann"], markers={"fortify": 1, "inspire": 2, "wall": 1}),
    )
    action = acting.end_activation(battle=battle, by=alice, figure=f["0:Ann"])
    assert action.words == "Ann has activated. Fortify, Inspire lapsed."
    assert battle.state["figures"][str(f["0:Ann"])]["markers"] == {"wall": 1}


def test_healing_spring_rolls_its_d3_at_three_successes_and_logs_it(campaign_battle, alice, bob):
    """1-2 successes: 2 HP; 3+: 1d3 + 2, the d3 the server's or entered after the CA dice
    (P5: every roll in the log)."""
    battle = campaign_battle
    f = ids(battle)
    emma_id, ben = f["0:Emma"], f["0:Ben"]
    shoot(battle, bob, f["1:Ann"], ben, 12)  # 6 damage: Ben 5 of 11
    acting.no_transfer(battle, alice)
    version = battle.version
    for dice, expected in [
        ([12, 12, 12, 1], [("/dice", "wrong-dice-count")]),  # 3 successes: the d3 is missing
        ([1, 2, 7, 8, 3], [("/dice", "wrong-dice-count")]),  # 2 successes roll no d3
        ([12, 12, 12, 1, 4], [("/dice/4", "invalid-roll")]),  # a d3 shows 1-3
    ]:
        with pytest.raises(Invalid) as error:
            acting.cast_spell(
                battle=battle, by=alice, caster=emma_id, spell="healing-spring", target=ben,
                dice=dice,
            )  # fmt: skip
        assert codes(error) == expected, dice
    battle.refresh_from_db()
    assert battle.version == version
    entered = acting.cast_spell(
        battle=battle, by=alice, caster=emma_id, spell="healing-spring", target=ben,
        dice=[12, 12, 12, 1, 3],
    )  # fmt: skip
    assert entered.dice == [12, 12, 12, 1, 3]
    assert entered.words.endswith("Ben recovers 5 HP (2 + 3 on the d3). (dice entered as rolled)")
    assert battle.state["figures"][str(ben)]["hp"] == 10
    shoot(battle, bob, f["1:Ann"], ben, 12)  # Ben 4
    acting.no_transfer(battle, alice)
    served = acting.cast_spell(
        battle=battle, by=alice, caster=emma_id, spell="healing-spring", target=ben,
        rng=Dice(7, 7, 7, 1, 1),
    )  # fmt: skip
    assert served.dice == [7, 7, 7, 1, 1]
    assert battle.state["figures"][str(ben)]["hp"] == 4 + 3
