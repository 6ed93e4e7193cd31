"""The rules the battle used to get wrong or leave out (issue #30), in the pure package:
P8 durations, Determination, Climbing Gear, re-rolls, Friendship after several dice and
after Subdual or Exploit Weakness, the skills that change a roll, the pending decisions and
the sides (P9). Each at both sides of its boundary; every action as the service runs it
(`table.decisions.run` on a copy of the state, the dice finished)."""

import copy

import pytest

from dbd_site.errors import Conflict, Invalid, NotAllowed, Problem
from play import table
from play.table.attacks import AttackDeclaration, Situation
from tests.play.tables import Battle, codes, figure, problems

# --- P8: "until it next activates" counts from the activation that placed it -------------


def test_fortify_on_oneself_lasts_through_the_other_side_to_the_next_activation(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", CA=3, spells=["fortify"])),
        e=(1, figure("Eli", RA=3, equipment=["light-pistol"])),
    )
    said = b.cast("a", "fortify", 8, 8, 1)  # Difficulty 8: two successes, one marker
    assert said.words.startswith("Ava casts Fortify")
    assert (b["a"]["markers"], b["a"]["lapses"], b["a"]["activations"]) == (
        {"fortify": 1},
        {"fortify": 2},
        1,
    )
    assert b.activated("a").words == "Ava has activated."
    assert b["a"]["markers"] == {"fortify": 1}  # the casting activation's end keeps it
    assert b.plan("e", "a", "ranged", "light-pistol").target_df == 10  # +2 DF
    b.new_turn()
    assert b["a"]["markers"] == {"fortify": 1}
    lapsed = b.cast("a", "fortify", 1, 1, 1)  # Ava's next activation begins: it goes
    assert lapsed.words.startswith("Fortify lapsed as Ava activates. Ava casts Fortify")
    assert (b["a"]["markers"], b["a"]["lapses"]) == ({}, {})
    assert b.plan("e", "a", "ranged", "light-pistol").target_df == 8


def test_inspire_on_a_friend_still_to_activate_lapses_as_its_activation_begins(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", CA=3, spells=["inspire"])),
        c=(0, figure("Cy")),
        e=(1, figure("Eli")),
    )
    b.cast("a", "inspire", 6, 1, 1, target="c")
    assert (b["c"]["markers"], b["c"]["lapses"]) == ({"inspire": 1}, {"inspire": 1})
    b.activated("a")
    assert b["c"]["markers"] == {"inspire": 1}  # the caster's end is not Cy's activation
    assert b.activated("c").words == "Cy has activated. Inspire lapsed."
    assert b["c"]["markers"] == {}


@pytest.mark.parametrize(
    ("spell", "faces"), [("clock-up", (9, 9, 1)), ("extreme-speed", (4, 1, 1))]
)
def test_next_activation_markers_last_to_its_end(catalogue, spell, faces):
    b = Battle(catalogue, a=(0, figure("Ava", CA=3, spells=[spell])), e=(1, figure("Eli")))
    b.cast("a", spell, *faces)
    assert b["a"]["markers"] == {spell: 1}
    b.activated("a")
    b.new_turn()
    b(table.state.roll, table.state.Roll(1))  # a plain roll is no figure's activation
    b.cast("a", spell, 1, 1, 1)  # the next activation: still there while it lasts
    assert b["a"]["markers"] == {spell: 1}
    b.activated("a")
    assert b["a"]["markers"] == {}


def test_clock_down_takes_the_actions_of_the_next_activation(catalogue):
    b = Battle(catalogue, a=(0, figure("Ava", equipment=["light-pistol"])), e=(1, figure("Eli")))
    b["a"]["markers"] = {"clock-down": 3}
    said = b.attack("a", "e", "ranged", "light-pistol", 1)
    assert said.words.startswith("Ava spends 2 actions removing Clock Down (1 left).")
    assert b["a"]["markers"] == {"clock-down": 1}
    b.activated("a")
    b.new_turn()
    b["a"]["markers"] = {"clock-down": 3, "clock-up": 1}  # three actions with Clock Up
    b["a"]["lapses"] = {"clock-up": b["a"]["activations"] + 1}
    b.attack("a", "e", "ranged", "light-pistol", 1)
    assert b["a"]["markers"] == {"clock-up": 1}


# --- P8: Determination ----------------------------------------------------------------------


def test_acting_through_determination_ends_out_of_action(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", skills=[table.figures.DETERMINATION], equipment=["light-pistol"])),
        e=(1, figure("Eli")),
    )
    b["a"].update(hp=0, status="unconscious")
    acted = b.attack("a", "e", "ranged", "light-pistol", 1)
    assert "Ava acts through Determination: Out of Action after it." in acted.words
    assert b["a"]["status"] == "unconscious"
    ended = b.activated("a")
    assert ended.words == "Ava has activated. Ava is Out of Action."
    assert ended.events == [{"figure": "a", "status": "out-of-action", "by": None}]


def test_an_unconscious_figure_that_only_ends_its_activation_stays_unconscious(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", skills=[table.figures.DETERMINATION])),
        x=(0, figure("Xen", skills=[table.figures.EXTREME_DETERMINATION])),
        e=(1, figure("Eli")),
    )
    for fid in "ax":
        b[fid].update(hp=0, status="unconscious")
    assert b.activated("a").events == []
    b(table.state.roll, table.state.Roll(1))
    b(table.movement.jump, table.movement.Jump("x", 0), faces=(5,))  # acts, every turn
    assert b.activated("x").events == []
    assert (b["a"]["status"], b["x"]["status"]) == ("unconscious", "unconscious")


def test_the_next_figure_to_act_completes_a_determined_activation(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", skills=[table.figures.DETERMINATION])),
        e=(1, figure("Eli", equipment=["light-pistol"])),
    )
    b["a"].update(hp=0, status="unconscious")
    b(table.movement.jump, table.movement.Jump("a", 0), faces=(5,))
    moved_on = b.attack("e", "a", "ranged", "light-pistol", 1)
    assert moved_on.events[0] == {"figure": "a", "status": "out-of-action", "by": None}
    assert b["a"]["status"] == "out-of-action"


# --- P8: Climbing Gear discarded gives nothing afterwards -------------------------------------


def test_climbing_gear_discarded_to_pass_gives_no_bonus_afterwards(catalogue):
    gear = figure("Gil", equipment=["climbing-gear"])
    assert table.movement.plan_jump(gear, 4).needed == 4  # roll + 1 must exceed 4
    assert table.movement.plan_jump(gear, 4, discarded=["climbing-gear"]).needed == 5
    b = Battle(catalogue, g=(0, gear), e=(1, figure("Eli")))
    passed = b(
        table.movement.jump,
        table.movement.Jump("g", 6, discard_climbing_gear=True),
        faces=(2,),
    )
    assert passed.words == 'Gil jumps 6" (needs 6+): rolled 2; discards the Climbing Gear to pass.'
    assert b["g"]["discarded"] == ["climbing-gear"]
    again = b(table.movement.jump, table.movement.Jump("g", 6), faces=(6,))
    assert again.detail["needed"] == 7
    assert b["g"]["hp"] == 9  # 6 is one short of 7
    with pytest.raises(Invalid) as error:
        b(table.movement.jump, table.movement.Jump("g", 6, discard_climbing_gear=True))
    assert codes(error) == [("/discard_climbing_gear", "unknown-item")]


def test_endless_pockets_keeps_an_item_on_nine_or_more(catalogue):
    pockets = figure(
        "Pip", skills=[table.figures.ENDLESS_POCKETS], equipment=["climbing-gear", "smoke-grenade"]
    )
    b = Battle(catalogue, p=(0, pockets), e=(1, figure("Eli")))
    kept = b(table.state.change, table.state.Change("p", discard="smoke-grenade"), faces=(9,))
    assert kept.words.startswith("Pip: uses smoke grenade. Endless Pockets: rolled 9, the Smoke")
    assert b["p"]["discarded"] == []
    gone = b(table.state.change, table.state.Change("p", discard="smoke-grenade"), faces=(8,))
    assert "Endless Pockets: rolled 8, the Smoke Grenade is gone." in gone.words
    assert b["p"]["discarded"] == ["smoke-grenade"]


def test_heavy_armour_may_not_dash_into_a_jump(catalogue):
    armoured = figure("Hal", equipment=["heavy-armour"])
    assert table.movement.plan_jump(armoured, 3, "ran").needed == 3 + 1 - (1 - 3)
    with pytest.raises(Invalid) as error:
        table.movement.plan_jump(armoured, 3, "dashed")
    assert codes(error) == [("/movement", "movement-refused")]


@pytest.mark.parametrize(("movement", "refused"), [("ran", []), ("dashed", ["movement-refused"])])
def test_heavy_armour_fires_on_the_move_running_not_dashing(catalogue, movement, refused):
    runner = figure(
        "Hal",
        RA=4,
        skills=[table.figures.FIRE_ON_THE_MOVE],
        equipment=["heavy-armour", "light-pistol"],
    )
    declared = Situation(movement=movement)
    try:
        table.attacks.plan_attack(
            runner,
            figure("Tom"),
            "ranged",
            "light-pistol",
            declared,
            equipment=catalogue.equipment,
        )
        problems = []
    except Invalid as error:
        problems = [p.code for p in error.problems]
    assert problems == refused


def test_athletics_rolls_a_failed_jump_again_with_the_servers_dice(catalogue):
    athlete = figure("Ath", skills=[table.figures.ATHLETICS])
    b = Battle(catalogue, a=(0, athlete), e=(1, figure("Eli")))
    done = b(table.movement.jump, table.movement.Jump("a", 5), faces=(2, 9))
    assert done.words.startswith('Ath jumps 5" (needs 6+): rolled 2, re-rolled 9')
    assert b["a"]["hp"] == 10
    b(table.movement.jump, table.movement.Jump("a", 5), faces=(6,))  # passed: no re-roll
    entered = b(table.movement.jump, table.movement.Jump("a", 5), entered=[2])
    assert entered.detail["damage"] == 4  # entered: the die that stands is entered


# --- P8: re-rolls roll the second die, both logged, the better stands, the marker goes -----


def invigorated(catalogue, markers):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", ME=3, equipment=["hand-weapon", "light-pistol"])),
        e=(1, figure("Eli", DF=9)),
    )
    b["a"]["markers"] = {"invigorate": markers}
    return b


def test_invigorate_rerolls_the_next_melee_attack_and_goes(catalogue):
    b = invigorated(catalogue, 1)
    assert b.plan("a", "e", "melee", "hand-weapon").best_of_two
    done = b.attack("a", "e", "melee", "hand-weapon", 3, 10)
    assert done.words.startswith(
        "Ava attacks Eli (melee, Hand Weapon; needs 6+): rolled 3, re-rolled 10 (Invigorate): "
        "10 stands. Hit, Success Rating 4"
    )
    assert "Invigorate spent." in done.words
    assert done.detail["results"][0]["rolls"] == [3, 10]
    assert b["a"]["markers"] == {}
    assert not b.plan("a", "e", "melee", "hand-weapon").best_of_two


def test_invigorates_second_marker_adds_one_to_hit(catalogue):
    assert invigorated(catalogue, 1).plan("a", "e", "melee", "hand-weapon").needed == 6
    assert invigorated(catalogue, 2).plan("a", "e", "melee", "hand-weapon").needed == 5


def test_invigorate_waits_for_a_melee_attack(catalogue):
    b = invigorated(catalogue, 1)
    b.attack("a", "e", "ranged", "light-pistol", 5)
    assert b["a"]["markers"] == {"invigorate": 1}


def test_entered_dice_take_two_where_a_reroll_applies(catalogue):
    b = invigorated(catalogue, 1)
    with pytest.raises(Invalid) as error:
        b.attack("a", "e", "melee", "hand-weapon", entered=[10])
    assert codes(error) == [("/dice", "wrong-dice-count")]
    done = b.attack("a", "e", "melee", "hand-weapon", entered=[10, 2])
    assert done.detail["results"][0] == {
        "roll": 10,
        "success_rating": 4,
        "damage": 4,
        "hit": True,
        "rolls": [10, 2],
    }


@pytest.mark.parametrize(
    ("markers", "dice", "modified_df"),
    [(1, 1, 10), (2, 2, 10), (3, 2, 8)],  # 3 markers: the Obscured +2 is ignored
)
def test_eagle_eye_by_its_markers(catalogue, markers, dice, modified_df):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", RA=4, equipment=["light-pistol"])),
        e=(1, figure("Eli", DF=8)),
    )
    b["a"]["markers"] = {"eagle-eye": markers}
    plan = b.plan("a", "e", "ranged", "light-pistol", obscured="significant")
    assert (plan.dice_per_attack, plan.modified_df) == (dice, modified_df)
    done = b.attack("a", "e", "ranged", "light-pistol", *[5] * dice, obscured="significant")
    assert len(done.detail["results"][0].get("rolls", [5])) == dice
    assert b["a"]["markers"] == {}


def test_eagle_eye_waits_for_a_spell_or_ranged_attack(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", ME=3, CA=2, equipment=["hand-weapon"], spells=["inspire"])),
        e=(1, figure("Eli")),
    )
    b["a"]["markers"] = {"eagle-eye": 2}
    b.attack("a", "e", "melee", "hand-weapon", 5)
    assert b["a"]["markers"] == {"eagle-eye": 2}
    cast = b.cast("a", "inspire", 1, 1)
    assert "Ava's Eagle Eye is spent" in cast.words
    assert b["a"]["markers"] == {}


# --- P3: Friendship after several dice, Subdual and Exploit Weakness (P9: it waits) ----------


def smg_battle(catalogue, hp=4):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", RA=4, equipment=["submachine-gun"])),
        t=(1, figure("Tom", DF=10, HP=10)),
        f=(1, figure("Fay", FR=5)),
    )
    b["t"]["hp"] = hp
    return b


@pytest.mark.parametrize(
    ("moved", "hp", "status"),
    [(3, 2, "active"), (1, 0, "unconscious")],  # the earliest hits' damage moves first
)
def test_a_transfer_after_a_submachine_guns_two_hits(catalogue, moved, hp, status):
    b = smg_battle(catalogue)
    hit = b.attack("a", "t", "ranged", "submachine-gun", 10, 9)  # SR 3 and 2
    assert (b["t"]["hp"], b["t"]["status"]) == (0, "unconscious")
    assert hit.events == [{"figure": "t", "status": "unconscious", "by": "a"}]
    assert "Blue may transfer some of the 5 damage (Friendship)." in hit.words
    moved_on = b(table.decisions.transfer, table.decisions.Transfer((("f", moved),)), player=1)
    assert (b["t"]["hp"], b["t"]["status"], b["f"]["hp"]) == (hp, status, 10 - moved)
    assert moved_on.detail["amends"] == 2
    assert moved_on.detail["figures"] == ["t"]
    assert table.decisions.pending(b.state) == []  # Unconscious after the attack: no dodge


def test_a_transfer_after_subdual_rolls_its_die_against_the_hp_kept(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", ME=3, equipment=["subdual-weapon"])),
        t=(1, figure("Tom", DF=8, HP=10)),
        f=(1, figure("Fay", FR=5)),
    )
    b["t"]["hp"] = 5
    # ME 3, -2 to hit, charged -1 DF: needs 6; 9 is SR 3; the target rolls 4, under 2 HP? no.
    b.attack("a", "t", "melee", "subdual-weapon", 9, 4, charged=True)
    assert (b["t"]["hp"], b["t"]["status"]) == (2, "unconscious")
    b(table.decisions.transfer, table.decisions.Transfer((("f", 3),)), player=1)
    assert (b["t"]["hp"], b["t"]["status"]) == (5, "active")  # 4 is under 5


def test_a_transfer_moves_exploit_weaknesss_damage(catalogue):
    b = Battle(
        catalogue,
        a=(
            0,
            figure(
                "Ava", ME=3, skills=[table.figures.EXPLOIT_WEAKNESS], equipment=["hand-weapon"]
            ),
        ),
        t=(1, figure("Tom", DF=10)),
        f=(1, figure("Fay")),
    )
    b.attack("a", "t", "melee", "hand-weapon", 7, 3)  # SR 0; 3 is at or under ME 3
    assert b["t"]["hp"] == 9
    b(table.decisions.transfer, table.decisions.Transfer((("f", 1),)), player=1)
    assert (b["t"]["hp"], b["f"]["hp"]) == (10, 9)


def test_no_decision_without_damage_or_friends(catalogue):
    b = smg_battle(catalogue)
    b.attack("a", "t", "ranged", "submachine-gun", 1, 1)  # two misses
    assert table.decisions.pending(b.state) == []
    alone = Battle(
        catalogue, a=(0, figure("Ava", RA=4, equipment=["light-pistol"])), t=(1, figure("Tom"))
    )
    alone.attack("a", "t", "ranged", "light-pistol", 12)
    assert [d["kind"] for d in table.decisions.pending(alone.state)] == ["dodge"]


def test_a_waiting_transfer_holds_back_changes_to_its_target_only(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", RA=4, equipment=["light-pistol"])),
        t=(1, figure("Tom", DF=10)),
        f=(1, figure("Fay")),
    )
    b.attack("a", "t", "ranged", "light-pistol", 12)
    with pytest.raises(Conflict) as error:
        b.attack("a", "t", "ranged", "light-pistol", 12)
    assert codes(error) == [("", "decision-pending")]
    b.attack("a", "f", "ranged", "light-pistol", 1)  # another figure: on it goes
    b.activated("a")  # and the attacker's activation ends: the decision stays
    assert [d["kind"] for d in table.decisions.pending(b.state)] == ["transfer", "dodge"]
    transfer = table.decisions.pending(b.state)[0]["id"]
    with pytest.raises(NotAllowed) as error:  # P9: the defender answers, not the attacker
        b(table.decisions.pass_decision, table.decisions.Answer(transfer), player=0)
    assert codes(error) == [("/decision", "not-your-figure")]
    said = b(table.decisions.pass_decision, table.decisions.Answer(transfer), player=1)
    assert said.words == "Blue passes: no Friendship transfer for Tom."
    b.new_turn()
    b.attack("a", "t", "ranged", "light-pistol", 12)


def test_dodge_for_cover_waits_for_the_defender_and_blocks_nothing(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", RA=4, equipment=["light-pistol"])),
        t=(1, figure("Tom", skills=[table.figures.HEROIC_LEAP])),
    )
    b.attack("a", "t", "ranged", "light-pistol", 12)
    [dodge] = table.decisions.pending(b.state)
    assert (dodge["kind"], dodge["side"], dodge["inches"]) == ("dodge", 1, 4)
    b(table.state.roll, table.state.Roll(1))
    said = b(table.decisions.dodge, table.decisions.Answer(), player=1)
    assert said.words == 'Tom Dodges for Cover 4".'
    assert table.decisions.pending(b.state) == []
    with pytest.raises(Invalid) as error:
        b(table.decisions.dodge, table.decisions.Answer(), player=1)
    assert codes(error) == [("/decision", "no-decision")]


# --- skills that change a roll, declared (P2) ------------------------------------------------


def test_air_assassination_makes_the_charge_bonus_three(catalogue):
    assassin = figure(
        "Ash", ME=3, skills=[table.figures.AIR_ASSASSINATION], equipment=["hand-weapon"]
    )
    target = figure("Tom", DF=10)
    plain = table.attacks.plan_attack(
        assassin,
        target,
        "melee",
        "hand-weapon",
        Situation(charged=True),
        equipment=catalogue.equipment,
    )
    from_above = table.attacks.plan_attack(
        assassin,
        target,
        "melee",
        "hand-weapon",
        Situation(charged=True, air_assassination=True),
        equipment=catalogue.equipment,
    )
    assert (plain.needed, from_above.needed) == (6, 4)
    with pytest.raises(Invalid) as error:
        table.attacks.plan_attack(
            figure("Ned", equipment=["hand-weapon"]),
            target,
            "melee",
            "hand-weapon",
            Situation(air_assassination=True),
            equipment=catalogue.equipment,
        )
    assert codes(error) == [
        ("/situation/air_assassination", "skill-missing"),
        ("/situation/air_assassination", "situation-conflict"),
    ]


def test_flurry_of_blows_follows_a_charge_with_a_one_handed_weapon(catalogue):
    flurry = figure(
        "Flo", skills=[table.figures.FLURRY_OF_BLOWS], equipment=["hand-weapon", "heavy-weapon-2h"]
    )
    plan = table.attacks.plan_attack(
        flurry,
        figure("Tom"),
        "melee",
        "hand-weapon",
        Situation(charged=True, flurry_of_blows=True),
        equipment=catalogue.equipment,
    )
    assert any(note.startswith("Flurry of Blows: a second attack") for note in plan.notes)
    with pytest.raises(Invalid) as error:
        table.attacks.plan_attack(
            flurry,
            figure("Tom"),
            "melee",
            "heavy-weapon-2h",
            Situation(charged=True, flurry_of_blows=True),
            equipment=catalogue.equipment,
        )
    assert codes(error) == [("/situation/flurry_of_blows", "needs-equipment")]


# "If this student has lost more than half their HP": HP 10, so 4 or fewer left.
@pytest.mark.parametrize(
    ("hp", "allowed"), [(10, False), (6, False), (5, False), (4, True), (1, True)]
)
def test_terrifying_sealed_power_after_more_than_half_the_hp(catalogue, hp, allowed):
    b = Battle(
        catalogue,
        a=(
            0,
            figure("Sam", RA=2, skills=[table.figures.SEALED_POWER], equipment=["light-pistol"]),
        ),
        e=(1, figure("Eli", DF=10)),
    )
    b["a"]["hp"] = hp
    if allowed:
        plan = b.plan("a", "e", "ranged", "light-pistol", sealed_power=True)
        assert plan.statistic_value == 3
    else:
        with pytest.raises(Invalid) as error:
            b.plan("a", "e", "ranged", "light-pistol", sealed_power=True)
        assert problems(error) == [
            Problem(
                "/situation/sealed_power",
                "situation-not-applicable",
                "Terrifying Sealed Power needs more than half of Sam's HP lost.",
            )
        ]


def test_leadership_lends_a_friends_statistic(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ann", RA=1, equipment=["light-pistol"])),
        l=(0, figure("Leo", RA=4, skills=[table.figures.LEADERSHIP])),
        n=(0, figure("Nat", RA=5)),
        u=(0, figure("Una", RA=5, skills=[table.figures.LEADERSHIP])),
        e=(1, figure("Eli", RA=5, skills=[table.figures.LEADERSHIP])),
    )
    b["u"]["status"] = table.figures.UNCONSCIOUS
    assert b.plan("a", "e", "ranged", "light-pistol", leader="l").statistic_value == 4
    # No skill; an enemy; the attacker itself; a friend who is not active (P2).
    for leader in ("n", "e", "a", "u"):
        with pytest.raises(Invalid) as error:
            b.plan("a", "e", "ranged", "light-pistol", leader=leader)
        assert codes(error) == [("/situation/leader", "skill-missing")]


def test_casting_gun_lends_a_carried_weapons_acc_to_a_spells_attacks(catalogue):
    gunner = figure(
        "Gus", RA=2, CA=4, skills=[table.figures.CASTING_GUN], equipment=["heavy-pistol"]
    )
    bolt = table.spell_attacks.spell_attacks(catalogue.spells["seraphic-bolt"], 0, 1)
    target = figure("Tom", DF=10)
    own = table.spell_attacks.plan_spell_attack(gunner, target, bolt)
    gun = table.spell_attacks.plan_spell_attack(
        gunner, target, bolt, Situation(casting_gun="heavy-pistol"), equipment=catalogue.equipment
    )
    assert (own.to_hit, gun.to_hit) == (0, 1)
    with pytest.raises(Invalid) as error:
        table.spell_attacks.plan_spell_attack(
            gunner,
            target,
            bolt,
            Situation(casting_gun="sniper-rifle"),
            equipment=catalogue.equipment,
        )
    assert codes(error) == [("/situation/casting_gun", "weapon-not-carried")]
    with pytest.raises(Invalid) as error:  # a weapon's own attack has its own ACC
        table.attacks.plan_attack(
            gunner,
            target,
            "ranged",
            "heavy-pistol",
            Situation(casting_gun="heavy-pistol"),
            equipment=catalogue.equipment,
        )
    assert codes(error) == [("/situation/casting_gun", "situation-not-applicable")]


def test_anathema_aura_only_when_an_enemy_has_it(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", CA=3, spells=["inspire"])),
        e=(1, figure("Eli")),
    )
    declared = table.spells.Cast("a", "inspire", anathema_aura=True)
    with pytest.raises(Invalid) as error:
        table.spells.plan_declared(b.state, b.figures, declared, catalogue.spells)
    assert codes(error) == [("/anathema_aura", "skill-missing")]
    b.figures["e"] = figure("Eli", skills=[table.figures.ANATHEMA_AURA])
    plan = table.spells.plan_declared(b.state, b.figures, declared, catalogue.spells)
    assert plan.difficulty == 7


def test_hidden_explosives_once_a_battle_and_at_most_two_damage(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Hex", RA=4, skills=[table.figures.HIDDEN_EXPLOSIVES])),
        e=(1, figure("Eli", DF=8)),
    )
    plan = b.plan("a", "e", "ranged", table.figures.HIDDEN_EXPLOSIVES)
    # "a Blast 5 ranged attack": one die, RA 4 and no ACC against DF 8.
    assert (plan.blast, plan.max_damage, plan.modified_df) == (5, 2, 8)
    assert (plan.rate_of_fire, plan.to_hit, plan.modifiers, plan.needed) == (1, 0, (), 4)
    done = b.attack("a", "e", "ranged", table.figures.HIDDEN_EXPLOSIVES, 12)  # SR 8
    assert done.detail["damage"] == 2
    assert (b["e"]["hp"], b["a"]["spent"]) == (8, [table.figures.HIDDEN_EXPLOSIVES])
    with pytest.raises(Invalid) as error:
        b.plan("a", "e", "ranged", table.figures.HIDDEN_EXPLOSIVES)
    assert codes(error) == [("/weapon", "used-up")]


def deadly_gamble(catalogue):
    b = Battle(
        catalogue,
        g=(
            0,
            figure("Gia", RA=5, skills=[table.figures.DEADLY_GAMBLE], equipment=["light-pistol"]),
        ),
        f=(0, figure("Fay")),
        n=(1, figure("Ned", RA=5, DF=8, equipment=["light-pistol"])),
        o=(1, figure("Ola", DF=8)),
    )
    b(table.turn.deadly_gamble, table.turn.Gamble("g", "n"))
    return b


def test_deadly_gamble_is_named_before_the_first_initiative(catalogue):
    b = deadly_gamble(catalogue)
    assert b["g"]["gamble"] == "n"
    with pytest.raises(Invalid) as error:
        b(table.turn.deadly_gamble, table.turn.Gamble("g", "f"))
    assert codes(error) == [("/target", "same-side")]
    b(table.turn.initiative, faces=(9, 2))
    with pytest.raises(Conflict) as error:
        b(table.turn.deadly_gamble, table.turn.Gamble("g", "o"))
    assert codes(error) == [("", "battle-begun")]


@pytest.mark.parametrize(
    ("attacker", "target", "status"),
    [("g", "n", "out-of-action"), ("n", "g", "out-of-action"), ("g", "o", "unconscious")],
)
def test_deadly_gamble_turns_unconscious_into_out_of_action(catalogue, attacker, target, status):
    b = deadly_gamble(catalogue)
    b[target]["hp"] = 2
    hit = b.attack(attacker, target, "ranged", "light-pistol", 12)
    assert b[target]["status"] == status
    assert hit.events == [{"figure": target, "status": status, "by": attacker}]


def test_disarming_shot_and_aim_for_the_legs_last_for_the_targets_next_activation(catalogue):
    b = Battle(
        catalogue,
        s=(
            0,
            figure(
                "Sly",
                RA=4,
                skills=[table.figures.DISARMING_SHOT, table.figures.AIM_FOR_THE_LEGS],
                equipment=["light-pistol"],
            ),
        ),
        t=(1, figure("Tom", ME=3, DF=10, equipment=["hand-weapon"])),
        f=(1, figure("Fay")),
    )
    glance = b.attack("s", "t", "ranged", "light-pistol", 6)  # SR 0: no damage, no marker
    assert b["t"]["markers"] == {}
    assert "Disarming" not in glance.words
    b.passes()  # Tom's Dodge for Cover
    hurt = b.attack("s", "t", "ranged", "light-pistol", 9)  # SR 3
    assert "Disarming Shot: the target may not use a weapon's benefits" in hurt.words
    assert b["t"]["markers"] == {"disarmed": 1, "legs": 1}
    for decision in table.decisions.pending(b.state):
        b.passes(decision["id"])
    b.activated("s")
    with pytest.raises(Invalid) as error:
        b.attack("t", "s", "melee", "hand-weapon", 12, charged=True)
    assert codes(error) == [("/weapon", "disarmed"), ("/situation/charged", "movement-refused")]
    with pytest.raises(Invalid) as error:
        b(table.movement.jump, table.movement.Jump("t", 2, "ran"))
    assert codes(error) == [("/movement", "movement-refused")]
    b.attack("t", "s", "melee", None, 1)  # no weapon: allowed
    b.activated("t")
    assert b["t"]["markers"] == {}
    b.new_turn()
    b.attack("t", "s", "melee", "hand-weapon", 1, charged=True)


def test_hit_and_away_is_told_after_a_miss(catalogue):
    b = Battle(
        catalogue,
        a=(
            0,
            figure("Ava", RA=4, skills=[table.figures.HIT_AND_AWAY], equipment=["light-pistol"]),
        ),
        e=(1, figure("Eli", DF=10)),
    )
    assert (
        'Hit and Away: Ava may Dodge for Cover 2".'
        in b.attack("a", "e", "ranged", "light-pistol", 1).words
    )
    assert "Hit and Away" not in b.attack("a", "e", "ranged", "light-pistol", 12).words


# --- the turn and the sides (P1, P9) -----------------------------------------------------------


def test_a_second_initiative_roll_in_a_turn_is_refused(catalogue):
    b = Battle(catalogue, a=(0, figure("Ava")), e=(1, figure("Eli")))
    b(table.turn.initiative, faces=(9, 2))
    with pytest.raises(Conflict) as error:
        b(table.turn.initiative, faces=(2, 9))
    assert codes(error) == [("", "initiative-rolled")]
    b.new_turn()
    assert b(table.turn.initiative, faces=(2, 9)).detail["winner"] == 1


def test_a_player_acts_for_their_own_sides_figures(catalogue):
    b = Battle(
        catalogue,
        a=(0, figure("Ava", RA=4, equipment=["light-pistol"])),
        e=(1, figure("Eli", RA=4, equipment=["light-pistol"])),
    )
    declared = AttackDeclaration("e", "a", "ranged", "light-pistol")
    with pytest.raises(NotAllowed) as error:
        b(table.attacks.attack, declared, faces=(12,), player=0)
    assert codes(error) == [("/figure", "not-your-figure")]
    with pytest.raises(NotAllowed):
        b(table.state.change, table.state.Change("e", hp=3), player=0)
    b(table.attacks.attack, declared, faces=(1,), player=1)
    assert b.last.acting_side == 1
    b["e"]["markers"] = {"bad-luck": 2}  # the one marker the other side takes off
    b(table.state.change, table.state.Change("e", markers={"bad-luck": -1}), player=0)
    assert (b["e"]["markers"], b.last.acting_side) == ({"bad-luck": 1}, 0)
    with pytest.raises(NotAllowed):
        b(table.state.change, table.state.Change("e", markers={"bad-luck": 1}), player=0)
    b(table.turn.initiative, faces=(9, 2), player=0)  # the battle's own: either player
    assert b.last.acting_side is None


# --- the record and states stored before these rules -----------------------------------------


def test_a_transfer_replaces_its_attacks_events_only_for_the_figures_it_resolved_again():
    logged = table.record.Logged
    attack = logged(
        2,
        "attack",
        {},
        [
            {"figure": "d", "status": "out-of-action", "by": None},  # Determination's end
            {"figure": "t", "status": "unconscious", "by": "a"},
        ],
    )
    transfer = logged(3, "transfer", {"amends": 2, "figures": ["t"]}, [])
    assert table.record.effective_events([attack, transfer]) == [attack.events[0]]
    before_figures = logged(3, "transfer", {"amends": 2}, [])  # logged before they were named
    assert table.record.effective_events([attack, before_figures]) == []
    assert table.record.effective_events([attack]) == attack.events


def test_a_state_stored_before_activations_and_decisions_reads_as_none_yet():
    old = {
        "turn": 2,
        "initiative": None,
        "figures": {
            "a": {
                "side": 0,
                "hp": 5,
                "max_hp": 10,
                "status": "active",
                "activated": False,
                "markers": {"fortify": 1},
                "discarded": [],
                "forgotten": [],
            }
        },
    }
    kept = copy.deepcopy(old)
    state = table.state.upgraded(old)
    assert old == kept  # the stored state stays as it was, for undo
    assert state["figures"]["a"] | {} == {
        **kept["figures"]["a"],
        "activations": 0,
        "lapses": {},
        "determined": False,
        "spent": [],
        "gamble": None,
    }
    assert (state["activating"], state["decisions"], state["decisions_opened"]) == (None, [], 0)
    assert table.state.upgraded(state) is state
    # A marker with no record of when it was placed lapses as it used to: at the end.
    assert table.state.end_activation(state, "a") == ["Fortify lapsed."]
