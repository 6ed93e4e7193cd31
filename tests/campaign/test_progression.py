"""Campaign progression (campaign/progression.py): pure rules, every house rule honoured.

R14-R18 are per-campaign settings; each test changes one number and shows the
outcome follows it.
"""

import dataclasses

import pytest

from campaign import progression
from campaign.progression import HouseRules, InvalidHouseRules, Record
from roster.engine import LEVEL_THRESHOLDS

DEFAULT = HouseRules()


def test_defaults_are_the_rulings_numbers():
    assert DEFAULT.starting_resources == 50  # R11
    assert (DEFAULT.resources_for_win, DEFAULT.resources_for_draw) == (10, 7)  # R15
    assert DEFAULT.resources_for_loss == 5  # R15
    assert DEFAULT.xp_for_taking_part == 1  # R16
    assert DEFAULT.xp_per_enemy_out_of_action == 1
    assert DEFAULT.xp_per_objective == 1
    assert DEFAULT.xp_for_winning_side == 1
    assert DEFAULT.level_thresholds == LEVEL_THRESHOLDS == (0, 3, 7, 12, 18, 25, 33, 42, 52, 63)
    assert (DEFAULT.points_for_win, DEFAULT.points_for_draw, DEFAULT.points_for_loss) == (3, 1, 0)
    assert DEFAULT.max_level == 10


# --- XP (R16) ---------------------------------------------------------------------------


def xp(rules=DEFAULT, *, enemies=0, objectives=0, won=False) -> int:
    return progression.xp_earned(
        enemies_out_of_action=enemies, objectives=objectives, side_won=won, rules=rules
    )


def test_r16_taking_part_always_earns_xp():
    assert xp() == 1


def test_r16_xp_adds_up():
    # +1 taking part, +2 enemies, +3 objectives, +1 winning side
    assert xp(enemies=2, objectives=3, won=True) == 7


@pytest.mark.parametrize(
    ("setting", "value", "kwargs", "expected"),
    [
        ("xp_for_taking_part", 0, {}, 0),
        ("xp_for_taking_part", 3, {}, 3),
        ("xp_per_enemy_out_of_action", 2, {"enemies": 3}, 1 + 6),
        ("xp_per_enemy_out_of_action", 0, {"enemies": 3}, 1),
        ("xp_per_objective", 5, {"objectives": 2}, 1 + 10),
        ("xp_per_objective", 0, {"objectives": 2}, 1),
        ("xp_for_winning_side", 4, {"won": True}, 1 + 4),
        ("xp_for_winning_side", 0, {"won": True}, 1),
    ],
)
def test_r16_each_xp_setting_is_honoured(setting, value, kwargs, expected):
    rules = dataclasses.replace(DEFAULT, **{setting: value})
    assert xp(rules, **kwargs) == expected
    assert xp(rules, **kwargs) != xp(DEFAULT, **kwargs)


def test_negative_counts_are_refused():
    with pytest.raises(ValueError, match="negative"):
        xp(enemies=-1)


# --- levels (R16, R17) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "level"),
    [
        *[(0, 1), (2, 1), (3, 2), (6, 2), (7, 3), (12, 4), (18, 5), (25, 6), (33, 7)],
        *[(42, 8), (52, 9), (62, 9), (63, 10), (1000, 10)],
    ],
)
def test_r16_levels_at_the_default_thresholds(total, level):
    assert progression.level_for_xp(total, DEFAULT) == level


def test_r16_custom_thresholds_are_honoured():
    rules = dataclasses.replace(DEFAULT, level_thresholds=(0, 2, 5))
    assert [progression.level_for_xp(x, rules) for x in (0, 1, 2, 4, 5, 99)] == [1, 1, 2, 2, 3, 3]
    assert rules.max_level == 3
    assert progression.level_for_xp(2, DEFAULT) == 1


def test_levels_gained():
    assert progression.levels_gained(2, 3, DEFAULT) == 1
    assert progression.levels_gained(0, 12, DEFAULT) == 3
    assert progression.levels_gained(3, 6, DEFAULT) == 0
    assert progression.levels_gained(7, 2, DEFAULT) == -2  # a voided battle takes XP back
    fast = dataclasses.replace(DEFAULT, level_thresholds=(0, 1, 2, 3))
    assert progression.levels_gained(0, 3, fast) == 3


def test_r17_level_ups_waiting():
    assert progression.level_ups_waiting(3, 0, DEFAULT) == 1
    assert progression.level_ups_waiting(7, 1, DEFAULT) == 1
    assert progression.level_ups_waiting(7, 2, DEFAULT) == 0
    assert progression.level_ups_waiting(0, 1, DEFAULT) == 0  # never negative


# --- Resources (R15) ----------------------------------------------------------------------


def test_r15_resources_for_each_outcome():
    assert [progression.resources_earned(o, DEFAULT) for o in ("win", "draw", "loss")] == [
        10,
        7,
        5,
    ]
    with pytest.raises(ValueError, match="not an outcome"):
        progression.resources_earned("forfeit", DEFAULT)


@pytest.mark.parametrize(
    ("setting", "outcome"),
    [("resources_for_win", "win"), ("resources_for_draw", "draw"), ("resources_for_loss", "loss")],
)
def test_r15_each_resources_setting_is_honoured(setting, outcome):
    rules = dataclasses.replace(DEFAULT, **{setting: 23})
    assert progression.resources_earned(outcome, rules) == 23
    others = [o for o in progression.OUTCOMES if o != outcome]
    for other in others:
        assert progression.resources_earned(other, rules) == progression.resources_earned(
            other, DEFAULT
        )


def test_outcome_for():
    assert progression.outcome_for("a", None) == "draw"
    assert progression.outcome_for("a", "a") == "win"
    assert progression.outcome_for("b", "a") == "loss"


# --- standings ------------------------------------------------------------------------------


def test_standings_points_then_wins_then_name():
    rows = [
        Record("c", "Charlie", won=1, drawn=0, lost=1),  # 3 points, 1 win
        Record("a", "alpha", won=0, drawn=3, lost=0),  # 3 points, 0 wins
        Record("b", "Bravo", won=1, drawn=0, lost=0),  # 3 points, 1 win
        Record("d", "Delta", won=2, drawn=1, lost=0),  # 7 points
    ]
    table = progression.standings(rows, DEFAULT)
    assert [s.key for s in table] == ["d", "b", "c", "a"]
    delta = table[0]
    assert (delta.played, delta.won, delta.drawn, delta.lost, delta.points) == (3, 2, 1, 0, 7)


@pytest.mark.parametrize(
    ("setting", "record"),
    [
        ("points_for_win", Record(1, "x", won=2)),
        ("points_for_draw", Record(1, "x", drawn=2)),
        ("points_for_loss", Record(1, "x", lost=2)),
    ],
)
def test_each_points_setting_is_honoured(setting, record):
    rules = dataclasses.replace(DEFAULT, **{setting: 5})
    assert progression.standings([record], rules)[0].points == 10
    assert progression.standings([record], DEFAULT)[0].points != 10


def test_the_points_setting_can_reorder_the_table():
    rows = [Record("w", "Winner", won=1, lost=2), Record("d", "Drawer", drawn=4)]
    assert [s.key for s in progression.standings(rows, DEFAULT)] == ["d", "w"]  # 4 v 3
    draws_worth_nothing = dataclasses.replace(DEFAULT, points_for_draw=0)
    assert [s.key for s in progression.standings(rows, draws_worth_nothing)] == ["w", "d"]
    wins_worth_more = dataclasses.replace(DEFAULT, points_for_win=5)
    assert [s.key for s in progression.standings(rows, wins_worth_more)] == ["w", "d"]
    losses_score = dataclasses.replace(DEFAULT, points_for_loss=1)  # 5 v 4
    assert [s.key for s in progression.standings(rows, losses_score)] == ["w", "d"]


# --- validating the settings -----------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"resources_for_win": -1}, "between 0"),
        ({"xp_per_objective": 1.5}, "whole number"),
        ({"points_for_draw": True}, "whole number"),
        ({"starting_resources": 0}, "at least 1"),
        ({"level_thresholds": (1, 3)}, "start at 0"),
        ({"level_thresholds": ()}, "start at 0"),
        ({"level_thresholds": (0, 3, 3)}, "strictly increasing"),
        ({"level_thresholds": (0, 5, 4)}, "strictly increasing"),
        ({"level_thresholds": tuple(range(0, 44, 2))}, "at most 21 levels"),
        ({"level_thresholds": (0, "3")}, "whole numbers"),
        ({"level_thresholds": "0,3"}, "list"),
    ],
)
def test_unplayable_settings_are_refused(changes, words):
    with pytest.raises(InvalidHouseRules) as raised:
        dataclasses.replace(DEFAULT, **changes)
    assert words in str(raised.value)


def test_zero_rewards_and_a_single_level_are_playable():
    rules = HouseRules(resources_for_loss=0, xp_for_taking_part=0, level_thresholds=[0])
    assert rules.level_thresholds == (0,)
    assert progression.level_for_xp(500, rules) == 1
    assert rules.as_dict()["level_thresholds"] == [0]
