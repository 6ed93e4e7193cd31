"""The engine's version moves with its answers (issue #33).

A stored evaluation records the engine's version with the rules' content
(`engine.evaluation_version`), so stored costs are worked out again when either moves. The
rules' content is a digest of data; the engine's code has no digest of its own, so this
test stands in for one: it evaluates a fixed corpus (the demo force, the rulebook's worked
examples, and documents that raise every error and warning the engine declares) and
compares a digest of every answer with the one recorded for `ENGINE_VERSION`.
"""

import hashlib
import json
from typing import Any, NamedTuple

import pytest

from roster import engine
from roster.demo import demo_force
from tests.roster.builders import (
    academic_student,
    df_student,
    emma,
    force,
    julius,
    legal_force,
    sporting_student,
    student,
    with_classmates,
)

pytestmark = pytest.mark.django_db


class Recorded(NamedTuple):
    engine_version: int
    rules_content: str  # the catalogue's content version the answers were recorded on
    answers: str  # `corpus_digest`


# The corpus's answers as last recorded. See `how_to_record` when this test fails.
RECORDED = Recorded(engine_version=3, rules_content="3bf74c6945007db6", answers="cead9654ae75d324")


def _skill(line: int, skill: str, **more: Any) -> dict[str, Any]:
    return {"line": line, "skill": skill, "method": "picked", **more}


def corpus() -> list[tuple[str, Any, dict[str, Any]]]:
    """(name, document, options for `engine.evaluate`), fixed once written: change an entry
    and the digest moves with it (record it again, as `how_to_record` says)."""
    technical = {"name": "Robotics Club", "society": "technical", "choice": "RA"}
    return [
        ("the demo force", demo_force(), {}),
        ("Emma and three classmates", legal_force(), {}),
        ("Julius among classmates", with_classmates(julius()), {}),
        ("Emma verified", legal_force(), {"verified_rolls": {"/members/0/free_advancements/0"}}),
        (
            "a campaign's own thresholds",
            with_classmates(student("Lev", xp=5, level_ups=[{"line": 2, "choice": "HP"}])),
            {"level_thresholds": (0, 2, 4, 6, 8, 10, 12, 14, 16, 18)},
        ),
        ("not a document", ["members"], {}),
        ("a member of the wrong shape", force({"name": 3}), {}),
        # R1, R2, R4
        (
            "creation slips",
            force(
                student("Bad Base", base={"ME": 3, "RA": 3, "CA": 1, "DF": 2}),
                student("No Society", club={"name": "Art", "society": "artistic", "choice": "RA"}),
                student("Wrong Choice", club={**technical, "choice": "ME"}),
                student("Needs Choice", free_advancements=[{"line": 1}, {"line": 3}]),
                academic_student(
                    "Stray Choice",
                    base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                    free_advancements=[{"line": 2, "choice": "HP"}, {"line": 3}],
                ),
                student("One Free", free_advancements=[{"line": 3}]),
                resources=500,
            ),
            {},
        ),
        # R3, R4, R5
        (
            "free advancement slips",
            force(
                student("Same Line", free_advancements=[{"line": 3}, {"line": 3}]),
                student("No Skill", free_advancements=[{"line": 4}, {"line": 3}]),
                student(
                    "Skill On Statistic",
                    free_advancements=[{"line": 3, "skill": "movement/catfall"}, {"line": 2}],
                ),
                student(
                    "Unknown Skill", free_advancements=[_skill(4, "movement/flying"), {"line": 3}]
                ),
                student(
                    "Wrong Table",
                    free_advancements=[_skill(4, "melee/next-target"), {"line": 3}],
                ),
                student(
                    "Reroller",
                    free_advancements=[
                        {"line": 4, "skill": "movement/catfall", "method": "rolled", "rerolls": 6},
                        {"line": 3},
                    ],
                ),
                resources=500,
            ),
            {},
        ),
        # R6, R16, R17
        (
            "purchase slips",
            force(
                student(
                    "Off Table",
                    purchases=[
                        {"skill": "melee/next-target"},
                        {"skill": "support/endless-pockets"},
                    ],
                ),
                student(
                    "Twice",
                    free_advancements=[_skill(4, "movement/catfall"), {"line": 3}],
                    purchases=[{"skill": "movement/catfall"}],
                ),
                student(
                    "Determined",
                    free_advancements=[_skill(4, "movement/determination"), {"line": 3}],
                    purchases=[{"skill": "support/extreme-determination"}],
                ),
                student("By Line", purchases=[{"line": 4}]),
                student(
                    "Late Statistic",
                    purchases=[{"skill": "support/endless-pockets"}, {"line": 1, "choice": "ME"}],
                ),
                student("Early Level", level_ups=[{"line": 2, "choice": "HP"}]),
                student("Pending", xp=7),
                resources=500,
            ),
            {},
        ),
        # R3, R7, R8
        (
            "equipment slips",
            force(
                student("Unknown Kit", equipment=["jetpack"]),
                academic_student(
                    "No ME",
                    base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                    choice="ME",
                    equipment=["hand-weapon"],
                ),
                student("Hands", equipment=["heavy-weapon-2h", "polearm", "simple-weapon"]),
                student("Pieces", equipment=["light-armour", "medical-kit", "tool-kit"]),
                df_student(
                    xp=3,
                    level_ups=[{"line": 3}],
                    equipment=["heavy-armour", "heavy-shield", "simple-weapon"],
                ),
                resources=500,
            ),
            {},
        ),
        # R9
        (
            "spell slips",
            force(
                sporting_student(
                    "No CA", base={"ME": 1, "RA": 2, "CA": 1, "DF": 3}, spells=["healing-spring"]
                ),
                student(
                    "Schools",
                    core_schools=["necromancy", "restoration", "restoration", "destruction"],
                    spells=["healing-spring", "healing-spring", "seraphic-bolt", "unknown-spell"],
                ),
                student("No School", spells=["healing-spring"]),
                student("Focus", spell_focus=True, spells=["dragon-slayer"]),
                academic_student(
                    "Master",
                    base={"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                    free_advancements=[
                        _skill(4, "spellcasting/supreme-spell-mastery"),
                        {"line": 3},
                    ],
                    core_schools=["restoration"],
                    spells=["healing-spring"],
                    mastery="protective-wall",
                ),
                resources=500,
            ),
            {},
        ),
        # R10, R11
        ("too few", force(emma(), student("Ann"), student("Ann"), resources=1), {}),
        (
            "two mentors",
            force(
                *(student(n) for n in ("Ann", "Ben", "Cat", "Dan")),
                student("Mia", role="mentor"),
                student("Max", role="mentor"),
            ),
            {},
        ),
    ]


def answers(catalogue) -> list[dict[str, Any]]:
    """Every answer the engine gives on the corpus: each evaluation whole (malformed
    problems included), and the demo force's with other Resources (`with_resources`)."""
    found = []
    for name, document, options in corpus():
        evaluation = engine.evaluate(document, catalogue, **options)
        found.append(
            {
                "name": name,
                **evaluation.as_dict(),
                "malformed": [p.as_dict() for p in evaluation.malformed],
            }
        )
    poorer = engine.with_resources(engine.evaluate(demo_force(), catalogue), 10)
    found.append({"name": "the demo force on 10 Resources", **poorer.as_dict()})
    return found


def corpus_digest(catalogue) -> str:
    text = json.dumps(answers(catalogue), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def how_to_record(now: Recorded) -> str:
    """What to do when the corpus's answers are not the ones recorded."""
    if now.engine_version != RECORDED.engine_version:
        return f"ENGINE_VERSION moved: record the answers it gives, RECORDED = {now!r}."
    bumped = now._replace(engine_version=now.engine_version + 1)
    if now.rules_content == RECORDED.rules_content:
        return (
            "The engine's answers on the corpus changed but ENGINE_VERSION did not, so stored "
            "evaluations would keep the old numbers. Set ENGINE_VERSION = "
            f"{bumped.engine_version} in roster/engine.py and RECORDED = {bumped!r} here."
        )
    return (
        "The rules' content changed (stored evaluations follow it already) and the corpus's "
        "answers with it. If the engine's code is unchanged, record RECORDED = "
        f"{now!r}; if roster/engine.py (or what it calls) changed too, set ENGINE_VERSION = "
        f"{bumped.engine_version} in roster/engine.py and RECORDED = {bumped!r}."
    )


def test_the_engine_version_moves_with_the_engines_answers(catalogue):
    now = Recorded(engine.ENGINE_VERSION, catalogue.content_version, corpus_digest(catalogue))
    assert now == RECORDED, how_to_record(now)


def test_the_corpus_raises_every_error_and_warning_the_engine_declares(catalogue):
    """So that a change to any rule the engine checks moves the digest."""
    raised = {
        problem["code"]
        for answer in answers(catalogue)
        for problem in (*answer["errors"], *answer["warnings"])
    }
    assert raised == {*engine.ERROR_CODES, *engine.WARNING_CODES}


def test_the_corpus_has_malformed_documents_and_legal_forces(catalogue):
    found = answers(catalogue)
    assert [a["name"] for a in found if a.get("malformed")] == [
        "not a document",
        "a member of the wrong shape",
    ]
    assert [a["name"] for a in found if a["valid"]] == [
        "the demo force",
        "Emma and three classmates",
        "Julius among classmates",
        "Emma verified",
        "a campaign's own thresholds",
    ]
