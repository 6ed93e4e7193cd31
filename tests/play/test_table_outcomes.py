"""The spell, skill and item outcomes `play.table` applies (or hands to the players):
Protective Wall, Earth Ward, Dispel Magic, Angelic Healing, Blast and Reach. Each at its
tier or rule boundary, both sides."""

import itertools
from fractions import Fraction

import pytest

from play import table
from play.table.attacks import Situation
from tests.play.tables import figure, plan


def state_of(**markers_by_figure) -> table.state.BattleState:
    """Two figures: "a" (side 0, the attacker) and "t" (side 1, the target), HP 10."""
    state = table.state.new_state({"a": (0, figure("A")), "t": (1, figure("T"))})
    for fid, markers in markers_by_figure.items():
        state["figures"][fid]["markers"] = dict(markers)
    return state


def hit(damage: int, success_rating: int | None = None) -> table.damage.AttackResult:
    rating = damage if success_rating is None else success_rating
    return table.damage.AttackResult(12, 12, rating, rating >= 0, damage, "")


def cast_with(catalogue, spell: str, successes: int):
    caster = figure("Caster", CA=5, spells=[spell])
    spell_plan = table.spells.plan_spell(caster, catalogue.spells[spell])
    dice = [12] * successes + [1] * (spell_plan.dice - successes)
    return spell_plan, table.spells.cast(spell_plan, dice)


# --- Earth Ward and Protective Wall: the tiers place markers ------------------------------


@pytest.mark.parametrize(
    ("successes", "placed"),
    [(0, None), (1, None), (2, ("earth-ward", 1)), (3, ("earth-ward", 2)), (5, ("earth-ward", 2))],
)
def test_earth_ward_tiers(catalogue, successes, placed):
    """2 successes: one marker; 3+: two; 1 is no effect."""
    spell_plan, result = cast_with(catalogue, "earth-ward", successes)
    assert table.spells.spell_markers("earth-ward", spell_plan, result) == placed


@pytest.mark.parametrize(
    ("successes", "placed", "words"),
    [
        (0, None, ""),
        (1, ("wall", 1), ""),
        (3, ("wall", 2), ""),
        (4, ("wall", 3), "The three Wall markers may be shared among any number of targets."),
    ],
)
def test_protective_wall_tiers(catalogue, successes, placed, words):
    spell_plan, result = cast_with(catalogue, "protective-wall", successes)
    assert table.spells.spell_markers("protective-wall", spell_plan, result) == placed
    tier = None if result.tier is None else spell_plan.outcomes.index(result.tier)
    assert table.spells.spell_at_the_table("protective-wall", tier) == words


# --- ... and act the next time the figure sustains damage ----------------------------------


@pytest.mark.parametrize(
    ("damage", "markers", "expected"),
    [
        (0, {"earth-ward": 1, "wall": 2}, table.damage.Wards(0, False, 0)),  # no damage: kept
        (1, {}, table.damage.Wards(1, False, 0)),
        (1, {"earth-ward": 1}, table.damage.Wards(0, True, 0)),  # halved, rounded down
        (4, {"earth-ward": 2}, table.damage.Wards(2, True, 0)),  # one marker a time
        (5, {"earth-ward": 1}, table.damage.Wards(2, True, 0)),
        (5, {"wall": 1}, table.damage.Wards(5, False, 1)),
        (5, {"wall": 3, "earth-ward": 1}, table.damage.Wards(2, True, 3)),
        (5, {"fortify": 1}, table.damage.Wards(5, False, 0)),
    ],
)
def test_wards(damage, markers, expected):
    assert table.damage.wards(damage, markers) == expected


def test_earth_ward_halves_one_hit_and_spends_one_marker():
    state = state_of(t={"earth-ward": 2})
    done = table.damage.apply_hit(state, "a", "t", hit(5))
    assert state["figures"]["t"]["hp"] == 8
    assert state["figures"]["t"]["markers"] == {"earth-ward": 1}
    assert done.words("A") == "Earth Ward halves 5 damage to 2."
    table.damage.apply_hit(state, "a", "t", hit(3))
    assert state["figures"]["t"]["hp"] == 7
    assert state["figures"]["t"]["markers"] == {}


@pytest.mark.parametrize("result", [hit(0), hit(-1), hit(0, success_rating=0)])
def test_wards_wait_for_damage(result):
    state = state_of(t={"earth-ward": 1, "wall": 2})
    done = table.damage.apply_hit(state, "a", "t", result)
    assert state["figures"]["t"]["markers"] == {"earth-ward": 1, "wall": 2}
    assert state["figures"]["a"]["hp"] == 10
    assert (done.events, done.words("A")) == ([], "")


def test_wards_do_not_act_for_an_unconscious_figure():
    state = state_of(t={"wall": 2})
    state["figures"]["t"].update(hp=0, status="unconscious")
    done = table.damage.apply_hit(state, "a", "t", hit(3))
    assert state["figures"]["t"]["markers"] == {"wall": 2}
    assert done.events == [{"figure": "t", "status": "out-of-action", "by": "a"}]


def test_a_wall_reflects_one_damage_per_marker_onto_the_attacker():
    state = state_of(t={"wall": 3})
    done = table.damage.apply_hit(state, "a", "t", hit(4))
    assert state["figures"]["t"]["hp"] == 6
    assert state["figures"]["t"]["markers"] == {}
    assert state["figures"]["a"]["hp"] == 7
    assert done.words("A") == "Wall: 3 markers discarded; A suffers 3 damage."
    assert done.events == []


def test_a_wall_may_knock_the_attacker_unconscious():
    state = state_of(t={"wall": 2})
    state["figures"]["a"]["hp"] = 2
    done = table.damage.apply_hit(state, "a", "t", hit(1))
    assert state["figures"]["a"]["status"] == "unconscious"
    assert done.events == [{"figure": "a", "status": "unconscious", "by": None}]
    assert done.words("A") == "Wall: 2 markers discarded; A suffers 2 damage."


def test_wards_act_on_what_friendship_leaves_the_target():
    state = table.state.new_state(
        {"a": (0, figure("A")), "t": (1, figure("T")), "f": (1, figure("F", FR=3))}
    )
    state["figures"]["t"]["markers"] = {"earth-ward": 1}
    friend = [("f", table.damage.Recipient("F", 3, 3))]
    done = table.damage.apply_attack(
        state, figure("A"), "a", "t", [hit(5)], None, ranged=True, recipients=friend
    )
    assert state["figures"]["t"]["hp"] == 9  # keeps 2, halved to 1
    assert state["figures"]["f"]["hp"] == 7
    assert (done.words, done.lost) == (["Earth Ward halves 2 damage to 1."], 1)
    state["figures"]["t"]["markers"] = {"earth-ward": 1}
    table.damage.apply_attack(
        state, figure("A"), "a", "t", [hit(3)], None, ranged=True, recipients=friend
    )
    assert state["figures"]["t"]["markers"] == {"earth-ward": 1}  # it sustained nothing


# --- Dispel Magic ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markers", "tier", "removed"),
    [
        ({}, 0, []),
        ({"wall": 2}, 0, ["wall"]),
        ({"wall": 2, "inspire": 1}, 0, None),  # the players choose which effect
        ({"wall": 2, "inspire": 1}, 1, ["inspire", "wall"]),
        ({}, 1, []),
    ],
)
def test_dispel_magic(markers, tier, removed):
    assert table.spells.dispelled(markers, tier) == removed


@pytest.mark.parametrize(("successes", "tier"), [(0, None), (1, 0), (2, 0), (3, 1), (6, 1)])
def test_dispel_magic_tiers(catalogue, successes, tier):
    spell_plan, result = cast_with(catalogue, "dispel-magic", successes)
    assert (None if result.tier is None else spell_plan.outcomes.index(result.tier)) == tier


# --- Angelic Healing ----------------------------------------------------------------------


def test_angelic_healing_rerolls_only_what_failed():
    angel = figure("Angel", skills=["support/angelic-healing"])
    plain = figure("Plain")
    assert table.recovery.rerolls_heal(angel, 0) is True
    assert table.recovery.rerolls_heal(angel, 1) is False
    assert table.recovery.rerolls_heal(plain, 0) is False
    assert table.recovery.rerolls_revive(angel, False) is True
    assert table.recovery.rerolls_revive(angel, True) is False
    assert table.recovery.rerolls_revive(plain, False) is False


@pytest.mark.parametrize("fr", [0, 1, 5, 12])
def test_revive_chance_with_a_reroll_is_counted(fr):
    pairs = list(itertools.product(table.dice.FACES, repeat=2))
    revived = sum(
        1 for a, b in pairs if table.recovery.revives(a, fr) or table.recovery.revives(b, fr)
    )
    assert table.recovery.revive_chance(fr, reroll=True) == Fraction(revived, len(pairs))
    assert table.recovery.revive_chance(fr) == Fraction(max(0, min(12, fr)), 12)


@pytest.mark.parametrize(("hp", "max_hp", "fr"), [(3, 10, 5), (9, 10, 5), (10, 10, 5), (0, 12, 2)])
def test_heal_odds_with_a_reroll_are_counted(hp, max_hp, fr):
    pairs = list(itertools.product(table.dice.FACES, repeat=2))
    counted: dict[int, Fraction] = {}
    for a, b in pairs:
        amount = table.recovery.heal_amount(a, hp, max_hp, fr) or table.recovery.heal_amount(
            b, hp, max_hp, fr
        )
        counted[amount] = counted.get(amount, Fraction(0)) + Fraction(1, len(pairs))
    odds = table.recovery.heal_odds(hp, max_hp, fr, reroll=True)
    assert {a: c for a, c in odds.items() if c} == counted
    assert sum(odds.values()) == 1


# --- Blast and Reach: words for the players -------------------------------------------------


def test_blast_says_who_pushes_which_way(catalogue):
    thrower = figure("T", RA=3, equipment=["grenades-bombs"])
    grenade = plan(catalogue, thrower, figure("D", DF=8), "ranged", "grenades-bombs")
    assert grenade.blast == 2
    assert table.attacks.resolve_attack(grenade, 12).words.endswith(
        'Blast 2: push every figure within 2" of the target 2" (the firer picks the direction).'
    )
    assert table.attacks.resolve_attack(grenade, 1).words == (
        'Miss: nothing happens. Blast 2: push every figure within 2" of the target 2" '
        "(the defender picks the direction)."
    )
    pistol = plan(
        catalogue, figure("P", equipment=["light-pistol"]), figure("D"), "ranged", "light-pistol"
    )
    assert pistol.blast is None
    assert "Blast" not in table.attacks.resolve_attack(pistol, 12).words


@pytest.mark.parametrize(
    ("weapon", "reach"), [("polearm", 2), ("great-weapon", 1), ("hand-weapon", None)]
)
def test_reach_is_in_the_notes(catalogue, weapon, reach):
    attack = plan(catalogue, figure(equipment=[weapon]), figure("D"), "melee", weapon, Situation())
    reach_notes = [n for n in attack.notes if n.startswith("Reach")]
    expected = [] if reach is None else [table.attacks.reach_words(reach)]
    assert reach_notes == expected
    if reach is not None:
        assert f'up to {reach}" away' in reach_notes[0]


# --- what the players are told -------------------------------------------------------------


def test_the_players_part_of_a_spell():
    assert table.spells.spell_at_the_table("soul-bond", None) == ""
    assert table.spells.spell_at_the_table("soul-bond", 0) == (
        "The target may transfer damage to the caster at any distance (Friendship)."
    )
    assert table.spells.spell_at_the_table("soul-bond", 1) == (
        "The target may transfer damage to the caster at any distance (Friendship). "
        "Choose an additional target and give it a Soul Bond marker."
    )
    assert table.spells.spell_at_the_table("healing-spring", 1) == ""  # the site applies it all
    assert table.spells.spell_at_the_table("mana-obliteration", 0) == ""
    assert "forgets one spell" in table.spells.spell_at_the_table("mana-obliteration", 1)


def test_every_spell_and_item_is_applied_or_told(catalogue):
    """The audit in docs/play.md: no spell of the catalogue is left out."""
    applied = {
        *table.spells.SPELL_MARKERS,
        table.spells.HEALING_SPRING,
        table.spells.REVIVING_BREATH,
        table.spells.MANA_OBLITERATION,
        table.spells.DISPEL_MAGIC,
        *(
            slug
            for slug, spell in catalogue.spells.items()
            if table.spell_attacks.attacks_with(spell)
        ),
    }
    told = set(table.spells.SPELL_AT_THE_TABLE)
    assert set(catalogue.spells) - applied - told == set()
    assert set(table.state.ONE_USE_ITEMS) == set(table.state.ITEM_AT_THE_TABLE)
