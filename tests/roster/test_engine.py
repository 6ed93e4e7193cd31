"""The roster engine against the rulebook's worked examples and each ruling R1-R13."""

import copy

import pytest

from roster.engine import evaluate, level_for_xp
from tests.roster.builders import emma, force, julius, legal_force, student


def codes(evaluation, pointer_prefix: str = "") -> list[str]:
    return [p.code for p in evaluation.errors if p.pointer.startswith(pointer_prefix)]


def member_result(catalogue, member, index: int = 0):
    others = [student(n) for n in ("Ann", "Ben", "Cat", "Dan")]
    members = [*others[:index], member, *others[index:]]
    evaluation = evaluate(force(*members[:5], resources=500), catalogue)
    return evaluation, evaluation.members[index]


# --- worked examples -------------------------------------------------------------------


def test_emma_matches_the_rulebook(catalogue):
    evaluation = evaluate(legal_force(), catalogue)
    assert evaluation.valid, evaluation.errors
    result = evaluation.members[0]
    # RULINGS.md: after society ME1 RA1 CA4 DF8 HP10 FR5; picked skill -2 FR, +2 HP.
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}
    assert result.defence == {"melee": 8, "ranged": 8}
    assert result.skills == ["spellcasting/spell-focus"]
    assert result.spell_slots == {"total": 4, "used": 1}
    # Simple weapon 1xME = 1, Medical Kit floor(1.5 x FR3) = 4 (R7, R13).
    assert result.cost == {"advancements": 0, "equipment": 5, "total": 5}
    assert result.equipment_costs == [1, 4]
    assert result.unverified_rolls == 0
    assert result.level == 1


def test_emma_after_society_only(catalogue):
    member = emma()
    member["free_advancements"] = [{"line": 3}, {"line": 2}]  # +2 FR, +2 HP
    member["equipment"] = []
    member["spells"] = []
    _, result = member_result(catalogue, member)
    assert result.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 7}


def test_julius_matches_the_rulebook(catalogue):
    """+1 ME at ME2 costs 4, then a second Movement skill 2.0 x max(ME3, RA2) = 6."""
    evaluation, result = member_result(catalogue, julius())
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.stats["ME"] == 3
    assert result.stats["RA"] == 2
    assert result.purchase_costs == [4, 6]
    assert result.cost["advancements"] == 10


# --- R1 base statistics ----------------------------------------------------------------


@pytest.mark.parametrize(
    "base",
    [{"ME": 3, "RA": 2, "CA": 2, "DF": 1}, {"ME": 1, "RA": 2, "CA": 2, "DF": 3}],
)
def test_r1_any_permutation_of_3_2_2_1_is_legal(catalogue, base):
    evaluation, result = member_result(catalogue, student("Eve", base=base))
    assert "invalid-base-statistics" not in codes(evaluation)
    # DF gets +6; every student starts with HP 10 (+1 from technical line 2) and FR 5.
    assert result.stats["DF"] == base["DF"] + 6 + 2


@pytest.mark.parametrize(
    "base",
    [{"ME": 3, "RA": 3, "CA": 1, "DF": 1}, {"ME": 2, "RA": 2, "CA": 2, "DF": 2}],
)
def test_r1_other_values_are_an_error_at_base(catalogue, base):
    evaluation, _ = member_result(catalogue, student("Eve", base=base))
    assert ("/members/0/base", "invalid-base-statistics") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R2 society -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("society", "choice", "expected"),
    [
        ("academic", "ME", {"ME": 0, "RA": 2, "CA": 4}),
        ("academic", "RA", {"ME": 1, "RA": 1, "CA": 4}),
        ("sporting", "ME", {"ME": 2, "RA": 2, "CA": 2}),
        ("sporting", "RA", {"ME": 1, "RA": 3, "CA": 2}),
        ("technical", "RA", {"ME": 0, "RA": 3, "CA": 3}),
        ("technical", "CA", {"ME": 0, "RA": 2, "CA": 4}),
    ],
)
def test_r2_society_modifiers(catalogue, society, choice, expected):
    member = student("Eve", base={"ME": 1, "RA": 2, "CA": 3, "DF": 2})
    member["club"] = {"name": "Club", "society": society, "choice": choice}
    member["free_advancements"] = [{"line": 2, "choice": "HP"}, {"line": 3}]
    if society == "academic":
        member["free_advancements"] = [{"line": 2}, {"line": 3}]
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0/club")
    assert {k: result.stats[k] for k in expected} == expected


def test_r2_choice_must_be_the_societys(catalogue):
    member = student("Eve")
    member["club"]["choice"] = "ME"  # technical offers RA or CA
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/club/choice", "invalid-choice") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r2_unknown_society_points_at_it(catalogue):
    member = student("Eve")
    member["club"]["society"] = "chess"
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/club/society", "unknown-society") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R3 bounds ------------------------------------------------------------------------


def test_r3_active_statistic_may_not_exceed_5(catalogue):
    # ME 3 base, sporting +1 ME = 4, line 1 +1 ME = 5 (fine), then a purchase of ... line 1
    # is taken; use technical: ME 3 -1 = 2. So build RA: 3 +1 (technical) = 4, +1 line 1 = 5.
    member = student("Eve", base={"ME": 1, "RA": 3, "CA": 2, "DF": 2})
    member["free_advancements"] = [{"line": 1, "choice": "RA"}, {"line": 3}]
    evaluation, result = member_result(catalogue, member)
    assert result.stats["RA"] == 5
    assert "statistic-out-of-bounds" not in codes(evaluation)

    member["free_advancements"] = [{"line": 1, "choice": "RA"}, {"line": 3}]
    member["level_ups"] = [{"line": 1, "choice": "RA"}]
    member["xp"] = 3
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/level_ups/0", "statistic-out-of-bounds") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r3_fr_may_not_go_below_zero(catalogue):
    member = emma()
    member["free_advancements"][0]["rerolls"] = 1  # picked -2 and one re-roll -1: FR 2
    _, result = member_result(catalogue, member)
    assert result.stats["FR"] == 2
    member["free_advancements"][0]["rerolls"] = 4  # FR 5 - 2 - 4 = -1
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/0", "statistic-out-of-bounds") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r3_equipment_df_is_capped_with_a_warning(catalogue):
    # Technical: DF 3+6 = 9, +2 DF line 3 = 11; level-ups of +2 DF take it to 15.
    member = student("Eve", base={"ME": 2, "RA": 2, "CA": 1, "DF": 3})
    member["xp"] = 7
    member["level_ups"] = [{"line": 3}, {"line": 1, "choice": "DF"}]
    member["free_advancements"] = [{"line": 3}, {"line": 2, "choice": "HP"}]
    member["equipment"] = ["heavy-armour"]
    evaluation, result = member_result(catalogue, member)
    assert result.stats["DF"] == 14
    assert result.defence == {"melee": 16, "ranged": 16}
    assert not codes(evaluation, "/members/0")
    member["level_ups"] = [{"line": 3}, {"line": 3}]  # DF 15, heavy armour +2 -> 17 -> 16
    evaluation, result = member_result(catalogue, member)
    assert result.defence == {"melee": 16, "ranged": 16}
    assert [(w.pointer, w.code) for w in evaluation.warnings] == [
        ("/members/0/equipment/0", "df-capped")
    ]
    assert not codes(evaluation, "/members/0")


# --- R4 free advancements ---------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 3])
def test_r4_exactly_two_free_advancements(catalogue, count):
    member = student("Eve")
    member["free_advancements"] = [
        {"line": 3},
        {"line": 2, "choice": "HP"},
        {"line": 1, "choice": "CA"},
    ][:count]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements", "free-advancement-count") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r4_two_different_lines(catalogue):
    member = student("Eve")
    member["free_advancements"] = [{"line": 2, "choice": "HP"}, {"line": 2, "choice": "FR"}]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/1/line", "duplicate-line") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r4_a_line_taken_twice_is_named_as_the_builder_shows_it(catalogue):
    member = student("Eve")  # technical: line 3 is +2 DF, line 6 a Technical Skill
    for line, label in [(3, "+2 DF"), (6, "Technical Skill")]:
        member["free_advancements"] = [{"line": line}, {"line": line}]
        evaluation, _ = member_result(catalogue, member)
        assert [p.message for p in evaluation.errors if p.code == "duplicate-line"] == [
            f"Free advancements come from two different lines; {label} is taken twice."
        ]


def test_r4_or_line_needs_a_choice_and_other_lines_take_none(catalogue):
    member = student("Eve")
    member["free_advancements"] = [{"line": 2}, {"line": 3, "choice": "DF"}]
    evaluation, _ = member_result(catalogue, member)
    found = [(p.pointer, p.code) for p in evaluation.errors]
    assert ("/members/0/free_advancements/0/choice", "choice-required") in found
    assert ("/members/0/free_advancements/1/choice", "choice-not-applicable") in found


@pytest.mark.parametrize(
    ("society", "line", "choice", "statistic", "amount"),
    [
        ("technical", 1, "DF", "DF", 1),
        ("technical", 1, "ME", "ME", 1),
        ("technical", 2, "FR", "FR", 1),
        ("academic", 1, "RA", "RA", 1),
        ("sporting", 2, "DF", "DF", 1),
        ("sporting", 2, "HP", "HP", 2),
    ],
)
def test_r4_choices_of_or_lines(catalogue, society, line, choice, statistic, amount):
    member = student("Eve", base={"ME": 2, "RA": 2, "CA": 1, "DF": 3})
    member["club"] = {"name": "Club", "society": society, "choice": "RA"}
    other = {"technical": {"line": 3}, "academic": {"line": 3}, "sporting": {"line": 3}}
    member["free_advancements"] = [{"line": line, "choice": choice}, other[society]]
    before = copy.deepcopy(member)
    before["free_advancements"] = [other[society], {"line": 3 if line != 3 else 2}]
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    member["free_advancements"] = [other[society]]
    _, without = member_result(catalogue, member)
    assert result.stats[statistic] - without.stats[statistic] == amount


def test_r4_academic_line_1_offers_ca_or_ra_only(catalogue):
    member = emma()
    member["free_advancements"] = [{"line": 1, "choice": "ME"}, {"line": 2}]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/0/choice", "invalid-choice") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R5 skills from free advancements ----------------------------------------------------


def test_r5_rolled_skill_costs_no_fr_and_counts_as_unverified(catalogue):
    member = emma()
    member["free_advancements"][0]["method"] = "rolled"
    _, result = member_result(catalogue, member)
    assert result.stats["FR"] == 5
    assert result.unverified_rolls == 1


def test_r5_verified_rolls_are_not_counted(catalogue):
    member = emma()
    member["free_advancements"][0]["method"] = "rolled"
    document = legal_force(**member)
    evaluation = evaluate(document, catalogue, verified_rolls={"/members/0/free_advancements/0"})
    assert evaluation.members[0].unverified_rolls == 0


def test_r5_rerolls_cost_one_fr_each(catalogue):
    member = emma()
    member["free_advancements"][0].update(method="rolled", rerolls=2)
    _, result = member_result(catalogue, member)
    assert result.stats["FR"] == 3


def test_r5_skill_from_another_category_needs_a_natural_12(catalogue):
    member = emma()
    member["free_advancements"][0] = {"line": 4, "skill": "melee/dual-wield", "method": "rolled"}
    member["spells"] = []
    member["core_schools"] = []
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/0/skill", "skill-wrong-category") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]
    member["free_advancements"][0]["natural_12"] = True
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.skills == ["melee/dual-wield"]


def test_r5_skill_lines_need_skill_and_method(catalogue):
    member = emma()
    member["free_advancements"][0] = {"line": 4, "skill": "spellcasting/spell-focus"}
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/0/method", "skill-required") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r5_statistic_line_takes_no_skill(catalogue):
    member = emma()
    member["free_advancements"][1] = {"line": 2, "skill": "movement/catfall", "method": "rolled"}
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/1/skill", "not-a-skill-line") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r5_determination_excludes_extreme_determination(catalogue):
    member = emma()
    member["free_advancements"] = [
        {"line": 5, "skill": "movement/determination", "method": "picked"},
        {"line": 6, "skill": "support/extreme-determination", "method": "picked"},
    ]
    member["spells"] = []
    member["core_schools"] = []
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/1/skill", "excluded-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r5_unknown_skill_points_at_it(catalogue):
    member = emma()
    member["free_advancements"][0]["skill"] = "spellcasting/fireball"
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/free_advancements/0/skill", "unknown-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R6 purchased advancements ----------------------------------------------------------


def test_r6_statistic_costs_twice_the_current_value(catalogue):
    member = emma()  # academic: HP 12 after free +2 HP
    member["purchases"] = [{"line": 3}]  # +2 FR at FR 3 costs 6
    _, result = member_result(catalogue, member)
    assert result.purchase_costs == [6]
    assert result.stats["FR"] == 5


def test_r6_statistic_line_once_at_creation(catalogue):
    member = emma()
    member["purchases"] = [{"line": 2}]  # +2 HP was a free advancement
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/purchases/0/line", "duplicate-line") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r6_statistics_before_skills(catalogue):
    member = julius()
    member["purchases"] = [{"skill": "movement/quick-mantle"}, {"line": 1, "choice": "ME"}]
    evaluation, _result = member_result(catalogue, member)
    assert ("/members/0/purchases/1", "statistic-after-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r6_skill_multiplier_grows_by_half_per_skill_in_category(catalogue):
    member = julius()  # ME 3 after purchase, one movement skill already
    member["purchases"] = [
        {"line": 1, "choice": "ME"},
        {"skill": "movement/quick-mantle"},  # 2.0 x 3 = 6
        {"skill": "movement/wall-run"},  # 2.5 x 3 = 7.5 -> 7 (R13)
        {"skill": "melee/next-target"},  # 2.0 x ME 3 = 6
        {"skill": "ranged/quickdraw"},  # first ranged: 1.5 x RA 2 = 3
    ]
    _, result = member_result(catalogue, member)
    assert result.purchase_costs == [4, 6, 7, 6, 3]


def test_r6_skill_must_be_on_the_society_table(catalogue):
    member = julius()
    member["purchases"] = [{"skill": "spellcasting/spell-focus"}]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/purchases/0/skill", "skill-not-in-society-table") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r6_no_skill_twice_except_additional_spell_slot(catalogue):
    member = emma()
    member["purchases"] = [
        {"skill": "spellcasting/spell-focus"},
        {"skill": "spellcasting/additional-spell-slot"},
        {"skill": "spellcasting/additional-spell-slot"},
    ]
    evaluation, result = member_result(catalogue, member)
    found = [(p.pointer, p.code) for p in evaluation.errors]
    assert ("/members/0/purchases/0/skill", "duplicate-skill") in found
    assert not [f for f in found if f[0].startswith("/members/0/purchases/1")]
    assert not [f for f in found if f[0].startswith("/members/0/purchases/2")]
    # Second and third spellcasting skills: 2.0 x CA4 = 8 and 2.5 x 4 = 10.
    assert result.purchase_costs == [0, 8, 10]
    assert result.spell_slots["total"] == 6


def test_r6_skills_are_bought_by_name_not_line(catalogue):
    member = emma()
    member["purchases"] = [{"line": 5}]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/purchases/0/line", "purchase-skill-line") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R7 equipment costs ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("simple-weapon", 2),  # 1 x ME2
        ("hand-weapon", 3),  # 1.5 x ME2
        ("great-weapon", 6),  # 3 x ME2
        ("light-pistol", 3),  # 1 x RA3
        ("heavy-pistol", 4),  # 1.5 x RA3 = 4.5 -> 4 (R13)
        ("assault-rifle", 7),  # 2.5 x RA3 = 7.5 -> 7
        ("sniper-rifle", 9),  # 3 x RA3
        ("light-armour", 2),  # DF7 - 5
        ("heavy-armour", 5),  # DF7 - 2
        ("heavy-shield", 3),  # 1.5 x ME2
        ("medical-kit", 10),  # 1.5 x FR7 = 10.5 -> 10 (R13)
        ("vision-goggles", 3),
        ("tool-kit", 10),
    ],
)
def test_r7_equipment_costs(catalogue, slug, expected):
    member = student("Eve", base={"ME": 3, "RA": 2, "CA": 2, "DF": 1})
    member["club"] = {"name": "Chess Club", "society": "academic", "choice": "ME"}
    member["free_advancements"] = [{"line": 1, "choice": "RA"}, {"line": 3}]
    member["equipment"] = [slug]
    _, result = member_result(catalogue, member)
    # Academic: ME 3-1 = 2, CA 3; line 1 +1 RA = 3; line 3 +2 FR = 7.
    assert {k: result.stats[k] for k in ("ME", "RA", "DF", "FR")} == {
        "ME": 2,
        "RA": 3,
        "DF": 7,
        "FR": 7,
    }
    assert result.equipment_costs == [expected]


def test_r7_weapon_needs_its_statistic(catalogue):
    member = emma()  # academic choice ME: ME 0
    member["club"]["choice"] = "ME"
    member["base"] = {"ME": 1, "RA": 2, "CA": 3, "DF": 2}
    member["equipment"] = ["hand-weapon"]
    evaluation, result = member_result(catalogue, member)
    assert result.stats["ME"] == 0
    assert ("/members/0/equipment/0", "needs-statistic") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r7_same_weapon_twice_is_allowed(catalogue):
    member = julius()
    member["equipment"] = ["hand-weapon", "hand-weapon"]
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.equipment_costs == [4, 4]  # floor(1.5 x ME3)


def test_r7_unknown_equipment(catalogue):
    member = julius()
    member["equipment"] = ["lightsaber"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/equipment/0", "unknown-equipment") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R8 loadout ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "equipment",
    [
        ["heavy-weapon-2h", "light-armour"],
        ["hand-weapon", "light-pistol", "medical-kit"],
        ["hand-weapon", "light-shield", "heavy-weapon-2h"],  # 2H as the backup weapon
        ["great-weapon", "hand-weapon", "light-pistol"],  # 1H+1H in hand, 2H as backup
        ["great-weapon", "polearm"],
    ],
)
def test_r8_legal_loadouts(catalogue, equipment):
    member = julius()
    member["purchases"] = []
    member["equipment"] = equipment
    evaluation, _ = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors


def test_r8_two_handed_weapon_and_armour_leave_no_room_for_a_kit(catalogue):
    member = julius()
    member["purchases"] = []
    member["equipment"] = ["heavy-weapon-2h", "light-armour", "medical-kit"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/equipment/2", "too-many-pieces") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r8_too_many_hands(catalogue):
    member = julius()
    member["purchases"] = []
    member["equipment"] = ["great-weapon", "light-armour", "hand-weapon"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/equipment/2", "too-many-hands") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r8_shields_change_melee_and_ranged_defence_differently(catalogue):
    member = julius()  # sporting, DF 8
    member["purchases"] = []
    member["equipment"] = ["hand-weapon", "heavy-shield", "light-armour"]
    _, result = member_result(catalogue, member)
    assert result.stats["DF"] == 8
    assert result.defence == {"melee": 11, "ranged": 10}
    member["equipment"] = ["hand-weapon", "light-shield"]
    _, result = member_result(catalogue, member)
    assert result.defence == {"melee": 9, "ranged": 8}


# --- R9 spells ----------------------------------------------------------------------------


def test_r9_core_school_spell_takes_one_slot_others_two(catalogue):
    member = emma()
    member["spells"] = ["healing-spring", "clock-down"]
    _, result = member_result(catalogue, member)
    assert result.spell_slots == {"total": 4, "used": 3}


def test_r9_too_many_spells_points_at_the_first_that_does_not_fit(catalogue):
    member = emma()
    member["spells"] = ["healing-spring", "clock-down", "seraphic-bolt"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/spells/2", "too-many-spells") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r9_spell_focus_uses_a_slot_and_needs_the_skill(catalogue):
    member = emma()
    member["spell_focus"] = True
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.spell_slots == {"total": 4, "used": 2}
    member["free_advancements"][0]["skill"] = "spellcasting/anathema-aura"
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/spell_focus", "needs-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r9_mastery_needs_skill_and_a_known_spell(catalogue):
    member = emma()
    member["free_advancements"][0]["skill"] = "spellcasting/supreme-spell-mastery"
    member["mastery"] = "healing-spring"
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.spell_slots["used"] == 2
    member["mastery"] = "clock-down"
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/mastery", "mastery-not-known") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r9_dragon_slayer_is_extra_and_needs_its_skill(catalogue):
    member = emma()
    member["spells"] = ["healing-spring", "dragon-slayer"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/spells/1", "needs-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]
    member["free_advancements"][0]["skill"] = "spellcasting/dragon-slayer"
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.spell_slots["used"] == 1


def test_r9_only_ca_1_or_more_learns_spells(catalogue):
    member = julius()  # sporting -1 CA: CA 2 ... use academic choice to get CA 0
    member["base"] = {"ME": 3, "RA": 2, "CA": 1, "DF": 2}
    member["club"]["choice"] = "ME"  # sporting: CA 1 - 1 = 0
    member["spells"] = ["seraphic-bolt"]
    member["core_schools"] = ["destruction"]
    evaluation, result = member_result(catalogue, member)
    assert result.stats["CA"] == 0
    assert ("/members/0/spells", "needs-ca") in [(p.pointer, p.code) for p in evaluation.errors]


def test_r9_additional_spell_slot_adds_a_slot(catalogue):
    member = emma()
    member["free_advancements"][0]["skill"] = "spellcasting/additional-spell-slot"
    _, result = member_result(catalogue, member)
    assert result.spell_slots["total"] == 5


def test_r9_two_core_schools_only_with_spell_dilettante(catalogue):
    member = emma()
    member["core_schools"] = ["restoration", "destruction"]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/core_schools/1", "too-many-core-schools") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]
    member["free_advancements"][0]["skill"] = "spellcasting/spell-dilettante"
    member["spells"] = ["healing-spring", "seraphic-bolt"]
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.spell_slots["used"] == 2


def test_r9_unknown_and_duplicate_spells(catalogue):
    member = emma()
    member["spells"] = ["healing-spring", "healing-spring", "fireball"]
    evaluation, _ = member_result(catalogue, member)
    found = [(p.pointer, p.code) for p in evaluation.errors]
    assert ("/members/0/spells/1", "duplicate-spell") in found
    assert ("/members/0/spells/2", "unknown-spell") in found


def test_r9_spells_need_a_core_school(catalogue):
    member = emma()
    member["core_schools"] = []
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/core_schools", "core-school-required") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


# --- R10 size, R11 resources, R12 pointers, R13 rounding ------------------------------------


@pytest.mark.parametrize(("students", "legal"), [(3, False), (4, True), (6, True), (7, False)])
def test_r10_four_to_six_students(catalogue, students, legal):
    members = [student(f"S{i}") for i in range(students)]
    evaluation = evaluate(force(*members), catalogue)
    assert ("force-size" in codes(evaluation, "/members")) is not legal


def test_r10_one_mentor_not_counted(catalogue):
    members = [student(f"S{i}") for i in range(6)]
    members.append(student("Teacher", role="mentor"))
    assert evaluate(force(*members), catalogue).valid
    members.append(student("Coach", role="mentor"))
    evaluation = evaluate(force(*members), catalogue)
    assert [(p.pointer, p.code) for p in evaluation.errors] == [
        ("/members/7/role", "too-many-mentors")
    ]


def test_r10_member_names_are_unique(catalogue):
    evaluation = evaluate(force(*(student(n) for n in ("Ann", "Ben", "Cat", "ann"))), catalogue)
    assert [(p.pointer, p.code) for p in evaluation.errors] == [("/members", "duplicate-name")]


def test_r11_total_cost_within_resources(catalogue):
    document = legal_force()
    document["resources"] = 5
    evaluation = evaluate(document, catalogue)
    assert evaluation.valid
    assert (evaluation.total_cost, evaluation.remaining) == (5, 0)
    document["resources"] = 4
    evaluation = evaluate(document, catalogue)
    assert [(p.pointer, p.code) for p in evaluation.errors] == [("/resources", "over-budget")]
    assert evaluation.remaining == -1


def test_r12_all_errors_reported_at_once_with_pointers(catalogue):
    members = [student(n) for n in ("Ann", "Ben", "Cat")]
    members[1]["equipment"] = ["lightsaber"]
    members[2]["base"] = {"ME": 5, "RA": 5, "CA": 5, "DF": 5}
    evaluation = evaluate(force(*members), catalogue)
    found = {(p.pointer, p.code) for p in evaluation.errors}
    assert {
        ("/members/1/equipment/0", "unknown-equipment"),
        ("/members/2/base", "invalid-base-statistics"),
        ("/members", "force-size"),
    } <= found
    assert all(p.message for p in evaluation.errors)


def test_r13_costs_round_down(catalogue):
    member = emma()  # FR 3: Medical Kit 1.5 x 3 = 4.5 -> 4
    _, result = member_result(catalogue, member)
    assert result.equipment_costs[1] == 4


# --- R16, R17 levels ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("xp", "level"),
    [
        (0, 1),
        (2, 1),
        (3, 2),
        (6, 2),
        (7, 3),
        (12, 4),
        (18, 5),
        (25, 6),
        (33, 7),
        (42, 8),
        (52, 9),
        (63, 10),
        (1000, 10),
    ],
)
def test_r16_level_follows_xp(xp, level):
    assert level_for_xp(xp) == level


def test_r17_level_ups_pending_warning_and_excess_error(catalogue):
    member = julius()
    member["xp"] = 7  # level 3: two level-ups
    member["level_ups"] = [{"line": 3}]
    evaluation, result = member_result(catalogue, member)
    assert result.level == 3
    assert [(w.pointer, w.code) for w in evaluation.warnings] == [
        ("/members/0/level_ups", "level-up-pending")
    ]
    member["level_ups"] = [{"line": 3}, {"line": 3}, {"line": 3}]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/level_ups/2", "too-many-level-ups") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r17_level_up_may_repeat_a_statistic_line_but_not_a_skill(catalogue):
    member = julius()
    member["xp"] = 7
    member["level_ups"] = [{"line": 1, "choice": "ME"}, {"line": 1, "choice": "ME"}]
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.stats["ME"] == 5
    member["level_ups"] = [
        {"line": 6, "skill": "movement/catfall", "method": "picked"},
        {"line": 3},
    ]
    evaluation, _ = member_result(catalogue, member)
    assert ("/members/0/level_ups/0/skill", "duplicate-skill") in [
        (p.pointer, p.code) for p in evaluation.errors
    ]


def test_r17_between_battles_a_statistic_line_may_be_bought_again_after_level_ups(catalogue):
    member = emma()  # +2 HP (line 2) taken free at creation; HP 12
    member["xp"] = 3
    member["level_ups"] = [{"line": 2}]  # HP 14
    member["purchases"] = [{"line": 2, "between_battles": True}]  # 2 x HP14 = 28, HP 16
    evaluation, result = member_result(catalogue, member)
    assert not codes(evaluation, "/members/0"), evaluation.errors
    assert result.purchase_costs == [28]
    assert result.stats["HP"] == 16


def test_r6_creation_purchases_are_priced_before_level_ups(catalogue):
    member = julius()  # ME 2 at creation
    member["xp"] = 3
    member["level_ups"] = [{"line": 1, "choice": "ME"}]
    member["purchases"] = [
        {"line": 3},  # +1 FR at FR 5 (two picked skills: FR 1) -> 2 x 1 = 2
        {"skill": "movement/quick-mantle"},  # 2.0 x max(ME2, RA2) = 4, before the level-up
        {"skill": "movement/wall-run", "between_battles": True},  # 2.5 x ME3 = 7
    ]
    _, result = member_result(catalogue, member)
    assert result.purchase_costs == [2, 4, 7]
