"""The creation rules' own words, read whole, where a count or a hand is in the sentence
(R8, R16, R17): the boundary tests compare (pointer, code) pairs, these the message too,
so a wrong number or a lost plural shows."""

import pytest

from tests.roster.builders import evaluate_member, hp_level_ups, julius, student

MEMBER = "/members/0"


def said(problems) -> list[tuple[str, str, str]]:
    return [(p.pointer, p.code, p.message) for p in problems]


@pytest.mark.parametrize(
    ("xp", "taken", "errors"),
    [
        # Level 2 (3 XP): one level-up allowed; the second is number 2.
        (3, 2, [(1, "At level 2 (3 XP) a student has 1 level-up; this is number 2.")]),
        # Level 3 (7 XP): two allowed; the third and fourth are refused, each by number.
        (
            7,
            4,
            [
                (2, "At level 3 (7 XP) a student has 2 level-ups; this is number 3."),
                (3, "At level 3 (7 XP) a student has 2 level-ups; this is number 4."),
            ],
        ),
    ],
)
def test_r17_too_many_level_ups_says_how_many_and_which(catalogue, xp, taken, errors):
    evaluation, _ = evaluate_member(
        catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(taken))
    )
    assert said(evaluation.errors) == [
        (f"{MEMBER}/level_ups/{i}", "too-many-level-ups", text) for i, text in errors
    ]
    assert said(evaluation.warnings) == []


@pytest.mark.parametrize(
    ("xp", "taken", "text"),
    [
        (3, 0, "Level 2: 1 level-up advancement still to take."),
        (7, 0, "Level 3: 2 level-up advancements still to take."),
        (7, 1, "Level 3: 1 level-up advancement still to take."),
    ],
)
def test_r17_pending_level_ups_say_how_many_are_left(catalogue, xp, taken, text):
    evaluation, _ = evaluate_member(
        catalogue, student("Lev", xp=xp, level_ups=hp_level_ups(taken))
    )
    assert said(evaluation.errors) == []
    assert said(evaluation.warnings) == [(f"{MEMBER}/level_ups", "level-up-pending", text)]


@pytest.mark.parametrize(
    ("equipment", "index", "text"),
    [
        # Both hands full and the extra piece a backup: a one-handed weapon has no hand.
        (
            ["hand-weapon", "light-pistol", "simple-weapon", "hand-weapon"],
            3,
            "Hand Weapon needs a hand and no hand is free.",
        ),
        # The extra piece is armour, so the [2H] weapon cannot be the backup either.
        (
            ["hand-weapon", "light-pistol", "great-weapon", "light-armour"],
            2,
            "Great Weapon needs 2 hands and no hand is free (the extra piece is taken).",
        ),
        # One hand still free: a [2H] weapon needs both.
        (
            ["hand-weapon", "great-weapon", "light-armour"],
            1,
            "Great Weapon needs 2 hands and only 1 is free (the extra piece is taken).",
        ),
    ],
)
def test_r8_too_many_hands_says_what_is_needed_and_free(catalogue, equipment, index, text):
    member = julius()
    member["purchases"] = []
    member["equipment"] = equipment
    evaluation, _ = evaluate_member(catalogue, member)
    assert said(evaluation.errors) == [(f"{MEMBER}/equipment/{index}", "too-many-hands", text)]
    assert said(evaluation.warnings) == []
