"""The table's rules (the play.table package): every printed modifier, each weapon, the skills that
change a roll, damage and Friendship (P3), spells (P4), other actions, initiative (P1),
and every probability held to an exhaustive count of the dice."""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbd_site.errors import Invalid, Problem
from play import table
from play.table.attacks import Situation
from tests.play.tables import codes, figure, plan, problems

# --- the rulebook's example ---------------------------------------------------------------


def test_hank_me3_against_jojo_df12_needs_a_9(catalogue):
    hank = figure("Hank", ME=3, equipment=["simple-weapon"])  # a baseball bat
    jojo = figure("Jojo", DF=12)
    attack = plan(catalogue, hank, jojo, "melee", "simple-weapon")
    assert attack.needed == 9
    assert attack.modifiers == ()
    assert attack.chance_to_hit == Fraction(4, 12)
    assert table.attacks.resolve_attack(attack, 8).hit is False
    nine = table.attacks.resolve_attack(attack, 9)
    assert (nine.hit, nine.success_rating, nine.damage, nine.push_inches) == (True, 0, 0, 1)
    twelve = table.attacks.resolve_attack(attack, 12)
    assert (twelve.success_rating, twelve.damage, twelve.push_inches) == (3, 3, 4)
    # 0 + 0 + 0 + 0 + 1 + 2 + 3 over 12 faces (9..12 hit with SR 0..3)
    assert attack.expected_damage == Fraction(6, 12)


# --- every printed modifier ---------------------------------------------------------------

MELEE = ["simple-weapon"]
RANGED = ["light-pistol"]


@pytest.mark.parametrize(
    ("kind", "weapon", "situation", "df_change"),
    [
        ("melee", "simple-weapon", Situation(obscured="partial"), 1),
        ("melee", "simple-weapon", Situation(obscured="significant"), 2),
        ("melee", "simple-weapon", Situation(rear_arc=True), -2),
        ("ranged", "light-pistol", Situation(obscured="partial"), 1),
        ("ranged", "light-pistol", Situation(obscured="significant"), 2),
        ("ranged", "light-pistol", Situation(rear_arc=True), -2),
        ("ranged", None, Situation(), 2),  # No Ranged Weapon
        ("ranged", "light-pistol", Situation(movement="none"), -1),  # Did Not Move
        ("ranged", "light-pistol", Situation(target_in_melee=True), 3),
        ("melee", None, Situation(), 2),  # No Melee Weapon
        ("melee", "simple-weapon", Situation(non_charge_move=True), 1),
        ("melee", "simple-weapon", Situation(charged=True), -1),
        (
            "ranged",
            "light-pistol",
            Situation(movement="none", target_in_melee=True, obscured="partial"),
            3,
        ),
    ],
)
def test_each_printed_modifier_moves_the_target_df(catalogue, kind, weapon, situation, df_change):
    attacker = figure(ME=2, RA=2, equipment=MELEE + RANGED)
    attack = plan(catalogue, attacker, figure("T", DF=10), kind, weapon, situation)
    assert attack.target_df == 10
    assert attack.modified_df == 10 + df_change
    assert attack.needed == 10 + df_change - 2


@pytest.mark.parametrize(
    ("weapon", "kind", "mode", "to_hit", "rof", "actions"),
    [
        ("simple-weapon", "melee", 0, 0, 1, 1),
        ("hand-weapon", "melee", 0, 0, 1, 1),
        ("subdual-weapon", "melee", 0, -2, 1, 1),
        ("heavy-weapon-1h", "melee", 0, 1, 1, 1),
        ("heavy-weapon-2h", "melee", 0, 2, 1, 1),
        ("great-weapon", "melee", 0, 1, 1, 1),
        ("polearm", "melee", 0, 0, 1, 1),
        ("light-pistol", "ranged", 0, 0, 1, 1),
        ("heavy-pistol", "ranged", 0, 1, 1, 1),
        ("submachine-gun", "ranged", 0, -1, 2, 1),
        ("grenades-bombs", "ranged", 0, 0, 1, 1),
        ("traditional-ranged-weapon", "ranged", 0, 0, 1, 1),
        ("shotgun", "ranged", 0, 1, 1, 1),
        ("light-machine-gun", "ranged", 0, 0, 2, 1),
        ("light-machine-gun", "ranged", 1, -1, 3, 1),
        ("heavy-machine-gun", "ranged", 0, 0, 3, 2),
        ("assault-rifle", "ranged", 0, 0, 2, 1),
        ("sniper-rifle", "ranged", 0, 2, 1, 1),
        ("grenade-launcher", "ranged", 0, 0, 1, 1),
        ("rocket-launcher", "ranged", 0, -1, 1, 1),
    ],
)
def test_each_weapon_bonus(catalogue, weapon, kind, mode, to_hit, rof, actions):
    attacker = figure(ME=3, RA=3, equipment=[weapon])
    attack = plan(catalogue, attacker, figure("T", DF=10), kind, weapon, mode=mode)
    assert (attack.to_hit, attack.rate_of_fire, attack.actions) == (to_hit, rof, actions)
    assert attack.needed == 10 - 3 - to_hit


def test_light_machine_gun_has_only_two_modes(catalogue):
    attacker = figure(RA=3, equipment=["light-machine-gun"])
    with pytest.raises(Invalid) as error:
        plan(catalogue, attacker, figure("T"), "ranged", "light-machine-gun", mode=2)
    assert codes(error) == [("/mode", "unknown-fire-mode")]


def test_shields_and_armour_come_from_the_defence(catalogue):
    # R8: the stored evaluation's defence; Light Shield melee only, Heavy Shield +1/+2.
    light_shield = figure("L", DF=9, defence={"melee": 10, "ranged": 9})
    heavy_shield = figure("H", DF=9, defence={"melee": 11, "ranged": 10})
    attacker = figure(ME=2, RA=2, equipment=MELEE + RANGED)
    assert plan(catalogue, attacker, light_shield, "melee", "simple-weapon").target_df == 10
    assert plan(catalogue, attacker, light_shield, "ranged", "light-pistol").target_df == 9
    assert plan(catalogue, attacker, heavy_shield, "melee", "simple-weapon").target_df == 11
    assert plan(catalogue, attacker, heavy_shield, "ranged", "light-pistol").target_df == 10


def test_fortify_adds_two_df_but_never_above_16(catalogue):
    attacker = figure(ME=2, equipment=MELEE)
    fortified = Situation(target_fortified=True)
    assert (
        plan(
            catalogue, attacker, figure("T", DF=13), "melee", "simple-weapon", fortified
        ).modified_df
        == 15
    )
    assert (
        plan(
            catalogue, attacker, figure("T", DF=15), "melee", "simple-weapon", fortified
        ).modified_df
        == 16
    )
    assert (
        plan(
            catalogue,
            attacker,
            figure("T", DF=15),
            "melee",
            "simple-weapon",
            Situation(target_fortified=True, rear_arc=True),
        ).modified_df
        == 14
    )


def test_weapon_not_carried_and_wrong_kind_are_refused_together(catalogue):
    attacker = figure(equipment=MELEE)
    with pytest.raises(Invalid) as error:
        plan(catalogue, attacker, figure("T"), "melee", "light-pistol")
    assert codes(error) == [("/weapon", "weapon-not-carried"), ("/weapon", "weapon-wrong-kind")]


def test_situations_of_the_other_kind_are_refused(catalogue):
    attacker = figure(equipment=MELEE + RANGED)
    with pytest.raises(Invalid) as error:
        plan(
            catalogue,
            attacker,
            figure("T"),
            "ranged",
            "light-pistol",
            Situation(charged=True, non_charge_move=True),
        )
    assert codes(error) == [
        ("/situation/charged", "situation-not-applicable"),
        ("/situation/non_charge_move", "situation-not-applicable"),
    ]
    with pytest.raises(Invalid) as error:
        plan(
            catalogue,
            attacker,
            figure("T"),
            "melee",
            "simple-weapon",
            Situation(target_in_melee=True),
        )
    assert codes(error) == [("/situation/target_in_melee", "situation-not-applicable")]
    with pytest.raises(Invalid) as error:
        plan(
            catalogue,
            attacker,
            figure("T"),
            "melee",
            "simple-weapon",
            Situation(charged=True, non_charge_move=True),
        )
    assert codes(error) == [("/situation/non_charge_move", "situation-conflict")]


# --- skills that change the roll ------------------------------------------------------------


def test_dual_wield_is_minus_one_and_needs_two_one_handed_weapons(catalogue):
    two = figure(
        ME=3, skills=[table.figures.MELEE_DUAL_WIELD], equipment=["hand-weapon", "heavy-weapon-1h"]
    )
    attack = plan(
        catalogue, two, figure("T", DF=10), "melee", "heavy-weapon-1h", Situation(dual_wield=True)
    )
    assert (attack.statistic_value, attack.to_hit, attack.needed) == (2, 1, 7)
    one = figure(ME=3, skills=[table.figures.MELEE_DUAL_WIELD], equipment=["hand-weapon"])
    with pytest.raises(Invalid) as error:
        plan(catalogue, one, figure("T"), "melee", "hand-weapon", Situation(dual_wield=True))
    assert codes(error) == [("/situation/dual_wield", "needs-equipment")]
    # "two one-handed melee weapons": a two-handed one is not the second.
    great = figure(
        ME=3, skills=[table.figures.MELEE_DUAL_WIELD], equipment=["hand-weapon", "heavy-weapon-2h"]
    )
    with pytest.raises(Invalid) as error:
        plan(catalogue, great, figure("T"), "melee", "hand-weapon", Situation(dual_wield=True))
    assert problems(error) == [
        Problem(
            "/situation/dual_wield",
            "needs-equipment",
            "Dual Wield needs two one-handed melee weapons.",
        )
    ]
    unskilled = figure(ME=3, equipment=["light-pistol", "light-pistol"])
    with pytest.raises(Invalid) as error:
        plan(
            catalogue, unskilled, figure("T"), "ranged", "light-pistol", Situation(dual_wield=True)
        )
    assert codes(error) == [("/situation/dual_wield", "skill-missing")]
    ranged = figure(
        RA=1, skills=[table.figures.RANGED_DUAL_WIELD], equipment=["light-pistol", "light-pistol"]
    )
    # RA 1 - 1 = 0: an active statistic never goes below 0.
    low = plan(
        catalogue,
        ranged,
        figure("T"),
        "ranged",
        "light-pistol",
        Situation(dual_wield=True, statistic_penalty=1),
    )
    assert low.statistic_value == 0


def test_subdual_weapon_is_minus_two_unless_from_behind_with_the_basics_of_cqc(catalogue):
    plain = figure(ME=3, equipment=["subdual-weapon"])
    cqc = figure(ME=3, equipment=["subdual-weapon"], skills=[table.figures.BASICS_OF_CQC])
    target = figure("T", DF=10)
    assert plan(catalogue, plain, target, "melee", "subdual-weapon").to_hit == -2
    assert plan(catalogue, cqc, target, "melee", "subdual-weapon").to_hit == -2
    behind = Situation(rear_arc=True)
    assert plan(catalogue, plain, target, "melee", "subdual-weapon", behind).to_hit == -2
    from_behind = plan(catalogue, cqc, target, "melee", "subdual-weapon", behind)
    assert (from_behind.to_hit, from_behind.needed) == (0, 5)
    assert from_behind.check_die == "subdual"  # a hit from behind: the knock-out roll
    assert plan(catalogue, cqc, target, "melee", "subdual-weapon").check_die is None
    assert table.damage.subdual_knocks_out(roll=6, hp=6) is True
    assert table.damage.subdual_knocks_out(roll=5, hp=6) is False


@pytest.mark.parametrize(("movement", "penalty"), [("ran", -1), ("dashed", -2)])
def test_fire_on_the_move(catalogue, movement, penalty):
    mover = figure(RA=3, equipment=RANGED, skills=[table.figures.FIRE_ON_THE_MOVE])
    attack = plan(
        catalogue, mover, figure("T"), "ranged", "light-pistol", Situation(movement=movement)
    )
    assert attack.statistic_value == 3 + penalty
    with pytest.raises(Invalid) as error:
        plan(
            catalogue,
            figure(RA=3, equipment=RANGED),
            figure("T"),
            "ranged",
            "light-pistol",
            Situation(movement=movement),
        )
    assert codes(error) == [("/situation/movement", "skill-missing")]


def test_sniper_rifle_cannot_fire_after_running(catalogue):
    sniper = figure(RA=3, equipment=["sniper-rifle"], skills=[table.figures.FIRE_ON_THE_MOVE])
    with pytest.raises(Invalid) as error:
        plan(catalogue, sniper, figure("T"), "ranged", "sniper-rifle", Situation(movement="ran"))
    assert codes(error) == [("/situation/movement", "cannot-fire-after-moving")]


def test_heavy_machine_gun_takes_two_actions_and_no_aiming_bonus(catalogue):
    gunner = figure(RA=3, equipment=["heavy-machine-gun"])
    still = plan(
        catalogue,
        gunner,
        figure("T", DF=10),
        "ranged",
        "heavy-machine-gun",
        Situation(movement="none"),
    )
    assert (still.modified_df, still.actions, still.rate_of_fire) == (10, 2, 3)
    assert still.notes == ("A Heavy Machine Gun gains no bonus for not moving.",)
    quick = figure(RA=3, equipment=["heavy-machine-gun"], skills=[table.figures.QUICKDRAW])
    drawn = plan(
        catalogue,
        quick,
        figure("T", DF=10),
        "ranged",
        "heavy-machine-gun",
        Situation(quickdraw=True),
    )
    assert (drawn.actions, drawn.statistic_value) == (1, 1)
    with pytest.raises(Invalid) as error:
        plan(catalogue, quick, figure("T"), "ranged", "light-pistol", Situation(quickdraw=True))
    assert ("/situation/quickdraw", "situation-not-applicable") in codes(error)


def test_martial_arts_one_per_opponent_beyond_the_first(catalogue):
    artist = figure(ME=2, equipment=MELEE, skills=[table.figures.MARTIAL_ARTS])
    assert (
        plan(
            catalogue,
            artist,
            figure("T"),
            "melee",
            "simple-weapon",
            Situation(opponents_in_melee=1),
        ).to_hit
        == 0
    )
    assert (
        plan(
            catalogue,
            artist,
            figure("T"),
            "melee",
            "simple-weapon",
            Situation(opponents_in_melee=3),
        ).to_hit
        == 2
    )
    assert (
        plan(
            catalogue,
            figure(ME=2, equipment=MELEE),
            figure("T"),
            "melee",
            "simple-weapon",
            Situation(opponents_in_melee=3),
        ).to_hit
        == 0
    )


def test_ballistics_doubles_range_at_minus_one(catalogue):
    shooter = figure(RA=3, equipment=RANGED, skills=[table.figures.BALLISTICS])
    assert (
        plan(
            catalogue, shooter, figure("T"), "ranged", "light-pistol", Situation(double_range=True)
        ).statistic_value
        == 2
    )


def test_mighty_attack_ignores_to_hit_bonuses_and_doubles_damage(catalogue):
    brute = figure(ME=3, equipment=["heavy-weapon-2h"], skills=[table.figures.MIGHTY_ATTACK])
    normal = plan(catalogue, brute, figure("T", DF=10), "melee", "heavy-weapon-2h")
    mighty = plan(
        catalogue,
        brute,
        figure("T", DF=10),
        "melee",
        "heavy-weapon-2h",
        Situation(mighty_attack=True),
    )
    assert (normal.needed, normal.damage_multiplier) == (5, 1)
    assert (mighty.needed, mighty.damage_multiplier) == (7, 2)
    assert table.attacks.resolve_attack(mighty, 10).damage == 6
    one_hand = figure(ME=3, equipment=["hand-weapon"], skills=[table.figures.MIGHTY_ATTACK])
    with pytest.raises(Invalid) as error:
        plan(
            catalogue, one_hand, figure("T"), "melee", "hand-weapon", Situation(mighty_attack=True)
        )
    assert codes(error) == [("/situation/mighty_attack", "needs-equipment")]


def test_alert_combatant_ignores_the_non_charge_penalty(catalogue):
    alert = figure(ME=2, equipment=MELEE, skills=[table.figures.ALERT_COMBATANT])
    assert (
        plan(
            catalogue,
            alert,
            figure("T", DF=10),
            "melee",
            "simple-weapon",
            Situation(non_charge_move=True),
        ).modified_df
        == 10
    )


def test_traditional_ranged_weapon_bonus_when_the_target_cannot_see(catalogue):
    archer = figure(RA=2, equipment=["traditional-ranged-weapon"])
    assert (
        plan(
            catalogue,
            archer,
            figure("T"),
            "ranged",
            "traditional-ranged-weapon",
            Situation(target_cannot_see_attacker=True),
        ).to_hit
        == 1
    )


def test_dodge_for_cover_distances():
    assert table.attacks.dodge_for_cover_inches(figure()) == 2
    assert table.attacks.dodge_for_cover_inches(figure(skills=[table.figures.HEROIC_LEAP])) == 4
    assert (
        table.attacks.dodge_for_cover_inches(
            figure(skills=[table.figures.HEROIC_LEAP, table.figures.ATHLETICS])
        )
        == 5
    )


def test_ranged_results_in_words(catalogue):
    attack = plan(
        catalogue, figure(RA=2, equipment=RANGED), figure("T", DF=10), "ranged", "light-pistol"
    )
    assert table.attacks.resolve_attack(attack, 7).words == "Miss: nothing happens."
    assert table.attacks.resolve_attack(attack, 8).words == (
        'Hit, Success Rating 0: 0 damage, the target Dodges for Cover 2".'
    )


# --- exact probabilities against exhaustive enumeration ----------------------------------

situations = st.builds(
    Situation,
    obscured=st.sampled_from(["clear", "partial", "significant"]),
    rear_arc=st.booleans(),
    movement=st.sampled_from(["none", "moved"]),
    target_in_melee=st.booleans(),
    best_of_two=st.booleans(),
    statistic_penalty=st.integers(0, 3),
)


@settings(max_examples=200, deadline=None)
@given(
    stat=st.integers(0, 5),
    df=st.integers(6, 16),
    weapon=st.sampled_from(
        ["light-pistol", "heavy-pistol", "submachine-gun", "sniper-rifle", "rocket-launcher", None]
    ),
    situation=situations,
)
def test_attack_odds_equal_an_exhaustive_count(catalogue, stat, df, weapon, situation):
    attacker = figure(RA=stat, equipment=[weapon] if weapon else [])
    attack = plan(catalogue, attacker, figure("T", DF=df), "ranged", weapon, situation)
    faces = range(1, 13)
    rolls = (
        [max(a, b) for a, b in itertools.product(faces, faces)]
        if situation.best_of_two
        else list(faces)
    )
    results = [table.attacks.resolve_attack(attack, r) for r in rolls]
    assert attack.chance_to_hit == Fraction(sum(r.hit for r in results), len(rolls))
    assert attack.expected_damage == Fraction(sum(r.damage for r in results), len(rolls))


@settings(max_examples=60, deadline=None)
@given(df=st.integers(6, 16), stat=st.integers(0, 5))
def test_mighty_attack_expected_damage_is_counted_doubled(catalogue, df, stat):
    brute = figure(ME=stat, equipment=["great-weapon"], skills=[table.figures.MIGHTY_ATTACK])
    attack = plan(
        catalogue,
        brute,
        figure("T", DF=df),
        "melee",
        "great-weapon",
        Situation(mighty_attack=True),
    )
    damage = [table.attacks.resolve_attack(attack, r).damage for r in range(1, 13)]
    assert attack.expected_damage == Fraction(sum(damage), 12)


def test_odds_against_each_df(catalogue):
    attack = plan(
        catalogue, figure(RA=3, equipment=["heavy-pistol"]), figure("T"), "ranged", "heavy-pistol"
    )
    odds = table.attacks.odds_against(attack, range(6, 17))
    assert [o.needed for o in odds] == list(range(2, 13))
    assert odds[0].chance == Fraction(11, 12)
    assert odds[-1].chance == Fraction(1, 12)


# --- damage and Friendship (P3) --------------------------------------------------------------


def test_damage_unconscious_at_zero_and_out_of_action_when_hit_with_sr_1():
    assert table.damage.take_damage(5, "active", 3, 3) == (2, "active")
    assert table.damage.take_damage(2, "active", 3, 3) == (0, "unconscious")
    assert table.damage.take_damage(2, "active", 2, 2) == (0, "unconscious")
    assert table.damage.take_damage(0, "unconscious", 0, 0) == (0, "unconscious")
    assert table.damage.take_damage(0, "unconscious", 1, 1) == (0, "out-of-action")


def test_friendship_transfers_up_to_fr_and_true_power_halves():
    friend = table.damage.Recipient("Julius", fr=3, amount=3)
    assert table.damage.check_transfers(5, [friend]) == 2
    assert table.damage.received(friend) == 3
    halved = table.damage.Recipient("Emma", fr=3, amount=3, true_power_of_friendship=True)
    assert table.damage.received(halved) == 1  # 3 halved, rounded down (R13)
    with pytest.raises(Invalid) as error:
        table.damage.check_transfers(5, [table.damage.Recipient("Julius", fr=3, amount=4)])
    assert codes(error) == [("/transfers/0", "invalid-transfer")]
    with pytest.raises(Invalid) as error:
        table.damage.check_transfers(
            3,
            [
                table.damage.Recipient("A", fr=3, amount=2),
                table.damage.Recipient("B", fr=3, amount=2),
            ],
        )
    assert codes(error) == [("/transfers", "invalid-transfer")]
    inspired = table.damage.Recipient("C", fr=2, amount=4, inspire_markers=1)
    assert table.damage.check_transfers(4, [inspired]) == 0
    unlimited = table.damage.Recipient("D", fr=1, amount=9, inspire_markers=2)
    assert table.damage.check_transfers(9, [unlimited]) == 0
    with pytest.raises(Invalid) as error:
        table.damage.check_transfers(
            2, [table.damage.Recipient("E", fr=3, amount=2, status="unconscious")]
        )
    assert codes(error) == [("/transfers/0", "invalid-transfer")]


# --- spells (P4) ------------------------------------------------------------------------------


def test_emma_ca4_casting_healing_spring_rolls_1_2_7_8_for_two_successes(catalogue):
    emma = figure("Emma", CA=4, spells=["healing-spring"])
    spring = table.spells.plan_spell(emma, catalogue.spells["healing-spring"])
    assert (spring.dice, spring.difficulty) == (4, 7)
    result = table.spells.cast(spring, [1, 2, 7, 8])
    assert result.successes == 2
    assert result.tier == spring.outcomes[0]
    assert result.tier.effect == "The target recovers 2 HP."


def test_spell_focus_mastery_anathema_and_empowered(catalogue):
    spring = catalogue.spells["healing-spring"]
    focused = figure("F", CA=3, spells=["healing-spring"], spell_focus=True)
    assert table.spells.plan_spell(focused, spring).difficulty == 6
    assert table.spells.cast(table.spells.plan_spell(focused, spring), [6, 5, 1]).successes == 1
    master = figure("M", CA=3, spells=["healing-spring"], mastery="healing-spring")
    mastered = table.spells.plan_spell(master, spring)
    assert (mastered.difficulty, mastered.bonus_successes) == (7, 1)
    assert table.spells.cast(mastered, [1, 1, 1]).successes == 1
    assert table.spells.plan_spell(master, spring, anathema_aura=True).difficulty == 8
    blessed = figure(
        "B", CA=3, spells=["healing-spring"], skills=[table.figures.EMPOWERED_BLESSINGS]
    )
    assert table.spells.plan_spell(blessed, spring, empowered=True).difficulty == 8
    bolt = catalogue.spells["seraphic-bolt"]
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(figure("B", CA=3, spells=["seraphic-bolt"]), bolt, empowered=True)
    assert codes(error) == [
        ("/empowered", "skill-missing"),
        ("/empowered", "situation-not-applicable"),
    ]


def test_unknown_forgotten_and_dragon_slayer(catalogue):
    caster = figure("C", CA=3, spells=["healing-spring", "dragon-slayer"])
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(caster, catalogue.spells["seraphic-bolt"])
    assert codes(error) == [("/spell", "spell-not-known")]
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(
            caster, catalogue.spells["healing-spring"], forgotten=["healing-spring"]
        )
    assert codes(error) == [("/spell", "spell-not-known")]
    slayer = table.spells.plan_spell(caster, catalogue.spells["dragon-slayer"], chosen=3)
    assert (slayer.difficulty, slayer.actions) == (9, 2)
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(caster, catalogue.spells["dragon-slayer"], chosen=7)
    assert codes(error) == [("/chosen", "invalid-chosen-value")]
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(
            figure("Z", CA=0, spells=["healing-spring"]), catalogue.spells["healing-spring"]
        )
    assert codes(error) == [("/figure", "cannot-cast")]


@settings(max_examples=40, deadline=None)
@given(
    ca=st.integers(1, 3),
    spell=st.sampled_from(
        [
            "healing-spring",
            "reviving-breath",
            "clock-down",
            "extreme-speed",
            "mana-obliteration",
            "seraphic-bolt",
        ]
    ),
    focus=st.booleans(),
    mastery=st.booleans(),
    aura=st.booleans(),
)
def test_spell_tier_odds_equal_an_exhaustive_count(catalogue, ca, spell, focus, mastery, aura):
    caster = figure(
        "C", CA=ca, spells=[spell], spell_focus=focus, mastery=spell if mastery else None
    )
    p = table.spells.plan_spell(caster, catalogue.spells[spell], anathema_aura=aura)
    counts: dict[object, int] = {}
    for dice in itertools.product(range(1, 13), repeat=ca):
        tier = table.spells.cast(p, dice).tier
        counts[tier] = counts.get(tier, 0) + 1
    total = 12**ca
    odds = p.tier_odds()
    assert sum(chance for _, chance in odds) == 1
    for tier, chance in odds:
        assert chance == Fraction(counts.get(tier, 0), total)


def test_more_successes_than_the_top_tier_keep_the_top_tier(catalogue):
    breath = catalogue.spells["reviving-breath"]
    master = figure("M", CA=5, spells=["reviving-breath"], mastery="reviving-breath")
    result = table.spells.cast(table.spells.plan_spell(master, breath), [10, 10, 10, 10, 10])
    assert result.successes == 6
    assert result.tier == breath.outcomes[-1]
    assert (
        table.spells.cast(table.spells.plan_spell(master, breath), [1] * 5).tier
        == breath.outcomes[0]
    )


# --- heal, revive, jump ---------------------------------------------------------------------


def test_heal_recovers_the_excess_up_to_the_healers_fr_and_max_hp():
    assert table.recovery.heal_amount(roll=9, target_hp=4, target_max_hp=10, healer_fr=3) == 3
    assert table.recovery.heal_amount(roll=6, target_hp=4, target_max_hp=10, healer_fr=3) == 2
    assert table.recovery.heal_amount(roll=4, target_hp=4, target_max_hp=10, healer_fr=3) == 0
    assert table.recovery.heal_amount(roll=12, target_hp=9, target_max_hp=10, healer_fr=3) == 1
    odds = table.recovery.heal_odds(target_hp=4, target_max_hp=10, healer_fr=3)
    # 1-4 heal nothing, 5 heals 1, 6 heals 2, 7-12 heal the healer's FR of 3.
    assert odds == {0: Fraction(4, 12), 1: Fraction(1, 12), 2: Fraction(1, 12), 3: Fraction(6, 12)}


def test_revive_at_or_below_fr():
    assert table.recovery.revives(3, 3) is True
    assert table.recovery.revives(4, 3) is False
    assert table.recovery.revive_chance(3) == Fraction(3, 12)


def test_jump_and_drop_modifiers():
    plain = table.movement.plan_jump(figure(), 4)
    assert (plain.needed, plain.chance) == (5, Fraction(8, 12))
    assert plain.damage(3) == 2
    assert plain.damage(5) == 0
    light = table.movement.plan_jump(figure(equipment=["light-armour", "climbing-gear"]), 4, "ran")
    assert [m.amount for m in light.modifiers] == [-2, 1, 1]
    assert light.needed == 5
    heavy = table.movement.plan_jump(figure(equipment=["heavy-armour"]), 4, "moved")
    assert heavy.needed == 8
    dashing = table.movement.plan_jump(figure(), 4, "dashed")
    assert dashing.needed == 3
    with pytest.raises(Invalid):
        table.movement.plan_jump(figure(equipment=["heavy-armour"]), 4, "dashed")
    catfall = table.movement.plan_jump(figure(skills=[table.figures.CATFALL]), 6)
    assert catfall.damage(2) == 2  # 5 short, halved and rounded down


# --- initiative (P1) and dice ---------------------------------------------------------------


def test_initiative_bonus_for_fewer_active_figures_and_ties_again():
    assert table.turn.initiative_bonuses([4, 3]) == [0, 1]
    assert table.turn.initiative_bonuses([4, 4]) == [0, 0]
    settled = table.turn.initiative_from([(7, 7), (3, 9)], [0, 0])
    assert settled.winner == 1
    assert table.turn.initiative_from([(7, 7)], [0, 1]).winner == 1  # 7 against 7 + 1
    with pytest.raises(Invalid) as error:
        table.turn.initiative_from([(7, 6)], [0, 1])  # 7 against 6 + 1: a tie, roll again
    assert codes(error) == [("/dice", "wrong-dice-count")]
    with pytest.raises(Invalid) as error:
        table.turn.initiative_from([(7, 7, 1)], [0, 0])
    assert codes(error) == [("/dice/0", "wrong-dice-count")]


def test_rolled_initiative_always_has_a_winner():
    rng = random.Random(12)
    for _ in range(200):
        result = table.turn.roll_initiative([4, 3], rng)
        assert result.winner in (0, 1)
        assert table.turn.initiative_from(result.rolls, result.bonuses) == result


def test_initiative_chance_is_exact():
    assert table.turn.initiative_chance(4, 4) == Fraction(1, 2)
    # +1 for the side with fewer: wins on a+1 > b, ties (a+1 == b) roll again.
    wins = sum(1 for a in range(1, 13) for b in range(1, 13) if a + 1 > b)
    ties = sum(1 for a in range(1, 13) for b in range(1, 13) if a + 1 == b)
    assert table.turn.initiative_chance(3, 4) == Fraction(wins, 144 - ties)


def test_entered_dice_are_checked():
    assert table.dice.check_entered([1, 12], 2) == [1, 12]
    with pytest.raises(Invalid) as error:
        table.dice.check_entered([0, 13, True], 2)
    assert codes(error) == [
        ("/dice", "wrong-dice-count"),
        ("/dice/0", "invalid-roll"),
        ("/dice/1", "invalid-roll"),
        ("/dice/2", "invalid-roll"),
    ]


def test_who_may_act_while_unconscious():
    def state(status, activated=False):
        return {
            "side": 0,
            "hp": 0,
            "max_hp": 10,
            "status": status,
            "activated": activated,
            "markers": {},
            "discarded": [],
            "forgotten": [],
        }

    plain = figure()
    extreme = figure(skills=[table.figures.EXTREME_DETERMINATION])
    determined = figure(skills=[table.figures.DETERMINATION])
    assert table.state.can_act(state("active"), plain) is True
    assert table.state.can_act(state("unconscious"), plain) is False
    assert table.state.can_act(state("unconscious", activated=True), extreme) is True
    assert table.state.can_act(state("unconscious"), determined) is True
    assert table.state.can_act(state("unconscious", activated=True), determined) is False
    assert table.state.can_act(state("out-of-action"), extreme) is False


def test_the_record_credits_each_figure_out_of_action_once():
    state = table.state.new_state({"a": (0, figure("A")), "b": (1, figure("B"))})
    events = [
        {"figure": "b", "status": "unconscious", "by": "a"},
        {"figure": "b", "status": "out-of-action", "by": "a"},
        {"figure": "b", "status": "active", "by": None},  # a declared change puts B back
        {"figure": "b", "status": "out-of-action", "by": "a"},
    ]
    record = table.record.record_from(state, events)
    assert record["a"] == table.record.MemberRecord("a", False, False, 1)
    assert record["b"] == table.record.MemberRecord("b", True, True, 0)


@settings(max_examples=100, deadline=None)
@given(
    distance=st.integers(0, 20),
    movement=st.sampled_from(["moved", "ran", "dashed"]),
    gear=st.lists(st.sampled_from(["light-armour", "climbing-gear"]), unique=True),
)
def test_jump_odds_equal_an_exhaustive_count(distance, movement, gear):
    jump = table.movement.plan_jump(figure(equipment=gear), distance, movement)
    passes = [r for r in range(1, 13) if r + jump.bonus > distance]  # must exceed
    assert jump.chance == Fraction(len(passes), 12)
    assert all(jump.damage(r) == 0 for r in passes)
    assert all(jump.damage(r) > 0 for r in range(1, 13) if r not in passes)


@settings(max_examples=100, deadline=None)
@given(hp=st.integers(0, 14), max_hp=st.integers(10, 14), fr=st.integers(0, 7))
def test_heal_and_revive_odds_equal_an_exhaustive_count(hp, max_hp, fr):
    hp = min(hp, max_hp)
    odds = table.recovery.heal_odds(hp, max_hp, fr)
    assert sum(odds.values()) == 1
    for amount, chance in odds.items():
        faces = [
            r for r in range(1, 13) if table.recovery.heal_amount(r, hp, max_hp, fr) == amount
        ]
        assert chance == Fraction(len(faces), 12)
    assert table.recovery.revive_chance(fr) == Fraction(
        sum(table.recovery.revives(r, fr) for r in range(1, 13)), 12
    )


@settings(max_examples=50, deadline=None)
@given(first=st.integers(1, 6), second=st.integers(1, 6), seed=st.integers(0, 2**32))
def test_initiative_chance_matches_the_dice_and_ties_rolled_again(first, second, seed):
    bonuses = table.turn.initiative_bonuses([first, second])
    # One round decides unless tied; a tie is rolled again, so the chance is the first
    # side's wins among the decided pairs of faces.
    pairs = [(a, b) for a in range(1, 13) for b in range(1, 13)]
    decided = [(a, b) for a, b in pairs if a + bonuses[0] != b + bonuses[1]]
    wins = [(a, b) for a, b in decided if a + bonuses[0] > b + bonuses[1]]
    assert table.turn.initiative_chance(first, second) == Fraction(len(wins), len(decided))
    rolled = table.turn.roll_initiative([first, second], random.Random(seed))
    last = rolled.rolls[-1]
    assert (last[0] + bonuses[0] > last[1] + bonuses[1]) == (rolled.winner == 0)
