"""Spell attacks' rules (P7, issue #12), in the pure package: a Destruction spell's (or
Dragon Slayer's) outcome tier is a profile of ranged attacks, rolled as ranged attacks by
the caster (RA + the tier's Acc against the target's DF, P2, P3); each tier on both sides
of its boundary, and the targets a cast may attack. No database."""

import re
from fractions import Fraction

import pytest

from dbd_site.errors import Invalid
from play import table
from play.table.attacks import Situation
from tests.play.tables import codes, figure

NOTHING = {
    "blast": None,
    "ignores_cover": False,
    "needs_line_of_sight": True,
    "friends_too": False,
    "caster_too": False,
}


def attacks_of(
    catalogue, spell: str, successes: int, chosen=None
) -> table.spell_attacks.SpellAttacks | None:
    """The profile of a cast with `successes`, at the tier the catalogue gives them (P4)."""
    outcomes = catalogue.spells[spell].outcomes
    tier = table.spells.tier_for(outcomes, successes)
    assert tier is not None
    return table.spell_attacks.spell_attacks(
        catalogue.spells[spell], outcomes.index(tier), successes, chosen
    )


def profile(rof, acc, targets, reach, **flags) -> dict:
    return dict(rate_of_fire=rof, accuracy=acc, targets=targets, reach=reach, **NOTHING | flags)


EVERYONE_5 = 'every figure, the caster too, within 5" of the caster'


# --- the profiles, tier by tier -------------------------------------------------------------


@pytest.mark.parametrize(
    ("spell", "successes", "chosen", "expected"),
    [
        # Seraphic Bolt: 1 ROF 1 Acc +0 10"; 2 range 15"; 3 ROF 2; 4+ Acc +1.
        ("seraphic-bolt", 1, None, profile(1, 0, 1, 'range 10"')),
        ("seraphic-bolt", 2, None, profile(1, 0, 1, 'range 15"')),
        ("seraphic-bolt", 3, None, profile(2, 0, 1, 'range 15"')),
        ("seraphic-bolt", 4, None, profile(2, 1, 1, 'range 15"')),
        ("seraphic-bolt", 6, None, profile(2, 1, 1, 'range 15"')),
        # Infernal Orb: 1-2 ROF 1 Blast 3; 3 ROF 2 Blast 3; 4+ ROF 2 Blast 5.
        ("infernal-orb", 2, None, profile(1, 0, 1, 'range 7"', blast=3)),
        ("infernal-orb", 3, None, profile(2, 0, 1, 'range 7"', blast=3)),
        ("infernal-orb", 4, None, profile(2, 0, 1, 'range 7"', blast=5)),
        # Unlimited Sword Rain: ROF X; from X = 3 it ignores Cover.
        ("unlimited-sword-rain", 1, None, profile(1, 0, 1, 'range 10"')),
        ("unlimited-sword-rain", 2, None, profile(2, 0, 1, 'range 10"')),
        ("unlimited-sword-rain", 3, None, profile(3, 0, 1, 'range 10"', ignores_cover=True)),
        ("unlimited-sword-rain", 5, None, profile(5, 0, 1, 'range 10"', ignores_cover=True)),
        # Unerring Fate's Arrow: 1-2 ROF 1 Acc +1; 3+ no Line of Sight, ignores Cover.
        ("unerring-fates-arrow", 2, None, profile(1, 1, 1, 'range 20"')),
        (
            "unerring-fates-arrow",
            3,
            None,
            profile(1, 1, 1, 'range 20"', ignores_cover=True, needs_line_of_sight=False),
        ),
        # Thunder God's Bolt: X targets, one attack each at Acc +0.
        ("thunder-gods-bolt", 1, None, profile(1, 0, 1, 'range 10", each within 2" of the next')),
        ("thunder-gods-bolt", 3, None, profile(1, 0, 3, 'range 10", each within 2" of the next')),
        # God Or Demon Attack: 1-2 everyone within 5", the caster too; 3 enemies; 4+ 10".
        (
            "god-or-demon-attack",
            2,
            None,
            profile(1, 1, None, EVERYONE_5, friends_too=True, caster_too=True),
        ),
        (
            "god-or-demon-attack",
            3,
            None,
            profile(1, 1, None, 'every enemy within 5" of the caster'),
        ),
        (
            "god-or-demon-attack",
            4,
            None,
            profile(1, 1, None, 'every enemy within 10" of the caster'),
        ),
        # Dragon Slayer: ROF X, Acc and Blast the chosen value; friends are hit too.
        ("dragon-slayer", 1, 6, profile(1, 6, 1, 'range 15"', blast=6, friends_too=True)),
        ("dragon-slayer", 2, 1, profile(2, 1, 1, 'range 15"', blast=1, friends_too=True)),
    ],
)
def test_each_tier_has_its_profile(catalogue, spell, successes, chosen, expected):
    attacks = attacks_of(catalogue, spell, successes, chosen)
    assert attacks == table.spell_attacks.SpellAttacks(
        spell, catalogue.spells[spell].name, **expected
    )


def test_spells_that_attack_are_the_destruction_school_and_dragon_slayer(catalogue):
    attacking = {
        slug for slug, spell in catalogue.spells.items() if table.spell_attacks.attacks_with(spell)
    }
    destruction = {s for s, spell in catalogue.spells.items() if spell.school == "destruction"}
    assert attacking == destruction | {table.figures.DRAGON_SLAYER}
    assert table.spell_attacks.spell_attacks(catalogue.spells["healing-spring"], 0, 1) is None


def test_the_profiles_agree_with_the_rules_text(catalogue):
    """Every ROF, Acc and Blast the catalogue's outcome text names is the profile's."""
    checked = 0
    for slug, spell in catalogue.spells.items():
        if not table.spell_attacks.attacks_with(spell):
            continue
        for index, outcome in enumerate(spell.outcomes):
            for successes in range(outcome.min_successes, outcome.min_successes + 3):
                if outcome.max_successes is not None and successes > outcome.max_successes:
                    break
                attacks = table.spell_attacks.spell_attacks(spell, index, successes, 4)
                text = outcome.effect
                if rof := re.search(r"ROF (\d+|X)", text):
                    want = successes if rof[1] == "X" else int(rof[1])
                    assert attacks.rate_of_fire == want, (slug, successes)
                    checked += 1
                if acc := re.search(r"Acc \+(\d+)", text):
                    assert attacks.accuracy == int(acc[1]), (slug, successes)
                    checked += 1
                if blast := re.search(r"Blast (\d+)", text):
                    assert attacks.blast == int(blast[1]), (slug, successes)
                    checked += 1
    assert checked >= 30


def test_the_profile_in_words(catalogue):
    assert attacks_of(catalogue, "seraphic-bolt", 4).words() == (
        'one target, range 15": ROF 2, Acc +1'
    )
    assert attacks_of(catalogue, "unerring-fates-arrow", 3).words() == (
        'one target, range 20": ROF 1, Acc +1, ignores Cover, needs no Line of Sight'
    )
    assert attacks_of(catalogue, "thunder-gods-bolt", 2).words() == (
        'up to 2 targets, range 10", each within 2" of the next: ROF 1, Acc +0'
    )
    assert attacks_of(catalogue, "god-or-demon-attack", 1).words() == (
        f"one attack on {EVERYONE_5}: ROF 1, Acc +1, friends may be hit"
    )
    assert attacks_of(catalogue, "dragon-slayer", 3, 2).words() == (
        'one target, range 15": ROF 3, Acc +2, Blast 2, friends may be hit'
    )


# --- the attack roll: RA and Acc, the printed modifiers --------------------------------------


def test_a_spell_attack_rolls_ra_plus_acc_against_ranged_df(catalogue):
    caster = figure("Caster", RA=2, CA=4)
    target = figure("Target", defence={"melee": 8, "ranged": 10})
    plan = table.spell_attacks.plan_spell_attack(
        caster, target, attacks_of(catalogue, "seraphic-bolt", 4)
    )
    # 1d12 + RA 2 + Acc 1 against the ranged DF 10: 7 or more hits.
    assert (plan.kind, plan.statistic, plan.statistic_value, plan.to_hit) == ("ranged", "RA", 2, 1)
    assert (plan.target_df, plan.modified_df, plan.needed) == (10, 10, 7)
    assert plan.modifiers == (table.dice.Modifier("to-hit", 1, "Seraphic Bolt Acc"),)
    assert (plan.rate_of_fire, plan.actions, plan.blast) == (2, 0, None)
    assert plan.chance_to_hit == Fraction(6, 12)
    # Each die: Success Rating 0..5 on 7..12; expected (0+1+2+3+4+5)/12; two dice.
    assert plan.expected_damage_per_use == 2 * Fraction(15, 12)
    assert plan.notes == ('Seraphic Bolt: one target, range 15": ROF 2, Acc +1.',)


def test_a_spell_attack_takes_the_ranged_modifiers_but_never_no_ranged_weapon(catalogue):
    caster = figure("Caster", RA=3)
    target = figure("Target", DF=9)
    situation = Situation(
        obscured="partial", rear_arc=True, movement="none", target_in_melee=True,
        statistic_penalty=1, target_fortified=True,
    )  # fmt: skip
    plan = table.spell_attacks.plan_spell_attack(
        caster, target, attacks_of(catalogue, "infernal-orb", 4), situation
    )
    assert [m.words() for m in plan.modifiers] == [
        "Target Fortified: +2 DF",
        "Target Partially Obscured: +1 DF",
        "Attacker in target's Rear Arc: -2 DF",
        "Attacker Did Not Move: -1 DF",
        "Target in Melee: +3 DF",
        "Sudden Fatigue: -1 statistic",
    ]
    # DF 9 + 2 (Fortify, max 16) = 11; +1 -2 -1 +3 = 12; RA 3 - 1 = 2: needs 10.
    assert (plan.target_df, plan.modified_df, plan.statistic_value, plan.needed) == (11, 12, 2, 10)
    assert plan.blast == 5


@pytest.mark.parametrize(("successes", "modified_df"), [(2, 10), (3, 8)])
def test_cover_counts_until_the_spell_ignores_it(catalogue, successes, modified_df):
    """Unlimited Sword Rain ignores Cover from X = 3: Obscured +2 then nothing."""
    attacks = attacks_of(catalogue, "unlimited-sword-rain", successes)
    plan = table.spell_attacks.plan_spell_attack(
        figure("Caster"), figure("Target", DF=8), attacks, Situation(obscured="significant")
    )
    assert plan.modified_df == modified_df
    if attacks.ignores_cover:
        assert plan.notes[-1] == "Unlimited Sword Rain ignores Cover: no Obscured modifier."
        assert plan.modifiers == ()
    else:
        assert plan.modifiers == (table.dice.Modifier("DF", 2, "Target Significantly Obscured"),)


def test_weapon_and_melee_ticks_are_refused_all_at_once(catalogue):
    situation = Situation(
        charged=True, dual_wield=True, quickdraw=True, double_range=True,
        target_cannot_see_attacker=True, mighty_attack=True, non_charge_move=True,
        opponents_in_melee=2, to_hit_bonus=1, movement="ran",
    )  # fmt: skip
    with pytest.raises(Invalid) as error:
        table.spell_attacks.plan_spell_attack(
            figure("Caster"),
            figure("Target"),
            attacks_of(catalogue, "seraphic-bolt", 1),
            situation,
        )
    assert codes(error) == [
        ("/situation/charged", "situation-not-applicable"),
        ("/situation/non_charge_move", "situation-not-applicable"),
        ("/situation/mighty_attack", "situation-not-applicable"),
        ("/situation/target_cannot_see_attacker", "situation-not-applicable"),
        ("/situation/double_range", "situation-not-applicable"),
        ("/situation/quickdraw", "situation-not-applicable"),
        ("/situation/dual_wield", "situation-not-applicable"),
        ("/situation/opponents_in_melee", "situation-not-applicable"),
        ("/situation/to_hit_bonus", "situation-not-applicable"),
        ("/situation/movement", "skill-missing"),
    ]


def test_fire_on_the_move_lets_a_caster_run(catalogue):
    runner = figure("Caster", RA=3, skills=[table.figures.FIRE_ON_THE_MOVE])
    plan = table.spell_attacks.plan_spell_attack(
        runner,
        figure("Target"),
        attacks_of(catalogue, "seraphic-bolt", 1),
        Situation(movement="ran"),
    )
    assert plan.statistic_value == 2
    assert plan.modifiers == (table.dice.Modifier("statistic", -1, "Fire on the Move (ran)"),)


@pytest.mark.parametrize(("roll", "hit", "damage"), [(8, False, 0), (9, True, 0), (12, True, 3)])
def test_a_spell_attack_resolves_as_a_ranged_attack(catalogue, roll, hit, damage):
    """RA 1 against DF 10: 9 is Success Rating 0 (Dodge for Cover, no damage), 8 a miss."""
    plan = table.spell_attacks.plan_spell_attack(
        figure("Caster", RA=1), figure("Target", DF=10), attacks_of(catalogue, "seraphic-bolt", 1)
    )
    result = table.attacks.resolve_attack(plan, roll)
    assert (result.hit, result.damage) == (hit, damage)


# --- whom a cast may attack ----------------------------------------------------------------


def three_figures() -> table.state.BattleState:
    """The caster "c" and a friend "f" on side 0, an enemy "e" on side 1."""
    return table.state.new_state(
        {"c": (0, figure("C")), "f": (0, figure("F")), "e": (1, figure("E"))}
    )


@pytest.mark.parametrize(
    ("spell", "successes", "allowed"),
    [
        ("seraphic-bolt", 1, {"e"}),
        ("god-or-demon-attack", 2, {"c", "f", "e"}),
        ("god-or-demon-attack", 3, {"e"}),
        ("dragon-slayer", 1, {"f", "e"}),
    ],
)
def test_friends_and_the_caster_only_where_the_spell_says(catalogue, spell, successes, allowed):
    state = three_figures()
    attacks = attacks_of(catalogue, spell, successes, 1)
    table.spell_attacks.open_spell_attacks(state, "c", spell, 0, successes, 1)
    may = {
        fid
        for fid in state["figures"]
        if not table.spell_attacks.spell_target_problems(state, fid, attacks)
    }
    assert may == allowed


def test_target_problems_are_all_said(catalogue):
    state = three_figures()
    attacks = attacks_of(catalogue, "seraphic-bolt", 1)
    assert [p.code for p in table.spell_attacks.spell_target_problems(state, "e", attacks)] == [
        "not-found"
    ]
    table.spell_attacks.open_spell_attacks(state, "c", "seraphic-bolt", 0, 1, None)
    assert [p.code for p in table.spell_attacks.spell_target_problems(state, "c", attacks)] == [
        "same-side"
    ]
    assert [p.code for p in table.spell_attacks.spell_target_problems(state, "f", attacks)] == [
        "same-side"
    ]
    state["figures"]["e"]["status"] = table.figures.OUT_OF_ACTION
    state["spell_attacks"]["attacked"].append("e")
    assert [p.code for p in table.spell_attacks.spell_target_problems(state, "e", attacks)] == [
        "already-attacked",
        "figure-not-active",
    ]


def test_a_cast_closes_when_its_targets_are_used_up(catalogue):
    state = three_figures()
    state["figures"]["x"] = dict(state["figures"]["e"])
    bolt = attacks_of(catalogue, "thunder-gods-bolt", 2)
    table.spell_attacks.open_spell_attacks(state, "c", "thunder-gods-bolt", 0, 2, None)
    assert table.spell_attacks.spend_spell_attack(state, "e", bolt) == 1
    assert table.spell_attacks.pending_spell_attacks(state)["attacked"] == ["e"]
    assert table.spell_attacks.spend_spell_attack(state, "x", bolt) == 0
    assert table.spell_attacks.pending_spell_attacks(state) is None


def test_a_radius_stays_open_until_the_activation_or_the_turn_ends(catalogue):
    state = three_figures()
    blast = attacks_of(catalogue, "god-or-demon-attack", 3)
    table.spell_attacks.open_spell_attacks(state, "c", "god-or-demon-attack", 1, 3, None)
    assert table.spell_attacks.spend_spell_attack(state, "e", blast) is None
    assert table.spell_attacks.pending_spell_attacks(state) is not None
    table.state.end_activation(state, "c")
    assert table.spell_attacks.pending_spell_attacks(state) is None
    table.spell_attacks.open_spell_attacks(state, "c", "god-or-demon-attack", 1, 3, None)
    table.turn.next_turn(state)
    assert table.spell_attacks.pending_spell_attacks(state) is None
