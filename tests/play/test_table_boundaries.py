"""The table's limits, each on both sides of the line its rule draws (issue #33), in the
pure package and without a database: HP lost at 0, Heal's and Revive's refusals and
Angelic Healing's re-roll, the plain roll's 1 to 12 dice, a declared change's HP and
marker counts, the activation a figure's first action ends (P8), whose activation it is,
a spell's actions, Healing Spring's d3, Anathema Aura, and Eagle Eye and Fortify on a
spell's attacks (P7). Each answer is asserted whole: the outcome's words and details,
every problem (pointer, code and message) and the state left behind.

States are read back from JSON as the service reads them (`tables.decoded`): a status
compared by identity instead of by value would fail here as it would in a battle."""

from fractions import Fraction

import pytest

from dbd_site.errors import Invalid, Problem
from play import table
from play.table.attacks import Context, Situation
from play.table.figures import (
    ACTIVE,
    ANATHEMA_AURA,
    ANGELIC_HEALING,
    MEDICAL_KIT,
    OUT_OF_ACTION,
    UNCONSCIOUS,
)
from play.table.state import Change, Roll
from tests.play.tables import Battle, decoded, figure, problems

# --- HP lost and damage taken (P3) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("hp", "status", "amount", "after"),
    [
        (5, ACTIVE, 0, (5, ACTIVE)),  # nothing lost: nothing changes
        (0, ACTIVE, 0, (0, ACTIVE)),  # ... even at 0 HP declared active (P2)
        (5, ACTIVE, -2, (5, ACTIVE)),
        (5, ACTIVE, 1, (4, ACTIVE)),
        (1, ACTIVE, 1, (0, UNCONSCIOUS)),  # "At 0 HP a figure is Unconscious"
        (2, ACTIVE, 5, (0, UNCONSCIOUS)),  # never below 0
        (0, UNCONSCIOUS, 2, (0, UNCONSCIOUS)),  # lost HP never puts a figure Out of Action
        (0, OUT_OF_ACTION, 2, (0, OUT_OF_ACTION)),
    ],
)
def test_hp_lost_outside_an_attack_leaves_a_figure_unconscious_at_0(hp, status, amount, after):
    assert table.damage.lose_hp(hp, decoded(status), amount) == after


@pytest.mark.parametrize(
    ("hp", "status", "damage", "success_rating", "after"),
    [
        (3, ACTIVE, 2, 2, (1, ACTIVE)),
        (3, ACTIVE, 3, 3, (0, UNCONSCIOUS)),
        (0, UNCONSCIOUS, 0, 0, (0, UNCONSCIOUS)),  # P3: Success Rating 0 leaves it there
        (0, UNCONSCIOUS, 1, 1, (0, OUT_OF_ACTION)),  # ... 1 or more: Out of Action
        (3, OUT_OF_ACTION, 2, 2, (3, OUT_OF_ACTION)),  # nothing more happens to it
    ],
)
def test_a_hit_on_a_stored_status(hp, status, damage, success_rating, after):
    assert table.damage.take_damage(hp, decoded(status), damage, success_rating) == after


# --- Heal and Revive ("Other Actions": Medical Kit; Angelic Healing) -------------------------


def ward(catalogue, *, kit=True, angel=False, fr=5):
    """Hal (side 0: a Medical Kit unless `kit` is False; Angelic Healing if `angel`), his
    friend Fay (FR `fr`, HP 10), and Eli on the other side."""
    return Battle(
        catalogue,
        h=(
            0,
            figure(
                "Hal",
                equipment=[MEDICAL_KIT] if kit else [],
                skills=[ANGELIC_HEALING] if angel else [],
            ),
        ),
        f=(0, figure("Fay", FR=fr)),
        e=(1, figure("Eli")),
    )


@pytest.mark.parametrize(
    ("faces", "words", "hp"),
    [
        # 9 beats HP 4 by 5, up to Hal's FR 5: the first die heals, so it stands.
        ((9,), "Hal heals Fay: rolled 9 against HP 4; Fay recovers 5 HP.", 9),
        # 3 heals nothing: Angelic Healing rolls again and the second die stands.
        (
            (3, 9),
            "Hal heals Fay: rolled 3, re-rolled 9 (Angelic Healing) against HP 4; "
            "Fay recovers 5 HP.",
            9,
        ),
        (
            (4, 2),
            "Hal heals Fay: rolled 4, re-rolled 2 (Angelic Healing) against HP 4; "
            "Fay recovers 0 HP.",
            4,
        ),
    ],
)
def test_angelic_healing_rolls_a_heal_that_heals_nothing_again(catalogue, faces, words, hp):
    b = ward(catalogue, angel=True)
    b["f"]["hp"] = 4
    healed = b(table.recovery.heal, table.recovery.Recovery("h", "f"), faces=faces)
    assert (healed.words, healed.detail, healed.events) == (
        words,
        {"healer": "h", "target": "f", "amount": hp - 4},
        [],
    )
    assert (b["f"]["hp"], b.last.dice.rolled) == (hp, list(faces))


@pytest.mark.parametrize(
    ("kit", "status", "expected"),
    [
        (
            False,
            UNCONSCIOUS,
            Problem("/figure", "needs-equipment", "Reviving needs a Medical Kit."),
        ),
        (True, ACTIVE, Problem("/target", "figure-not-unconscious", "Fay is not Unconscious.")),
        (
            True,
            OUT_OF_ACTION,
            Problem("/target", "figure-not-unconscious", "Fay is not Unconscious."),
        ),
    ],
)  # fmt: skip
def test_revive_needs_a_medical_kit_and_an_unconscious_target(catalogue, kit, status, expected):
    b = ward(catalogue, kit=kit)
    b["f"]["status"] = status
    before = decoded(b.state)
    with pytest.raises(Invalid) as error:
        b(table.recovery.revive, table.recovery.Recovery("h", "f"), faces=(1,))
    assert problems(error) == [expected]
    assert b.state == before  # refused before Hal's activation begins


@pytest.mark.parametrize(
    ("face", "revived", "words"),
    [
        (5, True, "Hal tries to revive Fay: rolled 5 against FR 5; revived with 1 HP."),
        (6, False, "Hal tries to revive Fay: rolled 6 against FR 5; still Unconscious."),
    ],
)
def test_revive_wakes_an_unconscious_friend_at_or_under_its_fr(catalogue, face, revived, words):
    b = ward(catalogue)
    b["f"].update(hp=0, status=UNCONSCIOUS)
    done = b(table.recovery.revive, table.recovery.Recovery("h", "f"), faces=(face,))
    events = [{"figure": "f", "status": ACTIVE, "by": None}] if revived else []
    assert (done.words, done.detail, done.events) == (
        words,
        {"reviver": "h", "target": "f", "revived": revived},
        events,
    )
    assert (b["f"]["hp"], b["f"]["status"]) == ((1, ACTIVE) if revived else (0, UNCONSCIOUS))
    assert (b.state["activating"], b["h"]["activations"]) == ("h", 1)


@pytest.mark.parametrize(
    ("fr", "once"),
    [(-1, 0), (0, 0), (1, Fraction(1, 12)), (11, Fraction(11, 12)), (12, 1), (13, 1)],
)
def test_a_revives_chance_is_0_to_1_whatever_the_fr(fr, once):
    assert table.recovery.revive_chance(fr) == once
    assert table.recovery.revive_chance(fr, reroll=True) == 1 - (1 - once) ** 2


# --- a plain roll and a declared change (P2) -------------------------------------------------


@pytest.mark.parametrize("count", [1, 12])
def test_a_plain_roll_takes_1_to_12_dice(catalogue, count):
    b = ward(catalogue)
    faces = tuple(range(1, count + 1))
    rolled = b(table.state.roll, Roll(count, "  the  objective "), faces=faces)
    assert (rolled.words, rolled.detail, rolled.events) == (
        f"Rolled {', '.join(map(str, faces))} for the objective.",
        {"reason": "the objective"},
        [],
    )


@pytest.mark.parametrize("count", [0, 13, -1, True, "2"])
def test_a_plain_roll_of_more_than_12_or_fewer_than_1_is_refused(catalogue, count):
    with pytest.raises(Invalid) as error:
        ward(catalogue)(table.state.roll, Roll(count))
    assert problems(error) == [Problem("/count", "invalid", "Roll 1 to 12 dice.")]


@pytest.mark.parametrize("hp", [0, 1, 10])
def test_a_declared_hp_is_0_to_the_figures_maximum(catalogue, hp):
    b = ward(catalogue)
    changed = b(table.state.change, Change("f", hp=hp))
    assert (changed.words, changed.detail, changed.events) == (
        f"Fay: HP {hp} of 10.",
        {"figure": "f"},
        [],
    )
    assert (b["f"]["hp"], b["f"]["status"]) == (hp, ACTIVE)  # the status is declared apart


@pytest.mark.parametrize("hp", [-1, 11, True])
def test_a_declared_hp_below_0_or_above_the_maximum_is_refused(catalogue, hp):
    with pytest.raises(Invalid) as error:
        ward(catalogue)(table.state.change, Change("f", hp=hp))
    assert problems(error) == [Problem("/hp", "invalid", "HP is 0 to 10.")]


def test_a_declared_change_adds_or_takes_off_up_to_9_markers(catalogue):
    b = ward(catalogue)
    added = b(table.state.change, Change("f", markers={"fortify": 9}))
    assert (added.words, b["f"]["markers"], b["f"]["lapses"]) == (
        "Fay: +9 Fortify.",
        {"fortify": 9},
        {"fortify": 1},  # P8: it lapses as Fay's next activation begins
    )
    taken = b(table.state.change, Change("f", markers={"fortify": -9}))
    assert (taken.words, b["f"]["markers"], b["f"]["lapses"]) == ("Fay: -9 Fortify.", {}, {})


@pytest.mark.parametrize("count", [10, -10, True])
def test_more_than_9_markers_at_once_are_refused(catalogue, count):
    b = ward(catalogue)
    with pytest.raises(Invalid) as error:
        b(table.state.change, Change("f", markers={"inspire": 1, "fortify": count}))
    assert problems(error) == [Problem("/markers/fortify", "invalid", "Add -9 to 9 markers.")]
    assert b["f"]["markers"] == {}


# --- activations (P8) and whose turn it is ("Activations & Initiative") ---------------------


def test_a_figures_first_action_ends_the_activation_under_way(catalogue):
    """P8: one figure activates at a time; Ann's Extreme Speed lasts for her next
    activation, so it lapses as Bo's first action ends hers."""
    b = Battle(
        catalogue,
        a=(0, figure("Ann", RA=3, equipment=["light-pistol"])),
        o=(0, figure("Bo", RA=3, equipment=["light-pistol"])),
        e=(1, figure("Eli", DF=10)),
    )
    b(table.state.change, Change("a", markers={"extreme-speed": 2}))
    b.attack("a", "e", "ranged", "light-pistol", 2)
    assert (b.state["activating"], b["a"]["activated"], b["a"]["markers"]) == (
        "a",
        False,
        {"extreme-speed": 2},
    )
    second = b.attack("o", "e", "ranged", "light-pistol", 2)
    assert second.words == (
        "The activation under way ends: Extreme Speed lapsed. "
        "Bo attacks Eli (ranged, Light Pistol; needs 7+): rolled 2. Miss: nothing happens."
    )
    assert (b.state["activating"], b["a"]["activated"], b["a"]["markers"]) == ("o", True, {})
    assert (b["o"]["activated"], b["a"]["activations"], b["o"]["activations"]) == (False, 1, 1)


def sides_of(winner: int, **figures) -> table.state.BattleState:
    """Figures by id: (side, activated, status); initiative won by `winner`."""
    state = table.state.new_state(
        {fid: (side, figure(fid)) for fid, (side, _, _) in figures.items()}
    )
    for fid, (_, activated, status) in figures.items():
        state["figures"][fid].update(activated=activated, status=status)
    table.turn.set_initiative(state, table.turn.Initiative(((3, 9),), (0, 0), winner))
    return decoded(state)


@pytest.mark.parametrize(
    ("winner", "figures", "side"),
    [
        # The winner activates first, then the sides alternate.
        (1, {"a": (0, False, ACTIVE), "e": (1, False, ACTIVE)}, 1),
        (0, {"a": (0, False, ACTIVE), "e": (1, False, ACTIVE)}, 0),
        (1, {"a": (0, False, ACTIVE), "e": (1, True, ACTIVE), "f": (1, False, ACTIVE)}, 0),
        (1, {"a": (0, True, ACTIVE), "e": (1, True, ACTIVE), "f": (1, False, ACTIVE)}, 1),
        # A side with no figure left to activate is skipped: the other activates the rest.
        (1, {"a": (0, False, ACTIVE), "b": (0, False, ACTIVE), "e": (1, True, ACTIVE)}, 0),
        # An Unconscious or Out of Action figure is not one left to activate.
        (
            1,
            {"a": (0, False, ACTIVE), "e": (1, False, UNCONSCIOUS),
             "f": (1, False, OUT_OF_ACTION)},
            0,
        ),
        # Everyone has activated, or nobody is left who can: nobody's.
        (0, {"a": (0, True, ACTIVE), "e": (1, True, ACTIVE)}, None),
        (0, {"a": (0, False, UNCONSCIOUS), "e": (1, True, ACTIVE)}, None),
    ],
)  # fmt: skip
def test_whose_activation_it_is(winner, figures, side):
    assert table.turn.acting_side(sides_of(winner, **figures), 2) == side


def test_nobodys_activation_before_the_initiative_roll():
    state = table.state.new_state({"a": (0, figure("A")), "e": (1, figure("E"))})
    assert table.turn.acting_side(state, 2) is None


# --- spells (P4) -----------------------------------------------------------------------------


def test_a_spell_is_one_action_and_dragon_slayer_two(catalogue):
    """ "Dragon Slayer ... takes two actions"; every other spell, one."""
    caster = figure("Ava", CA=3, spells=["inspire", "dragon-slayer"])
    inspire = table.spells.plan_spell(caster, catalogue.spells["inspire"])
    assert inspire == table.spells.SpellPlan(
        spell="inspire",
        spell_name="Inspire",
        dice=3,
        difficulty=6,
        bonus_successes=0,
        modifiers=(),
        outcomes=catalogue.spells["inspire"].outcomes,
        actions=1,
    )
    slayer = table.spells.plan_spell(caster, catalogue.spells["dragon-slayer"], chosen=3)
    assert (slayer.dice, slayer.difficulty, slayer.actions) == (3, 9, 2)


@pytest.mark.parametrize(
    ("tier", "d3", "rolls_d3", "hp"),
    [(None, None, False, None), (0, None, False, 2), (1, 1, True, 3), (1, 3, True, 5)],
)
def test_healing_spring_is_2_hp_then_1d3_plus_2_from_3_successes(tier, d3, rolls_d3, hp):
    """ "1-2 Successes: The target recovers 2HP; 3+ Successes: ... 1d3+2HP"."""
    assert table.spells.healing_spring_d3(tier) is rolls_d3
    if tier is not None:
        assert table.spells.healing_spring_hp(tier, d3) == hp


def spring(catalogue):
    return Battle(
        catalogue,
        c=(0, figure("Cleo", CA=4, spells=["healing-spring", "invigorate"])),
        f=(0, figure("Fay")),
        e=(1, figure("Eli")),
    )


@pytest.mark.parametrize(
    ("faces", "words", "hp"),
    [
        (
            (7, 7, 1, 1),
            "Cleo casts Healing Spring (Difficulty 7, 4 dice) on Fay. Rolled 7, 7, 1, 1: "
            "2 successes. The target recovers 2 HP. Fay recovers 2 HP.",
            5,
        ),
        (
            (7, 7, 7, 1, 2),
            "Cleo casts Healing Spring (Difficulty 7, 4 dice) on Fay. Rolled 7, 7, 7, 1: "
            "3 successes. The target recovers 1d3+2 HP. Fay recovers 4 HP (2 + 2 on the d3).",
            7,
        ),
    ],
)
def test_healing_spring_rolls_its_d3_from_3_successes(catalogue, faces, words, hp):
    b = spring(catalogue)
    b["f"]["hp"] = 3
    cast = b.cast("c", "healing-spring", *faces, target="f")
    assert cast.words == words
    assert (b["f"]["hp"], b.last.dice.rolled) == (hp, list(faces))


def test_only_healing_spring_rolls_a_d3(catalogue):
    """Invigorate at 3 successes rolls its CA dice and nothing else."""
    b = spring(catalogue)
    cast = b.cast("c", "invigorate", 8, 8, 8, 1, target="f")
    assert cast.detail == {
        "caster": "c",
        "target": "f",
        "spell": "invigorate",
        "difficulty": 8,
        "successes": 3,
        "tier": 1,
    }
    assert (b["f"]["markers"], b.last.dice.rolled) == ({"invigorate": 2}, [8, 8, 8, 1])


@pytest.mark.parametrize(
    ("status", "difficulty"), [(ACTIVE, 7), (UNCONSCIOUS, 7), (OUT_OF_ACTION, None)]
)
def test_anathema_aura_is_an_enemy_still_in_the_battle(catalogue, status, difficulty):
    """ "The Difficulty for enemies to cast spells ... is increased by 1": from an enemy
    with the skill not Out of Action (Inspire: Difficulty 6)."""
    b = Battle(
        catalogue,
        a=(0, figure("Ava", CA=3, spells=["inspire"])),
        e=(1, figure("Eli", skills=[ANATHEMA_AURA])),
    )
    b["e"]["status"] = status
    declared = table.spells.Cast("a", "inspire", anathema_aura=True)
    if difficulty is None:
        with pytest.raises(Invalid) as error:
            table.spells.plan_declared(b.stored(), b.figures, declared, catalogue.spells)
        assert problems(error) == [
            Problem(
                "/anathema_aura",
                "skill-missing",
                "No enemy of Ava in this battle has Anathema Aura.",
            )
        ]
    else:
        plan = table.spells.plan_declared(b.stored(), b.figures, declared, catalogue.spells)
        assert (plan.difficulty, plan.modifiers) == (
            difficulty,
            (table.dice.Modifier("DF", 1, "Anathema Aura"),),
        )


# --- a spell's attacks (P7): Eagle Eye and Fortify -----------------------------------------


def bolt(catalogue) -> table.spell_attacks.SpellAttacks:
    """Seraphic Bolt at 1 success: ROF 1, Acc +0."""
    return table.spell_attacks.spell_attacks(catalogue.spells["seraphic-bolt"], 0, 1)


@pytest.mark.parametrize(
    ("eyes", "modifiers", "modified_df", "reroll", "eagle_eye"),
    [
        (0, [("DF", 2, "Target Significantly Obscured")], 12, "", None),
        (1, [("DF", 2, "Target Significantly Obscured")], 12, "", 'Eagle Eye: +5" range.'),
        (2, [("DF", 2, "Target Significantly Obscured")], 12, "Eagle Eye",
         'Eagle Eye: +5" range.'),
        (3, [], 10, "Eagle Eye", 'Eagle Eye: +5" range, ignores Cover.'),
    ],
)  # fmt: skip
def test_eagle_eye_spent_by_a_cast_ignores_cover_from_3_markers(
    catalogue, eyes, modifiers, modified_df, reroll, eagle_eye
):
    """ "2-3 Successes: ... re-roll the to hit roll. 4 Successes: ... ignores cover"
    (one, two, three markers); the cast spent them, its attacks keep their effect (P8)."""
    plan = table.spell_attacks.plan_spell_attack(
        figure("Cleo", RA=2),
        figure("Eli", DF=10),
        bolt(catalogue),
        Situation(obscured="significant"),
        eagle_eye=eyes,
    )
    assert [(m.applies_to, m.amount, m.source) for m in plan.modifiers] == modifiers
    assert (plan.modified_df, plan.best_of_two, plan.reroll) == (
        modified_df,
        bool(reroll),
        reroll,
    )
    notes = ['Seraphic Bolt: one target, range 10": ROF 1, Acc +0.']
    assert list(plan.notes) == notes + ([eagle_eye] if eagle_eye else [])


@pytest.mark.parametrize(
    ("markers", "target_df", "modifiers"),
    [({}, 10, []), ({"fortify": 1}, 12, [("DF", 2, "Target Fortified")])],
)
def test_a_fortified_target_of_a_spells_attack_has_2_more_df(
    catalogue, markers, target_df, modifiers
):
    """Fortify: "+2DEF until it next activates", against a spell's attacks too."""
    plan = table.spell_attacks.plan_spell_attack(
        figure("Cleo", RA=2),
        figure("Eli", DF=10),
        bolt(catalogue),
        context=Context(target_markers=markers),
    )
    assert [(m.applies_to, m.amount, m.source) for m in plan.modifiers] == modifiers
    assert (plan.target_df, plan.modified_df, plan.needed) == (target_df, target_df, target_df - 2)


# --- spells in a cast, tier by tier (P4) ----------------------------------------------------


def caster_of(catalogue, *spells, **stats) -> Battle:
    """Ann (side 0, CA 5, knowing `spells`), her friend Fay (HP 11, FR 5), and Eli (side 1,
    knowing Inspire)."""
    return Battle(
        catalogue,
        a=(0, figure("Ann", spells=spells, **{"CA": 5, **stats})),
        f=(0, figure("Fay", HP=11)),
        e=(1, figure("Eli", spells=["inspire"])),
    )


@pytest.mark.parametrize(
    ("successes", "hp", "woken"),
    [(0, 0, False), (1, 1, True), (2, 5, True), (4, 5, True), (5, 11, True)],
)
def test_reviving_breath_wakes_with_1_hp_then_half_then_all(catalogue, successes, hp, woken):
    """ "1 Success: ... regains 1HP and becomes Conscious. 2-4: ... half its HP. 5: ... all
    HP" (Difficulty 10): half of 11 is 5 (R13)."""
    b = caster_of(catalogue, "reviving-breath")
    b["f"].update(hp=0, status=UNCONSCIOUS)
    faces = [10] * successes + [1] * (5 - successes)
    cast = b.cast("a", "reviving-breath", *faces, target="f")
    assert cast.events == ([{"figure": "f", "status": ACTIVE, "by": None}] if woken else [])
    assert cast.words.endswith(f"Fay wakes with {hp} HP." if woken else "no effect.")
    assert (b["f"]["hp"], b["f"]["status"]) == (hp, ACTIVE if woken else UNCONSCIOUS)


def test_reviving_breath_leaves_an_active_figure_as_it_is(catalogue):
    b = caster_of(catalogue, "reviving-breath")
    b["f"]["hp"] = 3
    cast = b.cast("a", "reviving-breath", 10, 10, 10, 10, 10, target="f")
    assert (cast.events, b["f"]["hp"], b["f"]["status"]) == ([], 3, ACTIVE)


@pytest.mark.parametrize(
    ("successes", "forget", "caster_forgets", "target_forgets", "at_the_table"),
    [
        (2, None, ["mana-obliteration"], [], ""),
        (3, "inspire", ["mana-obliteration"], ["inspire"], ""),
        (4, None, ["mana-obliteration"], [], "The target forgets one spell of the caster's "
         'choice: "Change a figure", Forget.'),
        (5, "inspire", [], ["inspire"], ""),
    ],
)  # fmt: skip
def test_mana_obliteration_tiers(
    catalogue, successes, forget, caster_forgets, target_forgets, at_the_table
):
    """ "1-2 Successes: The caster forgets this spell ... 3-4: As above, but the target also
    forgets one spell of the caster's choice. 5: The target forgets one spell"."""
    b = caster_of(catalogue, "mana-obliteration")
    faces = [10] * successes + [1] * (5 - successes)
    cast = b.cast("a", "mana-obliteration", *faces, target="e", forget=forget)
    assert (b["a"]["forgotten"], b["e"]["forgotten"]) == (caster_forgets, target_forgets)
    assert cast.words.endswith(f" At the table: {at_the_table}" if at_the_table else ".")


@pytest.mark.parametrize(
    ("faces", "dispel", "left"),
    [
        ((6, 1, 1, 1, 1), None, {"fortify": 1, "inspire": 2}),  # the players choose
        ((6, 1, 1, 1, 1), "fortify", {"inspire": 2}),
        ((6, 6, 6, 1, 1), None, {}),  # "3+ Successes: Remove all spell effects"
        ((1, 1, 1, 1, 1), "fortify", {"fortify": 1, "inspire": 2}),  # no effect
    ],
)
def test_dispel_magic_in_a_cast(catalogue, faces, dispel, left):
    b = caster_of(catalogue, "dispel-magic")
    b(table.state.change, Change("e", markers={"fortify": 1, "inspire": 2}))
    cast = b.cast("a", "dispel-magic", *faces, target="e", dispel=dispel)
    assert b["e"]["markers"] == left
    choose = 'Choose the spell effect to remove and take its markers off with "Change a figure".'
    assert cast.words.endswith(choose) is (left == {"fortify": 1, "inspire": 2} and faces[0] == 6)


@pytest.mark.parametrize(("faces", "markers"), [((7, 1, 1, 1, 1), {"inspire": 1, "empowered": 1}),
                                                 ((6, 1, 1, 1, 1), {})])  # fmt: skip
def test_empowered_blessings_raises_the_difficulty_and_places_its_token(catalogue, faces, markers):
    """ "increase the Difficulty by 1. If so, they place an Empowered token on the target"
    (Inspire: Difficulty 6, so 7), only when the spell takes effect."""
    b = caster_of(catalogue, "inspire", skills=[table.figures.EMPOWERED_BLESSINGS])
    cast = b.cast("a", "inspire", *faces, target="f", empowered=True)
    assert cast.detail["difficulty"] == 7
    assert b["f"]["markers"] == markers


# --- a spell's attacks in a battle (P7) -----------------------------------------------------


@pytest.mark.parametrize(
    ("spell", "successes", "end"),
    [
        ("seraphic-bolt", 1, " Seraphic Bolt's attacks are done."),
        ("thunder-gods-bolt", 2, " Thunder God's Bolt may attack 1 more."),
        ("god-or-demon-attack", 3, "."),  # a radius: until the activation ends
    ],
)
def test_a_casts_attacks_say_how_many_targets_are_left(catalogue, spell, successes, end):
    b = caster_of(catalogue, spell, RA=2)
    faces = [12] * successes + [1] * (5 - successes)
    b.cast("a", spell, *faces)
    attacked = b(
        table.spell_attacks.spell_attack, table.spell_attacks.SpellAttack("e"), faces=(1,)
    )
    assert attacked.words.endswith("Miss: nothing happens." + end.removeprefix("."))
    assert attacked.detail["spell"] == spell
    assert (b["e"]["hp"], b.state["activating"]) == (10, "a")
    waiting = b.state.get("spell_attacks")
    assert (waiting is None) is (end == " Seraphic Bolt's attacks are done.")


# --- dice entered at the table (P5) --------------------------------------------------------


def test_healing_springs_d3_entered_after_the_dice(catalogue):
    b = caster_of(catalogue, "healing-spring", CA=3)
    b["f"]["hp"] = 3
    cast = b.cast("a", "healing-spring", target="f", entered=[7, 7, 7, 3])
    assert cast.words.endswith("Fay recovers 5 HP (2 + 3 on the d3).")
    assert (b["f"]["hp"], b.last.dice.rolled) == (8, [7, 7, 7, 3])


@pytest.mark.parametrize(
    ("rounds", "winner", "words"),
    [
        ([[9, 3]], 0, "Turn 1 initiative: rolled 9, 3 (+1 for Blue); Red activates first."),
        ([[7, 6], [2, 5]], 1, "Turn 1 initiative: rolled 7, 6; then 2, 5 (+1 for Blue); "
         "Blue activates first."),
    ],
)  # fmt: skip
def test_initiative_entered_in_rounds(catalogue, rounds, winner, words):
    """P1: +1 for the side with fewer active figures (Blue: one against two); a tie is
    rolled again."""
    b = caster_of(catalogue, "inspire")
    rolled = b(table.turn.initiative, entered=rounds)
    assert (rolled.words, rolled.detail) == (words, {"winner": winner, "bonuses": [0, 1]})
    assert b.state["initiative"] == {"rolls": rounds, "bonuses": [0, 1], "winner": winner}


# --- the turn's end and a declared change (P2, P8) -----------------------------------------


def test_a_new_turn_ends_the_activation_under_way(catalogue):
    b = caster_of(catalogue, "inspire")
    b(table.state.change, Change("a", markers={"extreme-speed": 1}))
    b.cast("a", "inspire", 1, 1, 1, 1, 1)
    turn = b.new_turn()
    assert (turn.words, turn.events) == ("Turn 2 begins: roll for initiative.", [])
    assert (b.state["activating"], b["a"]["markers"], b["a"]["activated"]) == (None, {}, False)


def test_a_declared_status_forget_and_activation(catalogue):
    b = caster_of(catalogue, "inspire")
    changed = b(
        table.state.change,
        Change(
            "a", hp=0, status=UNCONSCIOUS, forget="inspire", activated=True, note=" hit  by a car"
        ),
    )
    assert (changed.words, changed.events) == (
        "Ann: HP 0 of 10, Unconscious, forgets inspire, activated (hit by a car).",
        [{"figure": "a", "status": UNCONSCIOUS, "by": None}],
    )
    assert (b["a"]["status"], b["a"]["forgotten"], b["a"]["activated"]) == (
        UNCONSCIOUS,
        ["inspire"],
        True,
    )
    same = b(table.state.change, Change("a", status=UNCONSCIOUS, activated=False))
    assert (same.words, same.events) == ("Ann: not yet activated.", [])


# --- Jump and Drop checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "face", "words"),
    [
        (0, 1, 'Ann jumps 0" (needs 1+): rolled 1; passes.'),
        (36, 12, 'Ann jumps 36" (needs 37+): rolled 12; fails: 25 damage and no actions left.'
         " Ann is Unconscious."),
    ],
)  # fmt: skip
def test_a_jump_is_0_to_36_inches(catalogue, distance, face, words):
    b = caster_of(catalogue, "inspire")
    jumped = b(table.movement.jump, table.movement.Jump("a", distance), faces=(face,))
    assert jumped.words == words


# --- Exploit Weakness and Friendship (P3) ----------------------------------------------------


@pytest.mark.parametrize(
    ("hp", "die", "after", "said"),
    [
        (10, 4, (10, ACTIVE), "Exploit Weakness: rolled 4, over ME."),
        (10, 3, (9, ACTIVE), "Exploit Weakness: rolled 3, at or under ME: 1 damage."),
        (1, 3, (0, UNCONSCIOUS), "Exploit Weakness: rolled 3, at or under ME: 1 damage. "
         "Tom is Unconscious."),
    ],
)  # fmt: skip
def test_exploit_weakness_on_success_rating_0_at_or_under_me(catalogue, hp, die, after, said):
    """ "If the student gets a Success Rating of 0 in a melee attack, roll 1d12. If the
    result is less than or equal to their ME statistic the target takes 1HP damage"."""
    ava = figure("Ava", ME=3, skills=[table.figures.EXPLOIT_WEAKNESS], equipment=["hand-weapon"])
    b = Battle(catalogue, a=(0, ava), t=(1, figure("Tom", DF=10)))
    b["t"]["hp"] = hp
    attacked = b.attack("a", "t", "melee", "hand-weapon", 7, die)  # 7 + ME 3: Success Rating 0
    assert attacked.words.endswith(said)
    assert attacked.detail["check"] == {"kind": "exploit-weakness", "die": die}
    assert (b["t"]["hp"], b["t"]["status"]) == after
    events = [{"figure": "t", "status": UNCONSCIOUS, "by": "a"}] if after[1] != ACTIVE else []
    assert attacked.events == events


def test_every_refused_transfer_is_named_at_once():
    """P3: each friend takes at most its FR, at least 1, once, and only while active; the
    transfers move no more than the attack dealt (R12: every problem at once)."""
    fay = table.damage.Recipient("Fay", 2, 3)
    with pytest.raises(Invalid) as error:
        table.damage.check_transfers(
            4,
            [
                fay,
                fay,
                table.damage.Recipient("Gus", 5, 0),
                table.damage.Recipient("Hal", 5, 1, status=UNCONSCIOUS),
            ],
        )
    assert problems(error) == [
        Problem("/transfers/0", "invalid-transfer", "Fay may take at most 2 damage (FR 2)."),
        Problem("/transfers/1", "invalid-transfer", "Fay is named twice."),
        Problem("/transfers/1", "invalid-transfer", "Fay may take at most 2 damage (FR 2)."),
        Problem("/transfers/2", "invalid-transfer", "A transfer moves at least 1 damage."),
        Problem("/transfers/3", "invalid-transfer", "Hal is not active and takes no damage."),
        Problem("/transfers", "invalid-transfer", "7 damage transferred, but only 4 was dealt."),
    ]
    assert table.damage.check_transfers(4, [table.damage.Recipient("Fay", 2, 2)]) == 2


def test_a_transfer_goes_to_an_active_targets_friends_only():
    state = table.state.new_state(
        {"a": (0, figure("A")), "t": (1, figure("T")), "f": (1, figure("F"))}
    )
    hit = table.damage.AttackResult(12, 12, 3, True, 3, "")
    for fid in ("a", "t"):  # the attacker's side; the target itself
        with pytest.raises(Invalid) as error:
            table.damage.apply_attack(
                decoded(state), figure("A"), "a", "t", [hit], None, ranged=True,
                recipients=[(fid, table.damage.Recipient("X", 5, 1))],
            )  # fmt: skip
        assert problems(error) == [
            Problem("/transfers/0", "other-side", "X is not a friend of the target.")
        ]
    state["figures"]["t"]["status"] = UNCONSCIOUS
    with pytest.raises(Invalid) as error:
        table.damage.apply_attack(
            decoded(state), figure("A"), "a", "t", [hit], None, ranged=True,
            recipients=[("f", table.damage.Recipient("F", 5, 1))],
        )  # fmt: skip
    assert problems(error) == [
        Problem(
            "/transfers",
            "nothing-to-transfer",
            "Only an active figure that takes damage transfers it.",
        )
    ]


# --- the needed roll in words, and what a capped attack may deal (P2, P3) -------------------


@pytest.mark.parametrize(
    ("df", "words"),
    [(4, "hits on any roll"), (5, "hits on any roll"), (6, "needs 2+"), (16, "needs 12+"),
     (17, "cannot hit (needs 13)")],
)  # fmt: skip
def test_the_needed_roll_in_words(catalogue, df, words):
    """ME 4 against DF `df`: needs DF - 4; 1 or less hits on any roll, 13 or more never."""
    attack = table.attacks.plan_attack(
        figure(ME=4, equipment=["simple-weapon"]),
        figure("T", DF=df),
        "melee",
        "simple-weapon",
        equipment=catalogue.equipment,
    )
    assert attack.needed_words() == words


def test_hidden_explosives_expected_damage_is_capped_at_2(catalogue):
    """ "This attack cannot inflict more than 2HP damage": RA 4 against DF 8 needs 4; the
    Success Rating is 1 on a 5 and 2 or more on 6 to 12."""
    attack = table.attacks.plan_attack(
        figure(RA=4, skills=[table.figures.HIDDEN_EXPLOSIVES]),
        figure("T", DF=8),
        "ranged",
        table.figures.HIDDEN_EXPLOSIVES,
        equipment=catalogue.equipment,
    )
    assert attack.expected_damage == Fraction(1 * 1 + 2 * 7, 12)
    assert table.attacks.resolve_attack(attack, 12).damage == 2


# --- a cast's own modifiers (P4) -------------------------------------------------------------


def test_a_leader_sealed_power_and_fatigue_change_a_casts_dice(catalogue):
    """Leadership: the leader's CA for the caster's; Terrifying Sealed Power +1; Sudden
    Fatigue -1 a marker; never more than 5 dice."""
    caster = figure("Ava", CA=2, spells=["inspire"], skills=[table.figures.SEALED_POWER])
    leader = figure("Leo", CA=5)
    plan = table.spells.plan_spell(
        caster, catalogue.spells["inspire"], leader=leader, sealed_power=True, statistic_penalty=1
    )
    assert (plan.dice, plan.difficulty) == (5, 6)
    assert [m.words() for m in plan.modifiers] == [
        "Sudden Fatigue: -1 statistic",
        "Leadership (Leo's CA): +3 statistic",
        "Terrifying Sealed Power: +1 statistic",
    ]
    with pytest.raises(Invalid) as error:
        table.spells.plan_spell(
            figure("Ava", CA=2, spells=["inspire"]), catalogue.spells["inspire"], sealed_power=True
        )
    assert problems(error) == [Problem("/sealed_power", "skill-missing", "Ava lacks that skill.")]


# --- the record (P6) ---------------------------------------------------------------------------


def test_the_record_credits_an_enemy_of_either_side_never_a_friend():
    """P6: "who took whom Out of Action" counts an enemy's hit, whichever side it is on; a
    friend's hit (a Blast, Dragon Slayer) or none (Determination) takes nobody's credit."""
    state = table.state.new_state(
        {
            "a": (0, figure("A")),
            "f": (0, figure("F")),
            "b": (1, figure("B")),
            "c": (1, figure("C")),
        }
    )
    events = [
        {"figure": "a", "status": OUT_OF_ACTION, "by": "b"},  # side 1 takes side 0's
        {"figure": "f", "status": OUT_OF_ACTION, "by": "a"},  # a friend's hit
        {"figure": "c", "status": OUT_OF_ACTION, "by": None},
    ]
    record = table.record.record_from(decoded(state), events)
    assert [record[fid].enemies_out_of_action for fid in "afbc"] == [0, 0, 1, 0]
    assert [record[fid].out_of_action for fid in "afbc"] == [True, True, False, True]


def test_only_a_transfer_amends_an_earlier_line():
    """A line that is not a transfer replaces no attack's events, whatever its details."""
    logged = table.record.Logged
    attack = logged(2, "attack", {}, [{"figure": "t", "status": UNCONSCIOUS, "by": "a"}])
    other = logged(3, "change", {"amends": 2, "figures": ["t"]}, [])
    assert table.record.effective_events([attack, other]) == attack.events
