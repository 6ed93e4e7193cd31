"""roster.options: what a member could take next, as the engine answers it."""

import re

import pytest

from roster import options
from roster.engine import evaluate
from tests.roster.builders import emma, force, student


def by_key(groups) -> dict[str, options.Option]:
    return {o.key: o for g in groups for o in g.options}


def engine_member(member, catalogue):
    return evaluate(force(member, resources=1_000_000), catalogue).members[0]


# --- equipment (R7, R8) ---------------------------------------------------------------


def test_a_two_handed_weapon_and_armour_leave_no_room_for_a_medical_kit(catalogue):
    member = emma()
    member["equipment"] = ["heavy-weapon-2h", "light-armour"]
    kit = by_key(options.equipment_options(member, catalogue))["medical-kit"]
    assert not kit.available
    # The engine's own R8 message for the new piece, word for word.
    with_kit = {**member, "equipment": [*member["equipment"], "medical-kit"]}
    result = evaluate(force(with_kit, resources=1_000_000), catalogue)
    [error] = [e for e in result.errors if e.pointer == "/members/0/equipment/2"]
    assert error.code == "too-many-pieces"
    # ... said of the kit's own row, in a phrase (the group says it once when shared).
    assert kit.reason == "The one extra piece (backup weapon, armour or item) is taken."


def test_a_student_with_ra_0_cannot_buy_a_pistol(catalogue):
    # Technical, -1 ME, +1 CA: base RA 1 ... made RA 0 by an academic choice of RA.
    member = student("Zero", base={"ME": 3, "RA": 1, "CA": 2, "DF": 2})
    member["club"] = {"name": "Chess Club", "society": "academic", "choice": "RA"}
    member["free_advancements"] = [{"line": 2}, {"line": 3}]
    assert engine_member(member, catalogue).stats["RA"] == 0
    offered = by_key(options.equipment_options(member, catalogue))
    assert offered["light-pistol"].reason == "Needs RA 1 or more."
    assert offered["sniper-rifle"].reason == "Needs RA 1 or more."
    assert offered["simple-weapon"].available
    assert offered["vision-goggles"].available  # flat-priced items need no statistic


def test_equipment_costs_are_the_engines(catalogue):
    member = emma()
    member["equipment"] = []
    offered = by_key(options.equipment_options(member, catalogue))
    for slug, option in offered.items():
        priced = engine_member({**member, "equipment": [slug]}, catalogue)
        assert option.cost == priced.equipment_costs[0], slug
    assert offered["medical-kit"].cost == 4  # 1.5 x FR 3, rounded down (R7, R13)
    assert offered["simple-weapon"].cost == 1


def test_no_hand_free_is_explained(catalogue):
    member = emma()
    member["equipment"] = ["great-weapon", "medical-kit"]
    offered = by_key(options.equipment_options(member, catalogue))
    assert offered["light-pistol"].reason == (
        "Needs a hand and no hand is free (the extra piece is taken)."
    )
    assert offered["light-armour"].reason == (
        "The one extra piece (backup weapon, armour or item) is taken."
    )


def test_one_free_hand_is_not_called_none(catalogue):
    member = emma()  # a Simple Weapon in one hand, a Medical Kit as the extra piece
    assert member["equipment"] == ["simple-weapon", "medical-kit"]
    offered = by_key(options.equipment_options(member, catalogue))
    assert offered["great-weapon"].reason == (
        "Needs 2 hands and only 1 is free (the extra piece is taken)."
    )
    assert offered["light-shield"].available  # the free hand


def test_a_piece_that_would_displace_another_names_it_instead_of_blaming_it(catalogue):
    member = emma()
    member["equipment"] = ["polearm", "simple-weapon"]  # the Polearm is the backup (R8)
    offered = by_key(options.equipment_options(member, catalogue))
    # The engine's error would land on the Simple Weapon (the kit takes the extra piece,
    # the Polearm goes in both hands); the kit's row says so, without blaming either.
    assert offered["medical-kit"].reason == (
        "No room: as the extra piece it would leave Simple Weapon without a hand."
    )


def test_every_option_says_what_it_does(catalogue):
    groups = [
        *options.equipment_options(emma(), catalogue),
        *options.spell_options(emma(), catalogue),
        *(g for g in options.purchase_options(emma(), catalogue) if g.slug != "statistics"),
    ]
    missing = [o.name for g in groups for o in g.options if not o.summary]
    assert missing == []


def test_a_backup_weapon_is_fine_when_the_extra_slot_is_free(catalogue):
    member = emma()
    member["equipment"] = ["great-weapon"]
    offered = by_key(options.equipment_options(member, catalogue))
    assert offered["polearm"].available  # the second two-hander becomes the backup (R8)


def test_equipment_groups_follow_the_rulebook(catalogue):
    groups = options.equipment_options(emma(), catalogue)
    assert [g.slug for g in groups] == ["melee", "ranged", "armour", "items"]
    assert sum(len(g.options) for g in groups) == len(catalogue.equipment)


# --- purchases (R6) ---------------------------------------------------------------------


def test_statistic_purchases_cost_twice_the_statistic(catalogue):
    purchases = by_key(options.purchase_options(emma(), catalogue))
    assert purchases["line:1:CA"].cost == 8  # 2 x CA 4
    assert purchases["line:1:RA"].cost == 2  # 2 x RA 1
    # Line 2 (+2 HP) was a free advancement: not again at creation (R6).
    taken = purchases["line:2"]
    assert not taken.available
    assert taken.cost is None
    assert taken.reason == "Already taken: at creation each statistic line is taken once (R6)."


def test_a_statistic_that_reprices_other_things_says_so(catalogue):
    purchases = by_key(options.purchase_options(emma(), catalogue))
    fr = purchases["line:3"]
    assert fr.cost == 6  # 2 x FR 3
    assert fr.change == 9  # ... and the Medical Kit goes from 4 to 7 (1.5 x FR 5)


def test_julius_costs_as_in_the_rulebook(catalogue):
    julius = student(
        "Julius",
        club={"name": "Riding Club", "society": "sporting", "choice": "ME"},
        base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        free_advancements=[
            {"line": 4, "skill": "melee/outsized-weapon", "method": "picked"},
            {"line": 6, "skill": "movement/catfall", "method": "picked"},
        ],
    )
    first = by_key(options.purchase_options(julius, catalogue))
    assert first["line:1:ME"].cost == 4
    bought = options.with_purchase(julius, {"line": 1, "choice": "ME"})
    second = by_key(options.purchase_options(bought, catalogue))
    assert second["skill:movement/quick-mantle"].cost == 6
    assert second["skill:melee/outsized-weapon"].reason == "Already has it."
    assert {g.slug for g in options.purchase_options(julius, catalogue)} == {
        "statistics",
        "melee",
        "ranged",
        "movement",
    }


def test_statistics_go_before_skills(catalogue):
    member = emma()
    member = options.with_purchase(member, {"skill": "movement/catfall"})
    member = options.with_purchase(member, {"line": 1, "choice": "RA"})
    assert member["purchases"] == [{"line": 1, "choice": "RA"}, {"skill": "movement/catfall"}]
    result = evaluate(force(member, resources=1_000_000), catalogue)
    assert not [e for e in result.errors if e.code == "statistic-after-skill"]


def test_purchase_keys_round_trip():
    for purchase in ({"line": 1, "choice": "CA"}, {"line": 2}, {"skill": "melee/dual-wield"}):
        assert options.purchase_from_key(options.purchase_key(purchase)) == purchase
    assert options.purchase_from_key("nonsense") is None
    assert options.purchase_from_key("line:x") is None


# --- free advancements (R4, R5) -----------------------------------------------------------


def test_a_line_taken_by_the_other_slot_is_unavailable(catalogue):
    offered = {o.key: o for o in options.free_advancement_options(emma(), catalogue, 1)}
    assert "taken twice" in offered["4"].reason  # slot 0 has the Spellcasting line
    assert offered["1:CA"].available
    assert offered["5"].available  # a skill line: the roll or pick comes next


def test_pick_options_explain_owned_skills(catalogue):
    member = emma()
    member["free_advancements"] = [
        {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
        {"line": 5},
    ]
    member["purchases"] = [{"skill": "movement/catfall"}]
    picks = {
        o.key: o
        for o in options.pick_options(member, catalogue, "free_advancements", 1, "movement")
    }
    assert picks["movement/wall-run"].available
    assert not picks["movement/catfall"].available


def test_picking_is_refused_when_fr_would_drop_below_zero(catalogue):
    member = emma()
    member["free_advancements"] = [
        {"line": 4, "skill": "spellcasting/spell-focus", "method": "rolled", "rerolls": 4},
        {"line": 5},
    ]
    picks = options.pick_options(member, catalogue, "free_advancements", 1, "movement")
    assert all("FR" in o.reason for o in picks)  # FR 1 after four re-rolls; a pick takes 2


# --- level-ups (R17) ------------------------------------------------------------------------


def test_level_up_lines_in_the_builder_s_words_with_why_not(catalogue):
    """A technical student's next level-up: each line as the builder names it, a skill
    line with what it brings, and a statistic at its bound refused (R3)."""
    member = student("Ann", xp=20, level_ups=[{"line": 3}, {"line": 3}, {"line": 3}])
    offered = options.level_up_options(member, catalogue)
    assert [(o.key, o.name) for o in offered] == [
        ("1:ME", "+1 ME"),
        ("1:RA", "+1 RA"),
        ("1:CA", "+1 CA"),
        ("1:DF", "+1 DF"),
        ("2:HP", "+1 HP"),
        ("2:FR", "+1 FR"),
        ("3", "+2 DF"),
        ("4", "Movement Skill"),
        ("5", "Support Skill"),
        ("6", "Technical Skill"),
    ]
    by_key = {o.key: o for o in offered}
    assert by_key["4"].summary == "A Movement skill: rolled for free, or picked for 2 FR (R5)."
    # DF is at R3's bound (16) after three +2 DF: any more is refused, with the reason.
    assert [o.key for o in offered if not o.available] == ["1:DF", "3"]
    assert by_key["1:DF"].reason == "This takes DF to 17; at most 16."
    assert by_key["3"].reason == "This takes DF to 18; at most 16."


def test_level_up_picks_are_the_line_s_table_with_owned_ones_refused(catalogue):
    member = student(
        "Ann", xp=20, level_ups=[{"line": 4, "skill": "movement/catfall", "method": "picked"}]
    )
    picks = options.level_up_pick_options(member, catalogue, 4)
    assert [o.key for o in picks] == [s.key for s in catalogue.skill_categories["movement"].skills]
    by_key = {o.key: o for o in picks}
    assert by_key["movement/catfall"].reason == "Already has it."
    assert by_key["movement/wall-run"].available
    assert by_key["movement/wall-run"].summary == catalogue.skills["movement/wall-run"].summary
    assert options.level_up_pick_options(member, catalogue, 1) == ()  # a statistic line


# --- spells (R9) ----------------------------------------------------------------------------


def test_spell_slots_follow_the_core_school(catalogue):
    spells = by_key(options.spell_options(emma(), catalogue))
    assert spells["reviving-breath"].cost == 1  # restoration is Emma's core school
    assert spells["seraphic-bolt"].cost == 2
    assert not spells["healing-spring"].available  # already known
    assert spells["dragon-slayer"].reason == "Needs the Dragon Slayer skill."
    assert spells["healing-spring"].reason == "Already known."
    assert options.known_spell_slots(emma(), catalogue) == (1,)


def test_no_spells_without_ca(catalogue):
    member = student("Brick", base={"ME": 3, "RA": 2, "CA": 1, "DF": 2})
    member["club"] = {"name": "Rugby Club", "society": "sporting", "choice": "ME"}
    spells = by_key(options.spell_options(member, catalogue))
    assert "CA 1 or more" in spells["healing-spring"].reason


def test_spell_focus_and_mastery(catalogue):
    focus = options.spell_focus_option(emma(), catalogue)
    assert (focus.available, focus.cost) == (True, 1)
    [mastery] = options.mastery_options(emma(), catalogue)
    assert mastery.key == "healing-spring"
    assert "Supreme Spell Mastery" in mastery.reason  # Emma lacks the skill


def test_what_ifs_are_quick(catalogue):
    import time

    start = time.perf_counter()
    for _ in range(5):
        options.equipment_options(emma(), catalogue)
        options.purchase_options(emma(), catalogue)
        options.spell_options(emma(), catalogue)
    assert (time.perf_counter() - start) / 5 < 0.5


JARGON = re.compile(r"between_battles|[a-z]+/[a-z-]+|'|`|/members/|\{|\}")


@pytest.mark.parametrize("between_battles", [False, True])
def test_no_reason_a_player_reads_is_jargon(catalogue, between_battles):
    """Issue #11 (5): no "purchases marked between_battles", no 'category/slug' names,
    no pointers; every refusal a picker shows is plain words."""
    emma_now = {**emma(), "xp": 3, "level_ups": [{"line": 4}]}
    loaded = student("Ann", equipment=["polearm", "simple-weapon", "light-pistol"])
    rows = [
        *(o for g in options.equipment_options(emma_now, catalogue) for o in g.options),
        *(o for g in options.equipment_options(loaded, catalogue) for o in g.options),
        *(o for g in options.spell_options(emma_now, catalogue) for o in g.options),
        *(o for g in options.spell_options(loaded, catalogue) for o in g.options),
        *(
            o
            for member in (emma_now, loaded)
            for g in options.purchase_options(member, catalogue, between_battles=between_battles)
            for o in g.options
        ),
        *options.free_advancement_options(loaded, catalogue, 0),
        *options.pick_options(emma_now, catalogue, "free_advancements", 0, "spellcasting"),
        *options.pick_options(emma_now, catalogue, "level_ups", 0, "spellcasting"),
    ]
    reasons = {o.reason for o in rows if o.reason}
    assert len(reasons) >= 5  # the test means something: there are refusals to read
    assert sorted(r for r in reasons if JARGON.search(r)) == []
