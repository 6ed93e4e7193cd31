"""Rules of roster/engine.py that were checked only through the database-backed services,
and boundaries that mutation testing found unpinned. All pure: plain data in and out.

Every test asserts the engine's whole answer (all errors and warnings) on both sides of
the boundary it is about.
"""

import json
import random
from dataclasses import replace

import pytest

from dbd_site.errors import Problem
from roster import documents
from roster.engine import (
    MemberWhatIf,
    evaluate,
    takeable_skills,
    with_resources,
)
from tests.roster.builders import emma, force, found, julius, student


def julius_force(resources: int):
    """Julius costs 10 (R6: +1 ME at 2 x 2 = 4, Quick Mantle at 1.5 x 4 = 6); the
    classmates cost nothing."""
    return force(julius(), student("Ann"), student("Ben"), student("Cat"), resources=resources)


# --- R11: the force's cost against its Resources ---------------------------------------------


def test_r11_a_force_may_spend_all_its_resources_and_not_one_more(catalogue):
    exact = evaluate(julius_force(10), catalogue)
    assert (exact.total_cost, exact.remaining, found(exact.errors)) == (10, 0, [])
    assert exact.valid

    over = evaluate(julius_force(9), catalogue)
    assert (over.total_cost, over.remaining) == (10, -1)
    assert over.errors == [
        Problem("/resources", "over-budget", "The force costs 10 but has 9 Resources.")
    ]
    assert not over.valid


def test_r11_with_resources_judges_only_the_new_budget(catalogue):
    """A campaign's balance changes without a change to the force: the budget is judged
    again, every other answer stays as it was."""
    evaluation = evaluate(julius_force(10), catalogue)
    poorer = with_resources(evaluation, 9)
    assert poorer.errors == [
        Problem("/resources", "over-budget", "The force costs 10 but has 9 Resources.")
    ]
    assert (poorer.resources, poorer.remaining, poorer.members) == (9, -1, evaluation.members)
    # And back: the old over-budget error goes, none is added twice.
    assert with_resources(poorer, 10).errors == []
    assert with_resources(with_resources(poorer, 8), 9).errors == poorer.errors
    assert evaluation.errors == []  # the original is left as it was


def test_r11_with_resources_keeps_every_other_error(catalogue):
    member = julius()
    member["equipment"] = ["no-such-thing"]
    evaluation = evaluate(
        force(member, student("Ann"), student("Ben"), student("Cat"), resources=10), catalogue
    )
    assert found(evaluation.errors) == [("/members/0/equipment/0", "unknown-equipment")]
    assert found(with_resources(evaluation, 9).errors) == [
        ("/members/0/equipment/0", "unknown-equipment"),
        ("/resources", "over-budget"),
    ]


# --- R5, R6: the skills a roll may give ---------------------------------------------------------


def test_r5_a_skill_owned_once_is_not_offered_again_unless_repeatable(catalogue):
    spellcasting = catalogue.skill_categories["spellcasting"]
    everything = tuple(s.key for s in spellcasting.skills)
    assert takeable_skills(spellcasting, []) == everything
    owned = ["spellcasting/spell-focus", "spellcasting/additional-spell-slot"]
    assert takeable_skills(spellcasting, owned) == tuple(
        key for key in everything if key != "spellcasting/spell-focus"
    )


def test_r5_determination_and_extreme_determination_exclude_each_other(catalogue):
    movement = catalogue.skill_categories["movement"]
    support = catalogue.skill_categories["support"]
    assert "movement/determination" not in takeable_skills(
        movement, ["support/extreme-determination"]
    )
    assert "support/extreme-determination" not in takeable_skills(
        support, ["movement/determination"]
    )
    assert len(takeable_skills(movement, ["support/extreme-determination"])) == 9
    assert len(takeable_skills(movement, ["support/angelic-healing"])) == 10


# --- what-ifs: a variant judged from a snapshot is judged as a whole force of one ----------------


VARIANTS = [
    ("base", {"ME": 2, "RA": 1, "CA": 3, "DF": 2}),
    ("club", {"name": "Chess Club", "society": "technical", "choice": "CA"}),
    ("club", {"name": "Literature Club", "society": "academic", "choice": "ME"}),  # choice only
    ("free_advancements", [{"line": 2}, {"line": 3}]),
    ("purchases", [{"line": 1, "choice": "CA"}, {"skill": "spellcasting/additional-spell-slot"}]),
    ("xp", 7),
    ("level_ups", [{"line": 2}]),
    ("equipment", ["simple-weapon", "light-armour", "medical-kit", "pistol"]),
    ("core_schools", ["manipulation"]),
    ("spells", ["healing-spring", "mend"]),
    ("spell_focus", True),
    ("mastery", "healing-spring"),
    ("name", "Emmy"),
    ("role", "mentor"),
]


@pytest.mark.parametrize(("key", "value"), VARIANTS)
def test_a_what_if_answers_as_the_engine_does_for_that_member_alone(catalogue, key, value):
    member = documents.parse_member(emma())
    what_if = MemberWhatIf(member, catalogue, resources=7)
    variant = documents.with_fields(member, {key: value})
    whole = evaluate(force({**emma(), key: value}, resources=7), catalogue)
    assert what_if.evaluate(variant).as_dict() == whole.as_dict()
    # The snapshots it keeps are the original's: the original is still judged as itself.
    assert (
        what_if.evaluate().as_dict() == evaluate(force(emma(), resources=7), catalogue).as_dict()
    )


def test_what_ifs_in_any_order_give_the_same_answers(catalogue):
    member = documents.parse_member(emma())
    variants = [documents.with_fields(member, {key: value}) for key, value in VARIANTS]
    in_order = MemberWhatIf(member, catalogue, resources=7)
    expected = [in_order.evaluate(v).as_dict() for v in variants]
    shuffled = list(enumerate(variants))
    random.Random(5).shuffle(shuffled)
    other = MemberWhatIf(member, catalogue, resources=7)
    assert {i: other.evaluate(v).as_dict() for i, v in shuffled} == dict(enumerate(expected))


def test_a_variant_equal_to_the_original_is_the_original(catalogue):
    member = documents.parse_member(emma())
    same = replace(member, equipment=tuple(member.equipment))
    what_if = MemberWhatIf(member, catalogue, resources=7)
    assert what_if.evaluate(same).as_dict() == what_if.evaluate().as_dict()


# --- what the engine answers for what is not a document ----------------------------------------


def test_a_value_that_is_not_a_document_gets_its_shape_problems_and_nothing_else(catalogue):
    evaluation = evaluate({"format": "dbd-roster/1", "name": "Nameless"}, catalogue)
    assert evaluation.as_dict() == {
        "valid": False,
        "rules_version": "dbd-core-1",
        "resources": None,
        "total_cost": 0,
        "remaining": None,
        "errors": [],
        "warnings": [],
        "members": [],
    }
    assert evaluation.malformed == [
        Problem("/resources", "missing-key", "'resources' is required here."),
        Problem("/members", "missing-key", "'members' is required here."),
    ]


def test_a_document_read_from_json_text_is_judged_as_the_same_document_in_python(catalogue):
    """The API and imports hand the engine decoded JSON: its strings are new objects, so
    every comparison must be by value (R10 counts students and mentors by role)."""
    mentor = student("Max", role="mentor")
    rolled = emma()
    rolled["free_advancements"][0]["method"] = "rolled"  # an unverified roll (R5)
    document = force(rolled, student("Ann"), student("Ben"), student("Cat"), mentor)
    from_text = json.loads(json.dumps(document))
    assert evaluate(from_text, catalogue).as_dict() == evaluate(document, catalogue).as_dict()
    assert found(evaluate(from_text, catalogue).errors) == []
    assert evaluate(from_text, catalogue).members[0].unverified_rolls == 1
    two_mentors = json.loads(json.dumps({**document, "members": [*document["members"], mentor]}))
    assert found(evaluate(two_mentors, catalogue).errors) == [
        ("/members/5/role", "too-many-mentors"),
        ("/members", "duplicate-name"),
    ]
