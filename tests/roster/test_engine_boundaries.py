"""Both sides of every number the creation rules set (R1-R13, R16, R17).

Each test asserts the engine's whole answer: every error and warning (pointer, code),
the shape problems, and the statistics and costs the boundary is about. The member
under test is always first among three plain classmates (`with_classmates`), who add
nothing to the answer.
"""

from fractions import Fraction

import pytest

from roster.engine import evaluate, level_for_xp, skill_cost, times_rounded_down
from tests.roster.builders import (
    academic_student,
    df_student,
    emma,
    evaluate_member,
    force,
    found,
    hp_level_ups,
    julius,
    put_at,
    sporting_student,
    student,
    with_classmates,
)

MEMBER = "/members/0"


def assert_legal(evaluation) -> None:
    assert evaluation.malformed == []
    assert found(evaluation.errors) == []
    assert found(evaluation.warnings) == []


# --- R3: DF at most 16 while building ----------------------------------------------------


def test_r3_df_16_from_level_ups_is_legal(catalogue):
    evaluation, result = evaluate_member(
        catalogue, df_student(xp=7, level_ups=[{"line": 3}, {"line": 3}])
    )
    assert_legal(evaluation)
    # 12 + 2 + 2 = 16, the most R3 allows.
    assert result.stats == {"ME": 1, "RA": 3, "CA": 1, "DF": 16, "HP": 10, "FR": 5}
    assert result.defence == {"melee": 16, "ranged": 16}
    assert result.level == 3


def test_r3_df_17_from_a_level_up_is_an_error_at_that_level_up(catalogue):
    member = df_student(xp=12, level_ups=[{"line": 3}, {"line": 3}, {"line": 1, "choice": "DF"}])
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/level_ups/2", "statistic-out-of-bounds")]
    assert found(evaluation.warnings) == []
    assert result.stats["DF"] == 17
    assert result.level == 4


def test_r3_df_16_from_a_purchase_between_battles_is_legal(catalogue):
    member = df_student(
        xp=3, level_ups=[{"line": 3}], purchases=[{"line": 3, "between_battles": True}]
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    # DF 14 after the level-up: +2 DF costs 2 x 14 = 28 (R6, R17) and makes DF 16.
    assert result.purchase_costs == [28]
    assert result.stats["DF"] == 16
    assert result.cost == {"advancements": 28, "equipment": 0, "total": 28}
    assert evaluation.total_cost == 28


def test_r3_df_17_from_a_purchase_between_battles_is_an_error_at_the_purchase(catalogue):
    member = df_student(
        xp=7,
        level_ups=[{"line": 3}, {"line": 1, "choice": "DF"}],  # DF 15
        purchases=[{"line": 3, "between_battles": True}],
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/purchases/0", "statistic-out-of-bounds")]
    assert found(evaluation.warnings) == []
    assert result.stats["DF"] == 17


@pytest.mark.parametrize(
    ("armour", "cost", "defence", "warnings"),
    [
        # DF 15: Light Armour (+1) reaches 16 exactly, no warning; DF-5 = 10 (R7).
        ("light-armour", 10, 16, []),
        # Heavy Armour (+2) would make 17: counted as 16, with a warning; DF-2 = 13.
        ("heavy-armour", 13, 16, [(f"{MEMBER}/equipment/0", "df-capped")]),
    ],
)
def test_r3_armour_at_df_15_is_capped_at_16_with_a_warning_only_past_it(
    catalogue, armour, cost, defence, warnings
):
    member = df_student(
        xp=7, level_ups=[{"line": 3}, {"line": 1, "choice": "DF"}], equipment=[armour]
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == []
    assert found(evaluation.warnings) == warnings
    assert result.stats["DF"] == 15
    assert result.defence == {"melee": defence, "ranged": defence}
    assert result.equipment_costs == [cost]


# --- R3: ME, RA and CA within 0..5 ---------------------------------------------------------


def test_r3_ra_5_is_legal_and_6_is_an_error(catalogue):
    # Technical, base RA 3 +1 (choice) = 4, +1 (line 1) = 5.
    member = student(
        "Ray",
        base={"ME": 1, "RA": 3, "CA": 2, "DF": 2},
        free_advancements=[{"line": 1, "choice": "RA"}, {"line": 3}],
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats == {"ME": 0, "RA": 5, "CA": 2, "DF": 10, "HP": 10, "FR": 5}

    member.update(xp=3, level_ups=[{"line": 1, "choice": "RA"}])
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/level_ups/0", "statistic-out-of-bounds")]
    assert found(evaluation.warnings) == []
    assert result.stats["RA"] == 6


def test_r3_me_0_is_legal_and_minus_1_is_an_error(catalogue):
    # Technical takes 1 from ME: base ME 1 gives ME 0, which is legal.
    evaluation, result = evaluate_member(
        catalogue, student("Mo", base={"ME": 1, "RA": 3, "CA": 2, "DF": 2})
    )
    assert_legal(evaluation)
    assert result.stats["ME"] == 0
    # Base ME 0 is not 3/2/2/1 (R1) and the society then takes ME to -1 (R3).
    evaluation, result = evaluate_member(
        catalogue, student("Mo", base={"ME": 0, "RA": 3, "CA": 2, "DF": 2})
    )
    assert found(evaluation.errors) == [
        (f"{MEMBER}/base", "invalid-base-statistics"),
        (f"{MEMBER}/club/choice", "statistic-out-of-bounds"),
    ]
    assert result.stats["ME"] == -1


# --- R3, R5, R5a: FR exactly 0, and -1 ------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "rerolls", "fr"),
    [
        ("picked", 3, 0),  # 5 - 3 re-rolls - 2 for picking (R5a: both are paid)
        ("rolled", 5, 0),  # 5 - 5 re-rolls
    ],
)
def test_r3_fr_exactly_0_is_legal_and_a_medical_kit_then_costs_0(catalogue, method, rerolls, fr):
    member = emma()
    member["free_advancements"][0].update(method=method, rerolls=rerolls)
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": fr}
    # Simple Weapon 1 x ME1 = 1; Medical Kit 1.5 x FR0 = 0, legal: it needs no statistic.
    assert result.equipment_costs == [1, 0]
    assert result.cost == {"advancements": 0, "equipment": 1, "total": 1}
    assert result.unverified_rolls == (1 if method == "rolled" else 0)


def test_r6_raising_fr_from_exactly_0_costs_0_and_prices_equipment_after_it(catalogue):
    member = emma()
    member["free_advancements"][0].update(rerolls=3)  # FR 0, as above
    member["purchases"] = [{"line": 3}]  # +2 FR at FR 0: 2 x 0 = 0 (R6)
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats["FR"] == 2
    assert result.purchase_costs == [0]
    # The Medical Kit is priced after advancements (R7): 1.5 x FR2 = 3.
    assert result.equipment_costs == [1, 3]
    assert result.cost == {"advancements": 0, "equipment": 4, "total": 4}


@pytest.mark.parametrize(("method", "rerolls"), [("picked", 4), ("rolled", 6)])
def test_r3_fr_minus_1_is_an_error_at_the_advancement(catalogue, method, rerolls):
    member = emma()
    member["free_advancements"][0].update(method=method, rerolls=rerolls)
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [
        (f"{MEMBER}/free_advancements/0", "statistic-out-of-bounds")
    ]
    assert found(evaluation.warnings) == []
    assert result.stats["FR"] == -1
    # The Medical Kit never costs less than 0 (1.5 x -1 rounds down to -2).
    assert result.equipment_costs == [1, 0]


@pytest.mark.parametrize(("rerolls", "errors"), [(1, []), (2, ["statistic-out-of-bounds"])])
def test_r5a_a_level_up_may_spend_fr_to_0_but_not_below(catalogue, rerolls, errors):
    # Emma has FR 3 after creation; a picked level-up skill costs 2, each re-roll 1.
    member = emma()
    member["xp"] = 3
    member["level_ups"] = [
        {"line": 5, "skill": "movement/catfall", "method": "picked", "rerolls": rerolls}
    ]
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/level_ups/0", code) for code in errors]
    assert found(evaluation.warnings) == []
    assert result.stats["FR"] == 3 - 2 - rerolls
    assert result.skills == ["spellcasting/spell-focus", "movement/catfall"]


# --- R5: `rerolls` 0 and negative ------------------------------------------------------------


def test_r5_rerolls_0_on_a_statistic_line_is_the_same_as_none(catalogue):
    member = emma()
    member["free_advancements"][1] = {"line": 2, "rerolls": 0}
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}


def test_r5_rerolls_1_on_a_statistic_line_is_an_error_and_costs_no_fr(catalogue):
    member = emma()
    member["free_advancements"][1] = {"line": 2, "rerolls": 1}
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [
        (f"{MEMBER}/free_advancements/1/rerolls", "not-a-skill-line")
    ]
    assert found(evaluation.warnings) == []
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}


def test_r5_rerolls_0_on_a_rolled_skill_costs_no_fr(catalogue):
    member = emma()
    member["free_advancements"][0].update(method="rolled", rerolls=0)
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats["FR"] == 5


@pytest.mark.parametrize("rerolls", [-1, 101])
def test_r5_rerolls_below_0_or_above_100_are_malformed(catalogue, rerolls):
    member = emma()
    member["free_advancements"][0].update(method="rolled", rerolls=rerolls)
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.malformed) == [
        (f"{MEMBER}/free_advancements/0/rerolls", "out-of-range")
    ]
    assert found(evaluation.errors) == []
    assert result is None


def test_r5_rerolls_100_is_read_and_fr_far_below_0_is_an_error(catalogue):
    member = emma()
    member["free_advancements"][0].update(method="rolled", rerolls=100)
    evaluation, result = evaluate_member(catalogue, member)
    assert evaluation.malformed == []
    assert found(evaluation.errors) == [
        (f"{MEMBER}/free_advancements/0", "statistic-out-of-bounds")
    ]
    assert result.stats["FR"] == -95


# --- R5: Determination and Extreme Determination --------------------------------------------


@pytest.mark.parametrize(
    ("line", "skill"),
    [(5, "movement/determination"), (6, "support/extreme-determination")],
)
def test_r5_either_determination_alone_is_legal(catalogue, line, skill):
    member = academic_student(
        base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        free_advancements=[{"line": line, "skill": skill, "method": "picked"}, {"line": 2}],
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.skills == [skill]
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}


def test_r5_buying_extreme_determination_beside_determination_is_refused_and_free(catalogue):
    member = academic_student(
        base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        free_advancements=[
            {"line": 5, "skill": "movement/determination", "method": "picked"},
            {"line": 2},
        ],
        purchases=[{"skill": "support/extreme-determination"}],
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/purchases/0/skill", "excluded-skill")]
    assert found(evaluation.warnings) == []
    assert result.skills == ["movement/determination"]
    assert result.purchase_costs == [0]
    assert result.cost == {"advancements": 0, "equipment": 0, "total": 0}
    assert evaluation.total_cost == 0


# --- R9: CA 1 learns spells, CA 0 does not ---------------------------------------------------


def test_r9_a_ca_1_caster_with_one_core_spell_is_legal(catalogue):
    # Base CA 2, sporting -1: CA 1, so one slot, and a core-school spell takes one.
    member = sporting_student(
        base={"ME": 3, "RA": 2, "CA": 2, "DF": 1},
        core_schools=["restoration"],
        spells=["healing-spring"],
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats == {"ME": 4, "RA": 2, "CA": 1, "DF": 7, "HP": 12, "FR": 6}
    assert result.spell_slots == {"total": 1, "used": 1}


@pytest.mark.parametrize(
    ("spells", "pointer"),
    [
        (["healing-spring", "reviving-breath"], "/spells/1"),  # 1 + 1 slots of 1
        (["seraphic-bolt"], "/spells/0"),  # not a core school: 2 slots of 1
    ],
)
def test_r9_a_ca_1_caster_has_one_slot_only(catalogue, spells, pointer):
    member = sporting_student(
        base={"ME": 3, "RA": 2, "CA": 2, "DF": 1}, core_schools=["restoration"], spells=spells
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(MEMBER + pointer, "too-many-spells")]
    assert found(evaluation.warnings) == []
    assert result.spell_slots == {"total": 1, "used": 2}


@pytest.mark.parametrize(
    "magic",
    [
        {"core_schools": ["restoration"], "spells": ["healing-spring"]},
        {"spell_focus": True},
    ],
)
def test_r9_ca_0_learns_no_spells(catalogue, magic):
    # Base CA 1, sporting -1: CA 0.
    member = sporting_student(base={"ME": 2, "RA": 2, "CA": 1, "DF": 3}, **magic)
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/spells", "needs-ca")]
    assert found(evaluation.warnings) == []
    assert result.stats["CA"] == 0
    assert result.spell_slots == {"total": 0, "used": 0}


# --- R2, R10: names and their limits -----------------------------------------------------------


NAMES = [
    (("members", 0, "club", "name"), 60),  # R2
    (("members", 0, "name"), 60),
    (("name",), 100),
]


@pytest.mark.parametrize(("path", "limit"), NAMES)
def test_names_at_their_limit_are_legal_and_one_character_more_is_too_long(catalogue, path, limit):
    where = "/" + "/".join(map(str, path))
    evaluation = evaluate(put_at(with_classmates(student("Eve")), path, "x" * limit), catalogue)
    assert_legal(evaluation)
    evaluation = evaluate(
        put_at(with_classmates(student("Eve")), path, "x" * (limit + 1)), catalogue
    )
    assert [p.as_dict() for p in evaluation.malformed] == [
        {"pointer": where, "code": "too-long", "message": f"At most {limit} characters, please."}
    ]
    assert (evaluation.errors, evaluation.members) == ([], [])


@pytest.mark.parametrize(("path", "limit"), NAMES)
@pytest.mark.parametrize(("name", "code"), [("", "too-short"), ("  ", "blank")])
def test_names_of_one_character_are_legal_and_empty_or_blank_ones_are_not(
    catalogue, path, limit, name, code
):
    where = "/" + "/".join(map(str, path))
    assert_legal(evaluate(put_at(with_classmates(student("Eve")), path, "x"), catalogue))
    evaluation = evaluate(put_at(with_classmates(student("Eve")), path, name), catalogue)
    assert found(evaluation.malformed) == [(where, code)]
    assert (evaluation.errors, evaluation.members) == ([], [])


# --- R16, R17: levels, level-ups and the XP cap ------------------------------------------------


@pytest.mark.parametrize(
    ("level", "threshold"), list(enumerate((3, 7, 12, 18, 25, 33, 42, 52, 63), start=2))
)
def test_r16_each_level_starts_exactly_at_its_threshold(level, threshold):
    assert level_for_xp(threshold - 1) == level - 1
    assert level_for_xp(threshold) == level


@pytest.mark.parametrize("xp", [63, 64, 100, 100_000])
def test_r16_level_10_is_the_most_at_any_xp(xp):
    assert level_for_xp(xp) == 10


@pytest.mark.parametrize(("xp", "level"), [(62, 9), (63, 10), (100_000, 10)])
def test_r17_one_level_up_per_level_gained_up_to_level_10(catalogue, xp, level):
    allowed = level - 1
    evaluation, result = evaluate_member(
        catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(allowed))
    )
    assert_legal(evaluation)
    assert result.level == level
    # Plain student: HP 10 +1 (free line 2), then +1 per level-up.
    assert result.stats["HP"] == 11 + allowed

    evaluation, _ = evaluate_member(
        catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(allowed + 1))
    )
    assert found(evaluation.errors) == [(f"{MEMBER}/level_ups/{allowed}", "too-many-level-ups")]
    assert found(evaluation.warnings) == []

    evaluation, _ = evaluate_member(
        catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(allowed - 1))
    )
    assert found(evaluation.errors) == []
    assert found(evaluation.warnings) == [(f"{MEMBER}/level_ups", "level-up-pending")]


def test_r17_twenty_level_ups_at_the_default_thresholds_leave_eleven_too_many(catalogue):
    member = student("Lev", xp=100_000, level_ups=hp_level_ups(20))
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [
        (f"{MEMBER}/level_ups/{i}", "too-many-level-ups") for i in range(9, 20)
    ]
    assert found(evaluation.warnings) == []
    assert result.stats["HP"] == 11 + 9


def test_r17_twenty_level_ups_fit_a_campaign_of_21_levels(catalogue):
    thresholds = tuple(range(21))  # levels 1..21 at 0..20 XP (the most a campaign may set)
    member = student("Lev", xp=20, level_ups=hp_level_ups(20))
    evaluation, result = evaluate_member(catalogue, member, level_thresholds=thresholds)
    assert_legal(evaluation)
    assert result.level == 21
    assert result.stats["HP"] == 31


def test_a_document_holds_at_most_20_level_ups(catalogue):
    member = student("Lev", xp=20, level_ups=hp_level_ups(21))
    evaluation, result = evaluate_member(catalogue, member, level_thresholds=tuple(range(22)))
    assert found(evaluation.malformed) == [(f"{MEMBER}/level_ups", "too-many-items")]
    assert (evaluation.errors, result) == ([], None)


@pytest.mark.parametrize(("xp", "malformed"), [(100_000, []), (100_001, ["/members/0/xp"])])
def test_xp_is_at_most_100000(catalogue, xp, malformed):
    evaluation, _ = evaluate_member(catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(9)))
    assert found(evaluation.malformed) == [(where, "out-of-range") for where in malformed]
    assert found(evaluation.errors) == []


@pytest.mark.parametrize(
    ("count", "malformed"), [(20, []), (21, [("/members", "too-many-items")])]
)
def test_a_document_holds_at_most_20_members(catalogue, count, malformed):
    document = force(*(student(f"S{i}") for i in range(count)))
    evaluation = evaluate(document, catalogue)
    assert found(evaluation.malformed) == malformed
    # 20 plain students are read, and break only R10's 4-6.
    assert found(evaluation.errors) == ([] if malformed else [("/members", "force-size")])


# --- R10: four to six students, one mentor ------------------------------------------------------


@pytest.mark.parametrize(("students", "errors"), [(3, 1), (4, 0), (6, 0), (7, 1)])
def test_r10_four_to_six_students_whole_answer(catalogue, students, errors):
    evaluation = evaluate(force(*(student(f"S{i}") for i in range(students))), catalogue)
    assert found(evaluation.errors) == [("/members", "force-size")] * errors
    assert found(evaluation.warnings) == []


@pytest.mark.parametrize(
    ("mentors", "errors"), [(1, []), (2, [("/members/5/role", "too-many-mentors")])]
)
def test_r10_one_mentor_is_not_counted_and_a_second_is_refused(catalogue, mentors, errors):
    members = [student(f"S{i}") for i in range(4)]
    members += [student(f"Teacher {i}", role="mentor") for i in range(mentors)]
    evaluation = evaluate(force(*members), catalogue)
    assert found(evaluation.errors) == errors


# --- R8: two hands, plus one more piece ------------------------------------------------------

# Julius without purchases: sporting, ME2 RA2 DF8, FR 1 after two picked skills. Prices:
# Hand Weapon 1.5 x 2 = 3, Light Pistol 2, Great Weapon / Polearm 3 x 2 = 6, Simple
# Weapon 2, Heavy Weapon [2H] 4, Light Shield 2, Light Armour DF8 - 5 = 3, Medical Kit
# 1.5 x 1 = 1 (R7, R13).
PRICES = {
    "hand-weapon": 3,
    "light-pistol": 2,
    "great-weapon": 6,
    "polearm": 6,
    "simple-weapon": 2,
    "heavy-weapon-2h": 4,
    "light-shield": 2,
    "light-armour": 3,
    "medical-kit": 1,
}


@pytest.mark.parametrize(
    ("equipment", "errors"),
    [
        # Exactly two hands, and the extra piece free or used.
        (["great-weapon"], []),
        (["hand-weapon", "light-shield", "medical-kit"], []),
        (["heavy-weapon-2h", "light-armour"], []),
        # R8's own example: [2H] + Light Armour leaves no room for a Medical Kit.
        (["heavy-weapon-2h", "light-armour", "medical-kit"], [(2, "too-many-pieces")]),
        # Two 1H weapons and a [2H] backup in the free extra slot: legal...
        (["hand-weapon", "light-pistol", "great-weapon"], []),
        # ...three 1H weapons too (one is the backup)...
        (["hand-weapon", "light-pistol", "simple-weapon"], []),
        # ...but a further held piece has no hand left.
        (
            ["hand-weapon", "light-pistol", "great-weapon", "simple-weapon"],
            [(3, "too-many-hands")],
        ),
        (["hand-weapon", "light-pistol", "simple-weapon", "hand-weapon"], [(3, "too-many-hands")]),
        # With armour in the extra slot, the [2H] weapon has no hands and no slot.
        (["hand-weapon", "light-pistol", "great-weapon", "light-armour"], [(2, "too-many-hands")]),
        # Two [2H] weapons: one in hand, one as backup; a third held piece is too many.
        (["great-weapon", "polearm"], []),
        (["great-weapon", "polearm", "hand-weapon"], [(2, "too-many-hands")]),
        # Two pieces beyond the hands: the second is refused.
        (["great-weapon", "light-armour", "medical-kit"], [(2, "too-many-pieces")]),
    ],
)
def test_r8_loadouts_whole_answer(catalogue, equipment, errors):
    member = julius()
    member["purchases"] = []
    member["equipment"] = equipment
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/equipment/{i}", code) for i, code in errors]
    assert found(evaluation.warnings) == []
    # Every piece is priced, also one the loadout refuses (the error makes the force illegal).
    assert result.equipment_costs == [PRICES[slug] for slug in equipment]
    assert result.cost["equipment"] == sum(PRICES[slug] for slug in equipment)


# --- R6: a refused purchase costs nothing ----------------------------------------------------

# Emma: academic, ME1 RA1 CA4 DF8 HP12 FR3, Spell Focus picked; here with only her
# Simple Weapon (1 x ME1 = 1), whose price no purchase below changes.


@pytest.mark.parametrize(
    ("purchases", "error", "costs"),
    [
        # +2 FR (line 3) at FR 3 costs 2 x 3 = 6; statistics come before skills (R6).
        (
            [{"line": 3}, {"skill": "spellcasting/spell-focus"}],
            ("/purchases/1/skill", "duplicate-skill"),
            [6, 0],
        ),
        (
            [{"line": 3}, {"skill": "melee/dual-wield"}],
            ("/purchases/1/skill", "skill-not-in-society-table"),
            [6, 0],
        ),
        (
            [{"line": 3}, {"skill": "spellcasting/fireball"}],
            ("/purchases/1/skill", "unknown-skill"),
            [6, 0],
        ),
        ([{"line": 2}, {"line": 3}], ("/purchases/0/line", "duplicate-line"), [0, 6]),
        ([{"line": 5}, {"line": 3}], ("/purchases/0/line", "purchase-skill-line"), [0, 6]),
        ([{"line": 1}, {"line": 3}], ("/purchases/0/choice", "choice-required"), [0, 6]),
        (
            [{"line": 1, "choice": "ME"}, {"line": 3}],
            ("/purchases/0/choice", "invalid-choice"),
            [0, 6],
        ),
        # +1 CA at CA 4 costs 8.
        (
            [{"line": 3, "choice": "FR"}, {"line": 1, "choice": "CA"}],
            ("/purchases/0/choice", "choice-not-applicable"),
            [0, 8],
        ),
    ],
)
def test_r6_a_refused_purchase_costs_0_and_the_total_leaves_it_out(
    catalogue, purchases, error, costs
):
    member = emma()
    member["purchases"] = purchases
    member["equipment"] = ["simple-weapon"]
    evaluation, result = evaluate_member(catalogue, member)
    where, code = error
    assert found(evaluation.errors) == [(MEMBER + where, code)]
    assert found(evaluation.warnings) == []
    assert result.purchase_costs == costs
    price = sum(costs)
    assert result.cost == {"advancements": price, "equipment": 1, "total": price + 1}
    assert evaluation.total_cost == price + 1
    assert result.skills == ["spellcasting/spell-focus"]


def test_r6_a_refused_skill_still_stands_before_a_later_statistic_purchase(catalogue):
    # Decision: the document's order breaks R6 whether or not the skill itself is
    # refused, so both problems are reported at once (R12). The refused skill costs
    # nothing; the statistic, out of order but not refused, keeps its price.
    member = emma()
    member["purchases"] = [{"skill": "spellcasting/fireball"}, {"line": 3}]
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [
        (f"{MEMBER}/purchases/0/skill", "unknown-skill"),
        (f"{MEMBER}/purchases/1", "statistic-after-skill"),
    ]
    assert result.purchase_costs == [0, 6]


# --- R6: 1.5, 2.0, 2.5 x S, rounded down (R13) ----------------------------------------------


@pytest.mark.parametrize(
    ("owned", "statistic", "cost"),
    [
        (0, 2, 3),  # 1.5 x 2
        (0, 3, 4),  # 1.5 x 3 = 4.5 -> 4
        (1, 2, 4),  # 2.0 x 2
        (1, 3, 6),  # 2.0 x 3
        (2, 2, 5),  # 2.5 x 2
        (2, 3, 7),  # 2.5 x 3 = 7.5 -> 7
        (3, 3, 9),  # 3.0 x 3
        (4, 3, 10),  # 3.5 x 3 = 10.5 -> 10
    ],
)
def test_r6_skill_cost_multiplier_and_rounding(catalogue, owned, statistic, cost):
    spellcasting = catalogue.skill_categories["spellcasting"]
    assert skill_cost(spellcasting, owned, {"CA": statistic}) == cost


@pytest.mark.parametrize(
    ("category", "stats", "cost"),
    [
        ("melee", {"ME": 3, "RA": 5, "CA": 5}, 4),  # S = ME
        ("ranged", {"ME": 5, "RA": 3, "CA": 5}, 4),  # S = RA
        ("movement", {"ME": 2, "RA": 3, "CA": 5}, 4),  # S = max(ME, RA), not CA
        ("movement", {"ME": 3, "RA": 2, "CA": 5}, 4),
        ("support", {"ME": 1, "RA": 2, "CA": 3}, 4),  # S = max(ME, RA, CA)
        ("technical", {"ME": 3, "RA": 2, "CA": 1}, 4),
    ],
)
def test_r6_skill_cost_statistic_per_category(catalogue, category, stats, cost):
    assert skill_cost(catalogue.skill_categories[category], 0, stats) == cost


@pytest.mark.parametrize(
    ("value", "multiplier", "expected"),
    [
        (3, Fraction(3, 2), 4),
        (4, Fraction(3, 2), 6),
        (-1, Fraction(3, 2), -2),
        (7, Fraction(5, 2), 17),
    ],
)
def test_r13_times_rounded_down(value, multiplier, expected):
    assert times_rounded_down(multiplier, value) == expected


@pytest.mark.parametrize(
    ("ca", "base", "costs"),
    [
        # Academic choice RA: base CA 3 + 1 = CA 4; a second, third and fourth
        # spellcasting skill cost 2.0, 2.5 and 3.0 x 4.
        (4, {"ME": 1, "RA": 2, "CA": 3, "DF": 2}, [8, 10, 12]),
        # Base CA 2 + 1 = CA 3: 6, 7.5 -> 7, 9.
        (3, {"ME": 3, "RA": 2, "CA": 2, "DF": 1}, [6, 7, 9]),
    ],
)
def test_r6_further_skills_in_a_category_through_the_engine(catalogue, ca, base, costs):
    member = academic_student(
        base=base,
        free_advancements=[
            {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
            {"line": 2},
        ],
        purchases=[{"skill": "spellcasting/additional-spell-slot"}] * 3,
    )
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats["CA"] == ca
    assert result.purchase_costs == costs
    assert result.cost == {"advancements": sum(costs), "equipment": 0, "total": sum(costs)}
    assert result.spell_slots == {"total": ca + 3, "used": 0}


@pytest.mark.parametrize(
    ("purchases", "ca", "costs"),
    [
        # The first spellcasting skill: 1.5 x CA4 = 6.
        ([{"skill": "spellcasting/spell-focus"}], 4, [6]),
        # +1 CA first (2 x 4 = 8), then 1.5 x CA5 = 7.5 -> 7: priced after the statistic.
        ([{"line": 1, "choice": "CA"}, {"skill": "spellcasting/spell-focus"}], 5, [8, 7]),
    ],
)
def test_r6_first_skill_in_a_category_costs_1_5_x_s(catalogue, purchases, ca, costs):
    member = academic_student(base={"ME": 1, "RA": 2, "CA": 3, "DF": 2}, purchases=purchases)
    evaluation, result = evaluate_member(catalogue, member)
    assert_legal(evaluation)
    assert result.stats["CA"] == ca
    assert result.purchase_costs == costs
    assert evaluation.total_cost == sum(costs)


# --- R7: statistic 0 and 1, armour from DF --------------------------------------------------


@pytest.mark.parametrize(
    ("base", "choice", "slug", "statistic", "value", "cost", "errors"),
    [
        # Academic takes 1 from the choice: base 1 there gives 0.
        (
            {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
            "ME",
            "hand-weapon",
            "ME",
            0,
            0,
            ["needs-statistic"],
        ),
        ({"ME": 2, "RA": 1, "CA": 3, "DF": 2}, "ME", "hand-weapon", "ME", 1, 1, []),
        (
            {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
            "ME",
            "light-shield",
            "ME",
            0,
            0,
            ["needs-statistic"],
        ),
        ({"ME": 2, "RA": 1, "CA": 3, "DF": 2}, "ME", "light-shield", "ME", 1, 1, []),
        (
            {"ME": 2, "RA": 1, "CA": 3, "DF": 2},
            "RA",
            "light-pistol",
            "RA",
            0,
            0,
            ["needs-statistic"],
        ),
        ({"ME": 1, "RA": 2, "CA": 3, "DF": 2}, "RA", "light-pistol", "RA", 1, 1, []),
        # 1.5 x RA1 = 1 (R13).
        ({"ME": 1, "RA": 2, "CA": 3, "DF": 2}, "RA", "heavy-pistol", "RA", 1, 1, []),
    ],
)
def test_r7_weapons_and_shields_need_their_statistic_at_1(
    catalogue, base, choice, slug, statistic, value, cost, errors
):
    member = academic_student(base=base, choice=choice, equipment=[slug])
    evaluation, result = evaluate_member(catalogue, member)
    assert found(evaluation.errors) == [(f"{MEMBER}/equipment/0", code) for code in errors]
    assert found(evaluation.warnings) == []
    assert result.stats[statistic] == value
    assert result.equipment_costs == [cost]


@pytest.mark.parametrize(
    ("base", "df", "light", "heavy"),
    [
        ({"ME": 3, "RA": 2, "CA": 2, "DF": 1}, 7, 2, 5),  # DF 1 + 6 = 7: 7 - 5, 7 - 2
        ({"ME": 1, "RA": 2, "CA": 3, "DF": 2}, 8, 3, 6),
        ({"ME": 1, "RA": 2, "CA": 2, "DF": 3}, 9, 4, 7),
    ],
)
def test_r7_armour_costs_df_minus_5_and_df_minus_2(catalogue, base, df, light, heavy):
    for slug, cost in (("light-armour", light), ("heavy-armour", heavy)):
        evaluation, result = evaluate_member(
            catalogue, academic_student(base=base, equipment=[slug])
        )
        assert_legal(evaluation)
        assert result.stats["DF"] == df
        assert result.equipment_costs == [cost]
