"""The rules notes' worked examples say what the roster engine answers (issue #33)."""

import pytest

from roster.engine import evaluate
from rules.rulings import WORKED_EXAMPLES
from tests.roster.builders import emma, julius, with_classmates

pytestmark = pytest.mark.django_db

STUDENTS = {"Emma": emma, "Julius": julius}  # the rulebook's students, as documents


@pytest.mark.parametrize("example", WORKED_EXAMPLES, ids=lambda example: example.name)
def test_a_worked_example_is_what_the_engine_answers(catalogue, example):
    student = STUDENTS[example.name.split(",")[0]]()
    evaluation = evaluate(with_classmates(student), catalogue)
    assert (evaluation.errors, evaluation.warnings) == ([], [])
    result = evaluation.members[0]

    assert result.stats == example.stats
    assert tuple(result.purchase_costs) == example.purchase_costs
    assert result.cost["advancements"] == example.advancement_cost


@pytest.mark.parametrize("example", WORKED_EXAMPLES, ids=lambda example: example.name)
def test_a_worked_example_says_its_numbers(example):
    words = " ".join(example.steps)
    if example.purchase_costs:
        for cost in (*example.purchase_costs, example.advancement_cost):
            assert f"{cost} Resources" in words
    else:
        ends_on = ", ".join(f"{statistic} {value}" for statistic, value in example.stats.items())
        assert f"ends on {ends_on}." in words
