"""R5's roll procedure with injected dice."""

import random
from collections import Counter

import pytest

from roster.engine import roll_skill


class ScriptedDice(random.Random):
    """A Random whose d12s come from a list, so each branch of R5 can be forced."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 12), "skills are rolled on a d12"
        return self.faces.pop(0)


def test_a_result_within_the_table_gives_that_skill(catalogue):
    roll = roll_skill(catalogue.skill_categories["movement"], [], ScriptedDice(3))
    assert (roll.outcome, roll.skill, roll.dice) == ("skill", "movement/wall-run", (3,))


def test_results_above_the_table_are_rolled_again_at_no_cost(catalogue):
    ranged = catalogue.skill_categories["ranged"]  # 8 entries
    roll = roll_skill(ranged, [], ScriptedDice(9, 11, 10, 8))
    assert roll.dice == (9, 11, 10, 8)
    assert (roll.outcome, roll.skill) == ("skill", "ranged/dual-wield")


def test_a_natural_12_lets_the_player_choose_any_table(catalogue):
    roll = roll_skill(catalogue.skill_categories["support"], [], ScriptedDice(12))
    assert (roll.outcome, roll.skill, roll.dice) == ("natural-12", None, (12,))


def test_a_natural_12_after_a_re_roll_still_counts(catalogue):
    roll = roll_skill(catalogue.skill_categories["technical"], [], ScriptedDice(9, 12))
    assert roll.outcome == "natural-12"
    assert roll.dice == (9, 12)


def test_an_owned_skill_lets_the_player_pick_freely(catalogue):
    technical = catalogue.skill_categories["technical"]
    owned = ["technical/camera-hack"]
    roll = roll_skill(technical, owned, ScriptedDice(3))
    assert roll.outcome == "pick-freely"
    assert roll.skill is None
    assert "technical/camera-hack" not in roll.choices
    assert len(roll.choices) == 6


def test_an_excluded_skill_lets_the_player_pick_freely(catalogue):
    movement = catalogue.skill_categories["movement"]
    roll = roll_skill(movement, ["support/extreme-determination"], ScriptedDice(9))
    assert roll.outcome == "pick-freely"
    assert "movement/determination" not in roll.choices
    assert len(roll.choices) == 9


@pytest.mark.parametrize("face", [7, 8, 9, 10])
def test_additional_spell_slot_fills_7_to_10_and_may_repeat(catalogue, face):
    spellcasting = catalogue.skill_categories["spellcasting"]
    owned = ["spellcasting/additional-spell-slot"]
    roll = roll_skill(spellcasting, owned, ScriptedDice(face))
    assert (roll.outcome, roll.skill) == ("skill", "spellcasting/additional-spell-slot")


def test_spellcasting_rolls_11_again(catalogue):
    spellcasting = catalogue.skill_categories["spellcasting"]
    roll = roll_skill(spellcasting, [], ScriptedDice(11, 1))
    assert roll.dice == (11, 1)
    assert roll.skill == "spellcasting/spell-dilettante"


def test_seeded_rolls_are_repeatable_and_cover_the_table(catalogue):
    melee = catalogue.skill_categories["melee"]
    first = [roll_skill(melee, [], random.Random(seed)) for seed in range(300)]
    again = [roll_skill(melee, [], random.Random(seed)) for seed in range(300)]
    assert first == again
    outcomes = Counter(r.skill or r.outcome for r in first)
    # All eleven melee skills and the natural 12 turn up; nothing else can.
    assert set(outcomes) == {s.key for s in melee.skills} | {"natural-12"}
    assert all(d <= 11 for r in first for d in r.dice[-1:] if r.outcome == "skill")
