"""The rules catalogue as immutable plain data, for the pure engine.

Nothing here imports Django: `rules.loader` builds a `Catalogue` from the
database once per process, and `roster.engine` reads it.
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
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

    @property
    def hands_label(self) -> str:
        """The hands it takes as printed ("1H", "2H"); "" for a piece not held."""
        return f"{self.hands}H" if self.hands else ""

    @property
    def profile(self) -> str:
        """A short line of what the piece does in play: its fire profile as printed
        (15" ROF 2/3 ACC +0/-1 for the LMG's two modes), to hit, a DF bonus, or else its
        summary."""
        if self.kind == "ranged":
            parts = []
            if self.range_inches:
                parts.append(f'{self.range_inches}"')
            if self.fire_modes:
                parts.append("ROF " + "/".join(str(m.rate_of_fire) for m in self.fire_modes))
                parts.append("ACC " + "/".join(f"{m.accuracy:+d}" for m in self.fire_modes))
            if self.blast:
                parts.append(f"Blast {self.blast}")
            return " · ".join(parts)
        if self.kind == "melee":
            return f"{self.to_hit:+d} to hit" if self.to_hit else "Melee weapon"
        melee, ranged = self.df_bonus_melee, self.df_bonus_ranged
        if melee or ranged:
            if melee == ranged:
                return f"DF {melee:+d}"
            if not ranged:
                return f"DF {melee:+d} in melee only"
            return f"DF {melee:+d} in melee, {ranged:+d} against ranged"
        return self.summary


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
    # The edition's name (the fixture's `RulesVersion`): a force keeps the edition it was
    # built under until its player moves it to a new one.
    rules_version: str
    # A digest of everything else (`content_digest`): it moves with any change to the
    # rules' content, so stored evaluations know when to be worked out again.
    content_version: str
    societies: Mapping[str, Society]
    skill_categories: Mapping[str, SkillCategory]
    skills: Mapping[str, Skill]
    equipment: Mapping[str, Equipment]
    spell_schools: Mapping[str, str]  # slug -> name
    spells: Mapping[str, Spell]


# What the content digest leaves out: the names of the catalogue itself.
_NOT_CONTENT = frozenset({"rules_version", "content_version"})


def _plain(value: object) -> object:
    """`value` as JSON-able data that is the same for the same content, whatever order
    the rows came in."""
    if is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in fields(value)
            if f.name not in _NOT_CONTENT
        }
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(str(v) for v in value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Fraction):
        return str(value)
    return value


def content_digest(catalogue: Catalogue) -> str:
    """A short stable digest of the catalogue's rule content (not its edition's name):
    equal catalogues give equal digests, and any change to a number, name, summary or
    table gives another."""
    text = json.dumps(_plain(catalogue), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
