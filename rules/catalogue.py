"""The rules catalogue as immutable plain data, for the pure engine.

Nothing here imports Django: `rules.loader` builds a `Catalogue` from the
database once per process, and `roster.engine` reads it.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

STATISTICS = ("ME", "RA", "CA", "DF", "HP", "FR")
ACTIVE_STATISTICS = ("ME", "RA", "CA")


@dataclass(frozen=True, slots=True)
class StatisticOption:
    statistic: str  # one of STATISTICS, or "choice" in a society's modifiers
    amount: int


@dataclass(frozen=True, slots=True)
class AdvancementLine:
    number: int
    label: str
    kind: str  # "statistic" | "skill"
    options: tuple[StatisticOption, ...]
    skill_category: str | None

    @property
    def needs_choice(self) -> bool:
        return len(self.options) > 1

    def option_for(self, choice: str | None) -> StatisticOption | None:
        if not self.needs_choice:
            return self.options[0] if choice is None else None
        return next((o for o in self.options if o.statistic == choice), None)


@dataclass(frozen=True, slots=True)
class Society:
    slug: str
    name: str
    choice_options: tuple[str, ...]
    modifiers: tuple[StatisticOption, ...]
    lines: Mapping[int, AdvancementLine]
    skill_categories: frozenset[str]  # the categories of its skill lines (R6)


@dataclass(frozen=True, slots=True)
class Skill:
    key: str  # "<category>/<slug>"
    category: str
    slug: str
    name: str
    roll_min: int
    roll_max: int
    summary: str
    repeatable: bool
    excludes: frozenset[str]


@dataclass(frozen=True, slots=True)
class SkillCategory:
    slug: str
    name: str
    table_size: int
    cost_statistics: tuple[str, ...]
    skills: tuple[Skill, ...]

    def skill_for_roll(self, result: int) -> Skill | None:
        return next((s for s in self.skills if s.roll_min <= result <= s.roll_max), None)


@dataclass(frozen=True, slots=True)
class FireMode:
    rate_of_fire: int
    accuracy: int


@dataclass(frozen=True, slots=True)
class Equipment:
    slug: str
    name: str
    kind: str  # melee | ranged | armour | shield | item
    hands: int
    cost_multiplier: Fraction
    cost_statistic: str | None
    cost_constant: int
    cost_label: str
    range_inches: int | None
    fire_modes: tuple[FireMode, ...]
    blast: int | None
    to_hit: int
    df_bonus_melee: int
    df_bonus_ranged: int
    summary: str

    @property
    def is_weapon(self) -> bool:
        return self.kind in ("melee", "ranged")

    @property
    def held_in_hand(self) -> bool:
        return self.hands > 0


@dataclass(frozen=True, slots=True)
class SpellOutcome:
    label: str
    min_successes: int
    max_successes: int | None
    effect: str


@dataclass(frozen=True, slots=True)
class Spell:
    slug: str
    name: str
    school: str | None
    difficulty: int | None
    difficulty_label: str
    range_kind: str  # inches | self | fr
    range_inches: int | None
    forbidden: bool
    required_skill: str | None
    summary: str
    outcomes: tuple[SpellOutcome, ...]


@dataclass(frozen=True, slots=True)
class Catalogue:
    rules_version: str
    societies: Mapping[str, Society]
    skill_categories: Mapping[str, SkillCategory]
    skills: Mapping[str, Skill]
    equipment: Mapping[str, Equipment]
    spell_schools: Mapping[str, str]  # slug -> name
    spells: Mapping[str, Spell]
