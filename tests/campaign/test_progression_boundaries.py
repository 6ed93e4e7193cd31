"""Both sides of every number the house rules set (R11, R14-R17; campaign/progression.py).

Every test compares the whole list of reasons `house_rule_problems` gives (in its own
words), so a setting that is refused for one reason is refused for no other.
"""

import dataclasses
import json
from types import SimpleNamespace

import pytest

from campaign import progression
from campaign.progression import (
    LABELS,
    MAX_LEVELS,
    MAX_SETTING,
    HouseRules,
    InvalidHouseRules,
    Record,
)

DEFAULT = HouseRules()
NUMBERS = HouseRules.number_names()


def problems(**changes) -> list[str]:
    """The reasons the default rules with `changes` cannot be played with."""
    return progression.house_rule_problems(SimpleNamespace(**{**DEFAULT.as_dict(), **changes}))


def out_of_range(name: str) -> str:
    return f"{LABELS[name]} must be between 0 and {MAX_SETTING}."


def test_the_limits_are_the_ones_the_rules_set():
    assert (MAX_SETTING, MAX_LEVELS) == (10_000, 21)
    assert NUMBERS == (
        "starting_resources",
        "resources_for_win",
        "resources_for_draw",
        "resources_for_loss",
        "xp_for_taking_part",
        "xp_per_enemy_out_of_action",
        "xp_per_objective",
        "xp_for_winning_side",
        "points_for_win",
        "points_for_draw",
        "points_for_loss",
    )


# --- each single-number setting: 0 .. 10000 -------------------------------------------------


@pytest.mark.parametrize("name", NUMBERS)
def test_each_setting_at_its_maximum_is_playable(name):
    assert problems(**{name: MAX_SETTING}) == []
    rules = dataclasses.replace(DEFAULT, **{name: MAX_SETTING})
    assert getattr(rules, name) == MAX_SETTING


@pytest.mark.parametrize("name", NUMBERS)
def test_each_setting_one_past_its_maximum_is_refused(name):
    assert problems(**{name: MAX_SETTING + 1}) == [out_of_range(name)]
    with pytest.raises(InvalidHouseRules) as raised:
        dataclasses.replace(DEFAULT, **{name: MAX_SETTING + 1})
    assert raised.value.problems == [out_of_range(name)]


@pytest.mark.parametrize("name", NUMBERS)
def test_each_setting_below_0_is_refused(name):
    assert problems(**{name: -1}) == [out_of_range(name)]


@pytest.mark.parametrize("name", [n for n in NUMBERS if n != "starting_resources"])
def test_each_reward_setting_at_0_is_playable(name):
    assert problems(**{name: 0}) == []


def test_r11_starting_resources_at_1_is_playable_and_0_is_not():
    assert problems(starting_resources=1) == []
    assert problems(starting_resources=0) == [
        "Starting Resources must be at least 1 (R11: a positive number)."
    ]


@pytest.mark.parametrize("value", [True, False, 1.0, "3", None])
@pytest.mark.parametrize("name", ["resources_for_win", "xp_per_objective"])
def test_a_setting_must_be_a_whole_number(name, value):
    assert problems(**{name: value}) == [f"{LABELS[name]} must be a whole number."]


@pytest.mark.parametrize("value", [True, False])
def test_entered_rolls_is_yes_or_no(value):
    """P5's house rule: a flag, not a number (so not in `number_names`)."""
    assert problems(entered_rolls_allowed=value) == []
    assert HouseRules(entered_rolls_allowed=value).entered_rolls_allowed is value
    assert "entered_rolls_allowed" not in NUMBERS


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_entered_rolls_refuses_anything_but_a_flag(value):
    assert problems(entered_rolls_allowed=value) == [
        f"{LABELS['entered_rolls_allowed']} must be yes or no (true or false)."
    ]


def test_every_problem_is_reported_at_once():
    assert problems(
        resources_for_win=-1, xp_per_objective=MAX_SETTING + 1, points_for_loss=1.5
    ) == [
        out_of_range("resources_for_win"),
        out_of_range("xp_per_objective"),
        f"{LABELS['points_for_loss']} must be a whole number.",
    ]
    assert problems(starting_resources=0, level_thresholds=[1]) == [
        "Starting Resources must be at least 1 (R11: a positive number).",
        "Level thresholds start at 0 XP (level 1).",
    ]


# --- level thresholds (R16): from 0, strictly increasing, 21 levels, 100000 XP ----------


def test_r16_21_levels_is_playable_and_22_is_not():
    assert problems(level_thresholds=list(range(MAX_LEVELS))) == []
    assert HouseRules(level_thresholds=tuple(range(MAX_LEVELS))).max_level == 21
    assert problems(level_thresholds=list(range(MAX_LEVELS + 1))) == [
        "A campaign has at most 21 levels."
    ]


def test_r16_the_last_threshold_may_be_100000_xp_and_not_more():
    assert problems(level_thresholds=[0, 10 * MAX_SETTING]) == []
    assert problems(level_thresholds=[0, 10 * MAX_SETTING + 1]) == [
        "Level thresholds must be at most 100000 XP."
    ]


@pytest.mark.parametrize(
    ("thresholds", "reasons"),
    [
        ([0], []),  # one level only
        ([0, 1], []),  # the smallest step
        ([0, 3, 4], []),
        ([0, 3, 3], ["Each level needs more XP than the one before (strictly increasing)."]),
        ([0, 3, 2], ["Each level needs more XP than the one before (strictly increasing)."]),
        ([1, 3], ["Level thresholds start at 0 XP (level 1)."]),
        ([], ["Level thresholds start at 0 XP (level 1)."]),
        ([0, True], ["Level thresholds must be whole numbers."]),
        ([0, 3.0], ["Level thresholds must be whole numbers."]),
        ("0,3", ["Level thresholds must be a list of whole numbers."]),
    ],
)
def test_r16_thresholds_start_at_0_and_rise(thresholds, reasons):
    assert problems(level_thresholds=thresholds) == reasons


# --- levels from XP, capped at the last threshold (R16, R17) ----------------------------------


@pytest.mark.parametrize(
    ("xp", "level"),
    [(0, 1), *[(t - 1, n - 1) for n, t in enumerate(DEFAULT.level_thresholds[1:], start=2)]]
    + [(t, n) for n, t in enumerate(DEFAULT.level_thresholds, start=1)]
    + [(64, 10), (MAX_SETTING * 10, 10)],
)
def test_r16_each_level_starts_exactly_at_its_threshold_and_stops_at_10(xp, level):
    assert progression.level_for_xp(xp, DEFAULT) == level


def test_r16_a_campaign_of_21_levels_reaches_level_21_and_no_further():
    rules = HouseRules(level_thresholds=tuple(range(21)))
    assert [progression.level_for_xp(x, rules) for x in (19, 20, 21, 100_000)] == [20, 21, 21, 21]


@pytest.mark.parametrize(
    ("xp", "taken", "waiting"),
    [
        (62, 7, 1),  # level 9: eight level-ups
        (62, 8, 0),
        (63, 8, 1),  # level 10: nine
        (63, 9, 0),
        (100_000, 9, 0),  # level 10 is the most (R16)
        (100_000, 8, 1),
        (2, 0, 0),  # level 1: none
        (3, 0, 1),
        (3, 2, 0),  # more taken than allowed is never negative
    ],
)
def test_r17_level_ups_waiting_at_each_side_of_a_threshold(xp, taken, waiting):
    assert progression.level_ups_waiting(xp, taken, DEFAULT) == waiting


@pytest.mark.parametrize(
    ("before", "after", "gained"), [(2, 3, 1), (3, 2, -1), (62, 63, 1), (63, 999, 0)]
)
def test_levels_gained_across_one_threshold(before, after, gained):
    assert progression.levels_gained(before, after, DEFAULT) == gained


# --- XP for one battle (R16) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("enemies", "objectives", "won", "xp"),
    [(0, 0, False, 1), (1, 0, False, 2), (0, 1, False, 2), (0, 0, True, 2), (2, 3, True, 7)],
)
def test_r16_xp_from_zero_counts_up(enemies, objectives, won, xp):
    earned = progression.xp_earned(
        enemies_out_of_action=enemies, objectives=objectives, side_won=won, rules=DEFAULT
    )
    assert earned == xp


@pytest.mark.parametrize(("enemies", "objectives"), [(-1, 0), (0, -1)])
def test_r16_negative_counts_are_refused(enemies, objectives):
    with pytest.raises(ValueError, match="cannot be negative"):
        progression.xp_earned(
            enemies_out_of_action=enemies, objectives=objectives, side_won=False, rules=DEFAULT
        )


def test_r16_xp_settings_at_their_maximum():
    rules = dataclasses.replace(
        DEFAULT,
        xp_for_taking_part=MAX_SETTING,
        xp_per_enemy_out_of_action=MAX_SETTING,
        xp_per_objective=MAX_SETTING,
        xp_for_winning_side=MAX_SETTING,
    )
    earned = progression.xp_earned(
        enemies_out_of_action=2, objectives=3, side_won=True, rules=rules
    )
    assert earned == MAX_SETTING * (1 + 2 + 3 + 1)


# --- a void takes XP back (R15a) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("xp", "taken", "kept"),
    [
        (63, 9, 9),  # level 10 keeps all nine
        (62, 9, 8),  # one XP short of level 10: the latest level-up goes
        (52, 9, 8),
        (51, 9, 7),
        (3, 1, 1),  # level 2 keeps its one
        (2, 1, 0),  # back to level 1: none stay
        (0, 0, 0),
        (100_000, 4, 4),  # more XP than the level-ups taken: none is added
    ],
)
def test_r15a_a_fall_in_xp_keeps_only_the_level_ups_the_new_level_allows(xp, taken, kept):
    assert progression.level_ups_kept(xp, taken, DEFAULT) == kept


def test_r15a_the_campaigns_own_thresholds_decide_what_stays():
    rules = HouseRules(level_thresholds=(0, 10, 20))
    assert [progression.level_ups_kept(xp, 2, rules) for xp in (9, 10, 19, 20)] == [0, 1, 1, 2]


# --- the settings in words -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "words"), [(True, "yes"), (False, "no"), (0, "0"), (1, "1"), (10_000, "10000")]
)
def test_a_setting_reads_as_yes_no_or_its_number(value, words):
    assert progression.setting_in_words(value) == words


def test_every_setting_has_a_label_and_the_flags_are_not_numbers():
    assert HouseRules.flag_names() == ("entered_rolls_allowed",)
    assert set(LABELS) == {*NUMBERS, *HouseRules.flag_names(), "level_thresholds"}
    assert DEFAULT.as_dict() == {
        **{name: getattr(DEFAULT, name) for name in NUMBERS},
        "level_thresholds": [0, 3, 7, 12, 18, 25, 33, 42, 52, 63],
        "entered_rolls_allowed": True,
    }


# --- standings: points, then wins, then name -------------------------------------------------


def test_on_equal_points_more_wins_rank_first_whatever_the_names():
    rows = [
        Record("a", "Alpha", won=1, drawn=3),  # 6 points, 1 win
        Record("b", "Bravo", won=2),  # 6 points, 2 wins
        Record("c", "Charlie", drawn=6),  # 6 points, no win
    ]
    assert [(s.key, s.points, s.won) for s in progression.standings(rows, DEFAULT)] == [
        ("b", 6, 2),
        ("a", 6, 1),
        ("c", 6, 0),
    ]


def test_on_equal_points_and_wins_names_rank_alphabetically_whatever_their_case():
    rows = [
        Record(i, name, won=1) for i, name in enumerate(["Charlie", "bravo", "alpha", "Alpha"])
    ]
    assert [s.name for s in progression.standings(rows, DEFAULT)] == [
        "Alpha",  # the same name but for case: capital first, so the order is stable
        "alpha",
        "bravo",
        "Charlie",
    ]


def test_a_standing_counts_every_result_played():
    (standing,) = progression.standings([Record("x", "X", won=2, drawn=3, lost=4)], DEFAULT)
    assert standing == progression.Standing(
        key="x", name="X", played=9, won=2, drawn=3, lost=4, points=2 * 3 + 3 * 1 + 4 * 0
    )


# --- R15: an outcome is matched by its value ------------------------------------------------


@pytest.mark.parametrize(("outcome", "resources"), [("win", 10), ("draw", 7), ("loss", 5)])
def test_r15_an_outcome_read_from_json_earns_its_resources(outcome, resources):
    """Outcomes come from requests and stored rows, not only from this module's own
    strings: they are compared by value."""
    assert progression.resources_earned(json.loads(json.dumps(outcome)), DEFAULT) == resources
