"""Campaign progression: the house rules R14-R18 as plain arithmetic.

Pure Python, no Django: the models store the numbers, the services apply them, and
the tests check every setting here. Each number of `HouseRules` is a per-campaign
setting whose default is the ruling's number (RULINGS.md, "Campaigns").
"""

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from itertools import pairwise
from typing import Any

from roster import engine

OUTCOMES = ("win", "draw", "loss")
# R17: each level gained is one entry in a member's `level_ups`, and a document holds
# at most 20 of them, so a campaign has at most 21 levels.
MAX_LEVELS = 21
MAX_SETTING = 10_000  # a sanity bound for any single number, far above any real campaign
# The most forces one battle has: the rulebook's battles have two sides, and a campaign
# game of up to six is the site's choice (play mode starts them too).
MAX_BATTLE_FORCES = 6
# R10: a force is at most 6 students and one mentor, and stays legal in a campaign (R18).
MAX_FORCE_MEMBERS = engine.MAX_STUDENTS + engine.MAX_MENTORS


class InvalidHouseRules(ValueError):
    """House rules that cannot be played with; `problems` lists every reason in words."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class HouseRules:
    """A campaign's settings (R14-R18); the defaults are the rulings' numbers."""

    starting_resources: int = 50  # R11
    resources_for_win: int = 10  # R15
    resources_for_draw: int = 7  # R15
    resources_for_loss: int = 5  # R15
    xp_for_taking_part: int = 1  # R16
    xp_per_enemy_out_of_action: int = 1  # R16
    xp_per_objective: int = 1  # R16
    xp_for_winning_side: int = 1  # R16
    # R16: total XP for levels 1, 2, ...; level 1 at 0, strictly increasing.
    level_thresholds: tuple[int, ...] = field(default=engine.LEVEL_THRESHOLDS)
    points_for_win: int = 3  # standings (the campaign issue)
    points_for_draw: int = 1
    points_for_loss: int = 0
    # P5: may a battle of the campaign take dice entered as rolled at the table?
    entered_rolls_allowed: bool = True

    def __post_init__(self) -> None:
        # Lists from JSON become tuples, so rules stay hashable and comparable.
        if isinstance(self.level_thresholds, list | tuple):
            object.__setattr__(self, "level_thresholds", tuple(self.level_thresholds))
        problems = house_rule_problems(self)
        if problems:
            raise InvalidHouseRules(problems)

    @classmethod
    def number_names(cls) -> tuple[str, ...]:
        """The single-number settings, in display order (thresholds and flags excluded)."""
        return tuple(
            f.name
            for f in fields(cls)
            if f.name != "level_thresholds" and f.name not in cls.flag_names()
        )

    @classmethod
    def flag_names(cls) -> tuple[str, ...]:
        """The yes/no settings, in display order."""
        return ("entered_rolls_allowed",)

    @property
    def max_level(self) -> int:
        return len(self.level_thresholds)

    def as_dict(self) -> dict[str, Any]:
        values: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        values["level_thresholds"] = list(self.level_thresholds)
        return values


# Plain-words labels for showing the settings to players as "house rules".
LABELS: dict[str, str] = {
    "starting_resources": "Starting Resources (R11)",
    "resources_for_win": "Resources for a win (R15)",
    "resources_for_draw": "Resources for a draw (R15)",
    "resources_for_loss": "Resources for a loss (R15)",
    "xp_for_taking_part": "XP for taking part (R16)",
    "xp_per_enemy_out_of_action": "XP per enemy taken Out of Action (R16)",
    "xp_per_objective": "XP per objective (R16)",
    "xp_for_winning_side": "XP for being on the winning side (R16)",
    "level_thresholds": "XP needed for each level (R16)",
    "points_for_win": "Standings points for a win",
    "points_for_draw": "Standings points for a draw",
    "points_for_loss": "Standings points for a loss",
    "entered_rolls_allowed": "Dice rolled at the table may be entered in battles (P5)",
}


def setting_in_words(value: Any) -> str:
    """A single setting's value as players read it: yes / no for a flag, else the number."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def house_rule_problems(rules: Any) -> list[str]:
    """Every reason the settings cannot be played with, in plain words ([] if fine).

    Works on anything with the `HouseRules` attributes, so a form can check values
    before building the dataclass.
    """
    problems: list[str] = []
    for name in HouseRules.number_names():
        value = getattr(rules, name)
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{LABELS[name]} must be a whole number.")
        elif not 0 <= value <= MAX_SETTING:
            problems.append(f"{LABELS[name]} must be between 0 and {MAX_SETTING}.")
    for name in HouseRules.flag_names():
        if not isinstance(getattr(rules, name), bool):
            problems.append(f"{LABELS[name]} must be yes or no (true or false).")
    if rules.starting_resources == 0:
        problems.append("Starting Resources must be at least 1 (R11: a positive number).")
    thresholds = rules.level_thresholds
    if not isinstance(thresholds, list | tuple):
        problems.append("Level thresholds must be a list of whole numbers.")
        return problems
    thresholds = list(thresholds)
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in thresholds):
        problems.append("Level thresholds must be whole numbers.")
    elif not thresholds or thresholds[0] != 0:
        problems.append("Level thresholds start at 0 XP (level 1).")
    elif any(b <= a for a, b in pairwise(thresholds)):
        problems.append("Each level needs more XP than the one before (strictly increasing).")
    elif len(thresholds) > MAX_LEVELS:
        problems.append(f"A campaign has at most {MAX_LEVELS} levels.")
    elif thresholds[-1] > MAX_SETTING * 10:
        problems.append(f"Level thresholds must be at most {MAX_SETTING * 10} XP.")
    return problems


DEFAULT_RULES = HouseRules()


# --- experience and levels (R16, R17) --------------------------------------------------


def xp_earned(
    *, enemies_out_of_action: int, objectives: int, side_won: bool, rules: HouseRules
) -> int:
    """R16: XP for one member who took part in one battle.

    Taking part always earns its XP, also for a member who went Unconscious or Out of
    Action (R16 makes no exception).
    """
    if enemies_out_of_action < 0 or objectives < 0:
        raise ValueError("Enemies taken Out of Action and objectives cannot be negative.")
    return (
        rules.xp_for_taking_part
        + enemies_out_of_action * rules.xp_per_enemy_out_of_action
        + objectives * rules.xp_per_objective
        + (rules.xp_for_winning_side if side_won else 0)
    )


def level_for_xp(xp: int, rules: HouseRules) -> int:
    """R16 with the campaign's thresholds (the engine does the counting)."""
    return engine.level_for_xp(xp, rules.level_thresholds)


def levels_gained(before_xp: int, after_xp: int, rules: HouseRules) -> int:
    """How many levels a change of XP gains (negative when XP is taken away)."""
    return level_for_xp(after_xp, rules) - level_for_xp(before_xp, rules)


def level_ups_waiting(xp: int, level_ups_taken: int, rules: HouseRules) -> int:
    """R17: one advancement per level gained; how many are still to take."""
    return max(0, level_for_xp(xp, rules) - 1 - level_ups_taken)


# --- Resources (R15) -------------------------------------------------------------------


def level_ups_kept(xp: int, level_ups_taken: int, rules: HouseRules) -> int:
    """R15a: how many of a member's level-ups stay when their XP falls to `xp` (the
    latest go first)."""
    return min(level_ups_taken, level_for_xp(xp, rules) - 1)


def resources_earned(outcome: str, rules: HouseRules) -> int:
    """R15: the Resources a force earns for one battle's outcome."""
    if outcome == "win":
        return rules.resources_for_win
    if outcome == "draw":
        return rules.resources_for_draw
    if outcome == "loss":
        return rules.resources_for_loss
    raise ValueError(f"'{outcome}' is not an outcome; use one of {', '.join(OUTCOMES)}.")


def outcome_for(force: Any, winner: Any | None) -> str:
    """A battle's outcome for one of its forces: no winner is a draw for everyone."""
    if winner is None:
        return "draw"
    return "win" if force == winner else "loss"


# --- standings -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Record:
    """One force's confirmed results; `key` is whatever the caller identifies it by."""

    key: Any
    name: str
    won: int = 0
    drawn: int = 0
    lost: int = 0


@dataclass(frozen=True, slots=True)
class Standing:
    key: Any
    name: str
    played: int
    won: int
    drawn: int
    lost: int
    points: int


def points(record: Record, rules: HouseRules) -> int:
    return (
        record.won * rules.points_for_win
        + record.drawn * rules.points_for_draw
        + record.lost * rules.points_for_loss
    )


def standings(rows: Iterable[Record], rules: HouseRules) -> list[Standing]:
    """The table: points, then wins, then name (case-insensitive), highest first."""
    table = [
        Standing(
            key=r.key,
            name=r.name,
            played=r.won + r.drawn + r.lost,
            won=r.won,
            drawn=r.drawn,
            lost=r.lost,
            points=points(r, rules),
        )
        for r in rows
    ]
    table.sort(key=lambda s: (-s.points, -s.won, s.name.casefold(), s.name))
    return table
