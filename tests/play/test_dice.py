"""The d3 drawn on its own (Healing Spring at 3+ successes, P5): a cast asks first whether
a die is left, so the d3's own refusals are read here, straight from the dice."""

import random

import pytest

from dbd_site.errors import Invalid
from play.table.dice import Dice


def problems(error: Invalid) -> list[tuple[str, str, str]]:
    return [(p.pointer, p.code, p.message) for p in error.problems]


def test_an_entered_d3_is_taken_after_the_d12s():
    dice = Dice(random.Random(0), [12, 9, 3])
    assert dice.d12(2) == [12, 9]
    assert dice.d3() == 3
    assert dice.rolled == [12, 9, 3]
    assert dice.left() == 0


def test_no_entered_d3_left_is_refused_with_the_count():
    dice = Dice(random.Random(0), [12, 9])
    dice.d12(2)
    with pytest.raises(Invalid) as refused:
        dice.d3()
    assert problems(refused.value) == [
        ("/dice", "wrong-dice-count", "This roll takes 3 dice; 2 were entered.")
    ]


@pytest.mark.parametrize("die", [0, 4, -1, "2", 2.0, True, None])
def test_an_entered_d3_outside_1_to_3_is_refused_where_it_is(die):
    dice = Dice(random.Random(0), [die])
    with pytest.raises(Invalid) as refused:
        dice.d3()
    assert problems(refused.value) == [
        ("/dice/0", "invalid-roll", f"{die!r} is not a d3 result (1-3).")
    ]


def test_the_servers_d3_shows_each_of_1_to_3_and_nothing_else():
    faces = [Dice(random.Random(seed), None).d3() for seed in range(60)]
    assert set(faces) == {1, 2, 3}
