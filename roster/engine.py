"""The roster engine: the one place where DBD's force-building rules are applied.

`evaluate(document, catalogue)` takes a dbd-roster/1 document (any JSON value) and
the rules catalogue as plain data and returns every member's statistics, defence,
skills, spell slots and costs, with every error and warning found, each pointing
into the document (R12). It never raises on bad input: shape problems come back
as `Evaluation.malformed` problems, rule problems as `errors`.

A member is built in the order a player builds one: base statistics (R1), society
(R2), free advancements (R4, R5), purchased advancements (R6), level-ups (R16,
R17), purchases made between battles (R17), equipment (R7, R8), spells (R9); then
the force-wide checks (R10, R11).

`roll_skill` is R5's dice procedure, with the dice injected so tests can seed them.
No Django here: views, the API, imports and campaigns all call this module.
"""

import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any

from dbd_site.errors import Problem, declare_codes, pointer
from dbd_site.words import counted
from roster import documents
from roster.documents import Advancement, Member
from rules.catalogue import (
    ACTIVE_STATISTICS,
    AdvancementLine,
    Catalogue,
    Equipment,
    SkillCategory,
    Society,
    StatisticOption,
)

# The engine's own version: it moves with any change to this module (or to what it calls)
# that changes what `evaluate` answers for some document. A stored evaluation records it
# with the rules' content (`evaluation_version`), so a rule changed in code refreshes
# stored evaluations as a change to the rules' data does. A test evaluates a fixed corpus
# and fails when the answers change while this did not (tests/roster/test_engine_version.py
# says how to move it).
ENGINE_VERSION = 3

BASE_VALUES = (1, 2, 2, 3)  # R1: ME, RA, CA, DF get 3/2/2/1 in some order
BASE_DF_BONUS = 6
STARTING_HP = 10
STARTING_FR = 5
ACTIVE_MAX = 5  # R3
DF_MAX = 16  # R3
FREE_ADVANCEMENTS = 2  # R4
PICK_FR_COST = 2  # R5
REROLL_FR_COST = 1  # R5
MIN_STUDENTS, MAX_STUDENTS, MAX_MENTORS = 4, 6, 1  # R10
# R16: total XP needed for levels 1..10. A campaign may set its own (house rule).
LEVEL_THRESHOLDS: tuple[int, ...] = (0, 3, 7, 12, 18, 25, 33, 42, 52, 63)

ADDITIONAL_SPELL_SLOT = "spellcasting/additional-spell-slot"
SPELL_DILETTANTE = "spellcasting/spell-dilettante"
SPELL_FOCUS = "spellcasting/spell-focus"
SPELL_MASTERY = "spellcasting/supreme-spell-mastery"

# Every code the engine reports, with what it means; listed in the API schema and in
# docs/roster-document.md (a test keeps the three in step).
ERROR_CODES: Mapping[str, str] = {
    "invalid-base-statistics": "Base ME, RA, CA and DF are not 3, 2, 2 and 1 in some order (R1).",
    "unknown-society": "The club's society is not academic, sporting or technical (R2).",
    "invalid-choice": "A choice is not one the society or the advancement line offers (R2, R4).",
    "choice-required": "An 'or' line needs a choice (R4).",
    "choice-not-applicable": "A choice was given for a line that offers none (R4).",
    "statistic-out-of-bounds": "A step takes ME, RA or CA outside 0-5, DF above 16 or FR below "
    "0 (R3).",
    "free-advancement-count": "A student takes exactly two free advancements (R4).",
    "duplicate-line": "The same line is taken twice where that is not allowed (R4, R6).",
    "skill-required": "A skill line needs a `skill` and a `method` (R5).",
    "not-a-skill-line": "`skill`, `method`, `rerolls` or `natural_12` on a statistic line (R5).",
    "unknown-skill": "No skill has that `category/slug` (R5).",
    "skill-wrong-category": "The skill is not from the line's category, and no natural 12 "
    "was rolled (R5).",
    "skill-not-in-society-table": "A purchased skill's category is not on the society's "
    "table (R6).",
    "duplicate-skill": "The student already has this skill (R6).",
    "excluded-skill": "Determination and Extreme Determination cannot be taken together (R5).",
    "purchase-skill-line": "Skills are bought by naming them, not by line number (R6).",
    "statistic-after-skill": "A statistic purchase comes after a skill purchase (R6).",
    "too-many-level-ups": "More level-ups than the student's level allows (R16, R17).",
    "unknown-equipment": "No equipment has that slug (R7).",
    "needs-statistic": "Weapons and shields need their cost statistic at 1 or more (R7).",
    "too-many-hands": "Weapons and shields need more than two hands plus one backup (R8).",
    "too-many-pieces": "More than one piece beyond what is held in hand (R8).",
    "needs-ca": "Only a student with CA 1 or more learns spells (R9).",
    "unknown-school": "No spell school has that slug (R9).",
    "duplicate-school": "The same core school is named twice (R9).",
    "too-many-core-schools": "One core school, two with Spell Dilettante (R9).",
    "core-school-required": "A student who knows spells names a core school (R9).",
    "unknown-spell": "No spell has that slug (R9).",
    "duplicate-spell": "The same spell is known twice (R9).",
    "needs-skill": "Dragon Slayer, Spell Focus and Supreme Spell Mastery need their skill (R9).",
    "mastery-not-known": "The Mastery spell is not one the student knows (R9).",
    "too-many-spells": "Spells, Spell Focus and Mastery need more slots than the student has "
    "(R9).",
    "force-size": "A force has 4 to 6 students (R10).",
    "too-many-mentors": "A force has at most one mentor (R10).",
    "duplicate-name": "Two members share a name (R10).",
    "over-budget": "The force costs more than its Resources (R11).",
}
WARNING_CODES: Mapping[str, str] = {
    "df-capped": "Armour and shields would take DF above 16; it counts as 16 (R3, R8).",
    "level-up-pending": "The student has levels whose advancement has not been taken yet (R17).",
}
CODES = declare_codes({**ERROR_CODES, **WARNING_CODES})


# --- results ---------------------------------------------------------------------------


@dataclass(slots=True)
class MemberResult:
    name: str
    role: str
    level: int
    stats: dict[str, int]
    defence: dict[str, int]
    skills: list[str]
    spell_slots: dict[str, int]
    cost: dict[str, int]
    unverified_rolls: int
    # Per-entry costs, so a page can say what each purchase and piece costs.
    purchase_costs: list[int] = field(default_factory=list)
    equipment_costs: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "level": self.level,
            "stats": self.stats,
            "defence": self.defence,
            "skills": self.skills,
            "spell_slots": self.spell_slots,
            "cost": self.cost,
            "unverified_rolls": self.unverified_rolls,
            "purchase_costs": self.purchase_costs,
            "equipment_costs": self.equipment_costs,
        }


@dataclass(slots=True)
class Evaluation:
    rules_version: str
    resources: int | None = None
    total_cost: int = 0
    members: list[MemberResult] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    # Shape problems: the value is not a dbd-roster/1 document at all (the API's 400).
    malformed: list[Problem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors and not self.malformed

    @property
    def remaining(self) -> int | None:
        return None if self.resources is None else self.resources - self.total_cost

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "rules_version": self.rules_version,
            "resources": self.resources,
            "total_cost": self.total_cost,
            "remaining": self.remaining,
            "errors": [p.as_dict() for p in self.errors],
            "warnings": [p.as_dict() for p in self.warnings],
            "members": [m.as_dict() for m in self.members],
        }


# --- helpers ---------------------------------------------------------------------------


def evaluation_version(catalogue: Catalogue) -> str:
    """What a stored evaluation was worked out with: the rules' content (a digest of the
    catalogue's data) and the engine's code (`ENGINE_VERSION`). When either moves, stored
    evaluations are worked out again."""
    return f"{catalogue.content_version}-e{ENGINE_VERSION}"


def level_for_xp(xp: int, thresholds: tuple[int, ...] = LEVEL_THRESHOLDS) -> int:
    """R16: the highest level whose threshold `xp` reaches (level 1 at 0 XP)."""
    return sum(1 for needed in thresholds if xp >= needed) or 1


def times_rounded_down(multiplier: Fraction, value: int) -> int:
    """R13: a number multiplied by a fraction is rounded down (exact integer arithmetic)."""
    return multiplier.numerator * value // multiplier.denominator


def skill_cost(category: SkillCategory, owned_in_category: int, stats: Mapping[str, int]) -> int:
    """R6: m x S, m = 1.5 for the first skill in the category, +0.5 for each after."""
    multiplier = Fraction(3 + owned_in_category, 2)
    statistic = max(stats[s] for s in category.cost_statistics)
    return times_rounded_down(multiplier, statistic)


def equipment_cost(item: Equipment, stats: Mapping[str, int]) -> int:
    """R7: floor(k x STAT), DF-5 / DF-2 for armour, or the flat cost as printed."""
    variable = (
        times_rounded_down(item.cost_multiplier, stats[item.cost_statistic])
        if item.cost_statistic
        else 0
    )
    return max(0, variable + item.cost_constant)


def _needs_statistic(item: Equipment) -> bool:
    """R7: weapons and shields are priced by a statistic the student must have."""
    return item.cost_statistic is not None and item.kind in ("melee", "ranged", "shield")


# --- one member ------------------------------------------------------------------------


class _MemberBuilder:
    """One member as it is being built, with the problems found so far: the creation
    steps below (`STEPS`, one function per step, in the order a player takes them)
    each read the member's document and change this."""

    def __init__(
        self,
        member: Member,
        index: int,
        catalogue: Catalogue,
        errors: list[Problem],
        warnings: list[Problem],
        verified_rolls: Collection[str],
        level_thresholds: tuple[int, ...],
    ) -> None:
        self.m = member
        self.index = index
        self.at = pointer("members", index)
        self.catalogue = catalogue
        self.errors = errors
        self.warnings = warnings
        self.verified_rolls = verified_rolls
        self.level_thresholds = level_thresholds
        self.stats: dict[str, int] = {}
        self.skills: list[str] = []
        self.society: Society | None = None
        self.statistic_lines: set[int] = set()
        self.unverified_rolls = 0
        self.purchase_costs: list[int] = []
        self.equipment_costs: list[int] = []
        self.level = 1
        self.stats_before_equipment: dict[str, int] = {}
        self.equipment_total = 0
        self.defence: dict[str, int] = {}
        self.spell_slots: dict[str, int] = {}

    def error(self, where: str, code: str, message: str) -> None:
        self.errors.append(Problem(where, code, message))

    def warn(self, where: str, code: str, message: str) -> None:
        self.warnings.append(Problem(where, code, message))

    # R3: bounds hold after every creation step.
    def change(self, statistic: str, amount: int, where: str) -> None:
        self.stats[statistic] += amount
        value = self.stats[statistic]
        if statistic in ACTIVE_STATISTICS and not 0 <= value <= ACTIVE_MAX:
            self.error(
                where,
                "statistic-out-of-bounds",
                f"This takes {statistic} to {value}; it must stay between 0 and {ACTIVE_MAX}.",
            )
        elif statistic == "DF" and value > DF_MAX:
            self.error(
                where, "statistic-out-of-bounds", f"This takes DF to {value}; at most {DF_MAX}."
            )
        elif statistic == "FR" and value < 0:
            self.error(
                where,
                "statistic-out-of-bounds",
                f"This takes FR to {value}; it cannot go below 0.",
            )

    def build(self) -> MemberResult:
        self.run_steps(0)
        return self.result()

    def run_steps(self, first: int) -> None:
        """The building steps from number `first` on (see `STEPS`)."""
        for step in STEPS[first:]:
            step(self)

    def resumed(self, member: Member) -> "_MemberBuilder":
        """A copy of this part-built member that carries on with `member`, which must read
        the same as the original in every field the steps taken so far have read."""
        copy_ = _MemberBuilder(
            member,
            self.index,
            self.catalogue,
            list(self.errors),
            list(self.warnings),
            self.verified_rolls,
            self.level_thresholds,
        )
        copy_.stats = dict(self.stats)
        copy_.skills = list(self.skills)
        copy_.society = self.society
        copy_.statistic_lines = set(self.statistic_lines)
        copy_.unverified_rolls = self.unverified_rolls
        copy_.purchase_costs = list(self.purchase_costs)
        copy_.equipment_costs = list(self.equipment_costs)
        copy_.level = self.level
        copy_.stats_before_equipment = self.stats_before_equipment
        copy_.equipment_total = self.equipment_total
        copy_.defence = self.defence
        copy_.spell_slots = self.spell_slots
        return copy_

    def result(self) -> MemberResult:
        advancement_cost = sum(self.purchase_costs)
        return MemberResult(
            name=self.m.name,
            role=self.m.role,
            level=self.level,
            stats=self.stats_before_equipment,
            defence=self.defence,
            skills=list(self.skills),
            spell_slots=self.spell_slots,
            cost={
                "advancements": advancement_cost,
                "equipment": self.equipment_total,
                "total": advancement_cost + self.equipment_total,
            },
            unverified_rolls=self.unverified_rolls,
            purchase_costs=self.purchase_costs,
            equipment_costs=self.equipment_costs,
        )


# --- R1, R2: base statistics and society ----------------------------------------------


def _base_statistics(builder: _MemberBuilder) -> None:
    base = builder.m.base
    if sorted(base.values()) != list(BASE_VALUES):
        given = ", ".join(f"{s} {v}" for s, v in base.items())
        builder.error(
            f"{builder.at}/base",
            "invalid-base-statistics",
            f"ME, RA, CA and DF take 3, 2, 2 and 1 in some order; this has {given}.",
        )
    builder.stats = {
        "ME": base["ME"],
        "RA": base["RA"],
        "CA": base["CA"],
        "DF": base["DF"] + BASE_DF_BONUS,
        "HP": STARTING_HP,
        "FR": STARTING_FR,
    }


def _join_society(builder: _MemberBuilder) -> None:
    club_at = f"{builder.at}/club"
    society = builder.catalogue.societies.get(builder.m.society)
    if society is None:
        names = ", ".join(builder.catalogue.societies)
        builder.error(
            f"{club_at}/society",
            "unknown-society",
            f"'{builder.m.society}' is not a society; choose one of {names}.",
        )
        return
    builder.society = society
    choice = builder.m.society_choice
    if choice not in society.choice_options:
        options = " or ".join(society.choice_options)
        builder.error(
            f"{club_at}/choice",
            "invalid-choice",
            f"The {society.name} society's choice is {options}, not {choice}.",
        )
        return
    for modifier in society.modifiers:
        statistic = choice if modifier.statistic == "choice" else modifier.statistic
        builder.change(statistic, modifier.amount, f"{club_at}/choice")


# --- R4, R5: free advancements (a level-up's advancement too, R17) --------------------


def _society_line(builder: _MemberBuilder, number: int, where: str) -> AdvancementLine | None:
    assert builder.society is not None
    line = builder.society.lines.get(number)
    if line is None:  # the schema allows 1-6; a society with fewer lines is a data error
        builder.error(
            where, "invalid-choice", f"The {builder.society.name} table has no line {number}."
        )
    return line


def _statistic_option(
    builder: _MemberBuilder, line: AdvancementLine, choice: str | None, where: str
) -> StatisticOption | None:
    """The option an advancement takes on a statistic line, or None after an error."""
    if line.needs_choice and choice is None:
        options = " or ".join(o.statistic for o in line.options)
        builder.error(
            f"{where}/choice", "choice-required", f"'{line.label}' needs a choice: {options}."
        )
        return None
    option = line.option_for(choice)
    if option is None:
        if line.needs_choice:
            options = " or ".join(o.statistic for o in line.options)
            builder.error(
                f"{where}/choice",
                "invalid-choice",
                f"'{line.label}' offers {options}, not {choice}.",
            )
        else:
            builder.error(
                f"{where}/choice",
                "choice-not-applicable",
                f"'{line.label}' has no choice to make; remove 'choice'.",
            )
    return option


def _check_new_skill(builder: _MemberBuilder, key: str, where: str) -> bool:
    """R5/R6: known, not owned twice (unless repeatable), not excluded. True if fine."""
    skill = builder.catalogue.skills.get(key)
    if skill is None:
        builder.error(
            where, "unknown-skill", f"'{key}' is not a skill; use 'category/slug' names."
        )
        return False
    if key in builder.skills and not skill.repeatable:
        builder.error(where, "duplicate-skill", f"{skill.name} is already taken.")
        return False
    clash = next((s for s in skill.excludes if s in builder.skills), None)
    if clash is not None:
        other = builder.catalogue.skills[clash].name
        builder.error(where, "excluded-skill", f"{skill.name} cannot be taken alongside {other}.")
        return False
    return True


def _advancement(
    builder: _MemberBuilder, adv: Advancement, where: str, *, at_creation: bool
) -> None:
    """A free advancement (R4, R5) or a level-up (R17).

    Long because a statistic line and a skill line (R4, R5) are checked in one place, so a
    level-up and a free advancement cannot drift apart.
    """
    line = _society_line(builder, adv.line, f"{where}/line")
    if line is None:
        return
    if line.kind == "statistic":
        stray = [
            k
            for k, v in (
                ("skill", adv.skill),
                ("method", adv.method),
                ("rerolls", adv.rerolls or None),
                ("natural_12", adv.natural_12 or None),
            )
            if v is not None
        ]
        if stray:
            builder.error(
                f"{where}/{stray[0]}",
                "not-a-skill-line",
                f"'{line.label}' is a statistic line; remove {', '.join(stray)}.",
            )
        if at_creation:
            # R4: two different lines; R6 counts these when buying statistics.
            builder.statistic_lines.add(line.number)
        option = _statistic_option(builder, line, adv.choice, where)
        if option is not None:
            builder.change(option.statistic, option.amount, where)
        return

    if adv.choice is not None:
        builder.error(
            f"{where}/choice",
            "choice-not-applicable",
            f"'{line.label}' gives a skill; remove 'choice'.",
        )
    # R5: picking costs 2 FR; each re-roll costs 1 FR. R5a: re-rolls already paid for
    # stay paid, also while the roll is still open (a natural 12, a free pick).
    fr_cost = adv.rerolls * REROLL_FR_COST + (PICK_FR_COST if adv.method == "picked" else 0)
    if fr_cost:
        builder.change("FR", -fr_cost, where)
    if adv.skill is None or adv.method is None:
        missing = "skill" if adv.skill is None else "method"
        builder.error(
            f"{where}/{missing}",
            "skill-required",
            f"'{line.label}' needs a skill (a choice from the table) and a method (rolled "
            "or picked).",
        )
        return
    if adv.method == "rolled" and where not in builder.verified_rolls:
        builder.unverified_rolls += 1
    if not _check_new_skill(builder, adv.skill, f"{where}/skill"):
        return
    skill = builder.catalogue.skills[adv.skill]
    if skill.category != line.skill_category and not adv.natural_12:
        builder.error(
            f"{where}/skill",
            "skill-wrong-category",
            f"'{line.label}' gives a {line.skill_category} skill; {skill.name} is "
            f"{skill.category} (only a natural 12 lets you roll on another table).",
        )
        return
    builder.skills.append(adv.skill)


def _free_advancements(builder: _MemberBuilder) -> None:
    where = f"{builder.at}/free_advancements"
    advancements = builder.m.free_advancements
    if len(advancements) != FREE_ADVANCEMENTS:
        builder.error(
            where,
            "free-advancement-count",
            f"Take exactly {FREE_ADVANCEMENTS} free advancements; this has {len(advancements)}.",
        )
    if builder.society is None:
        return
    seen: set[int] = set()
    for i, adv in enumerate(advancements):
        if adv.line in seen:
            # Named as the builder shows the line ("+1 ME"); a number the table lacks
            # (only an imported document has one) is all there is to name it by.
            known = builder.society.lines.get(adv.line)
            label = known.label if known is not None else f"line {adv.line}"
            builder.error(
                f"{where}/{i}/line",
                "duplicate-line",
                f"Free advancements come from two different lines; {label} is taken twice.",
            )
            continue
        seen.add(adv.line)
        _advancement(builder, adv, f"{where}/{i}", at_creation=True)


# --- R6: purchases, at creation and between battles (R17) -----------------------------


# The steps that build on several methods, named for `STEPS`.
def _creation_purchases(builder: _MemberBuilder) -> None:
    builder.purchase_costs = [0] * len(builder.m.purchases)
    _purchases(builder, between_battles=False)


def _between_battle_purchases(builder: _MemberBuilder) -> None:
    _purchases(builder, between_battles=True)


def _purchases(builder: _MemberBuilder, *, between_battles: bool) -> None:
    """R6: statistics first at 2 x the current value, then skills at m x S.

    Creation purchases come before level-ups; purchases made between battles in a
    campaign (R17) come after them, in document order, and may repeat a statistic line.
    """
    if builder.society is None:
        return
    where = f"{builder.at}/purchases"
    bought_skill = False
    for i, purchase in enumerate(builder.m.purchases):
        if purchase.between_battles != between_battles:
            continue
        here = f"{where}/{i}"
        if purchase.skill is not None:
            builder.purchase_costs[i] = _buy_skill(builder, purchase.skill, here)
            bought_skill = True
        else:
            builder.purchase_costs[i] = _buy_statistic(
                builder,
                purchase.line,
                purchase.choice,
                here,
                late=bought_skill and not between_battles,
                at_creation=not between_battles,
            )


def _buy_statistic(
    builder: _MemberBuilder,
    number: int | None,
    choice: str | None,
    here: str,
    *,
    late: bool,
    at_creation: bool,
) -> int:
    assert builder.society is not None
    assert number is not None
    line = _society_line(builder, number, f"{here}/line")
    if line is None:
        return 0
    if line.kind == "skill":
        builder.error(
            f"{here}/line",
            "purchase-skill-line",
            f"Line {number} gives a {line.skill_category} skill: buy it by name, "
            f'e.g. {{"skill": "{line.skill_category}/..."}}.',
        )
        return 0
    if late:
        builder.error(
            here,
            "statistic-after-skill",
            "Statistic advancements are bought before any skill; move this one up.",
        )
    if at_creation:
        if number in builder.statistic_lines:
            builder.error(
                f"{here}/line",
                "duplicate-line",
                f"'{line.label}' is already taken; at creation a statistic line is taken once.",
            )
            return 0
        builder.statistic_lines.add(number)
    option = _statistic_option(builder, line, choice, here)
    if option is None:
        return 0
    cost = 2 * builder.stats[option.statistic]
    builder.change(option.statistic, option.amount, here)
    return cost


def _buy_skill(builder: _MemberBuilder, key: str, here: str) -> int:
    assert builder.society is not None
    if not _check_new_skill(builder, key, f"{here}/skill"):
        return 0
    skill = builder.catalogue.skills[key]
    if skill.category not in builder.society.skill_categories:
        offered = ", ".join(sorted(builder.society.skill_categories))
        builder.error(
            f"{here}/skill",
            "skill-not-in-society-table",
            f"The {builder.society.name} table offers {offered} skills, not {skill.category}.",
        )
        return 0
    category = builder.catalogue.skill_categories[skill.category]
    owned = sum(1 for s in builder.skills if s.startswith(skill.category + "/"))
    builder.skills.append(key)
    return skill_cost(category, owned, builder.stats)


# --- R16, R17: level-ups --------------------------------------------------------------


def _take_level_ups(builder: _MemberBuilder) -> None:
    builder.level = _level_ups(builder)


def _level_ups(builder: _MemberBuilder) -> int:
    """R16: level follows XP; R17: one free advancement per level gained."""
    level = level_for_xp(builder.m.xp, builder.level_thresholds)
    where = f"{builder.at}/level_ups"
    allowed = level - 1
    taken = len(builder.m.level_ups)
    for i, adv in enumerate(builder.m.level_ups):
        if i >= allowed:
            builder.error(
                f"{where}/{i}",
                "too-many-level-ups",
                f"At level {level} ({builder.m.xp} XP) a student has "
                f"{counted(allowed, 'level-up')}; this is number {i + 1}.",
            )
            continue
        if builder.society is not None:
            _advancement(builder, adv, f"{where}/{i}", at_creation=False)
    if taken < allowed:
        builder.warn(
            where,
            "level-up-pending",
            f"Level {level}: {counted(allowed - taken, 'level-up advancement')} still to take.",
        )
    return level


# --- R7, R8: equipment ----------------------------------------------------------------


def _take_equipment(builder: _MemberBuilder) -> None:
    builder.stats_before_equipment = dict(builder.stats)
    builder.equipment_total, builder.defence = _equipment(builder)


def _equipment(builder: _MemberBuilder) -> tuple[int, dict[str, int]]:
    where = f"{builder.at}/equipment"
    total = 0
    known: list[tuple[int, Equipment]] = []
    for i, slug in enumerate(builder.m.equipment):
        item = builder.catalogue.equipment.get(slug)
        if item is None:
            builder.error(f"{where}/{i}", "unknown-equipment", f"'{slug}' is not equipment.")
            builder.equipment_costs.append(0)
            continue
        if (
            _needs_statistic(item)
            and item.cost_statistic is not None
            and builder.stats[item.cost_statistic] < 1
        ):
            builder.error(
                f"{where}/{i}",
                "needs-statistic",
                f"{item.name} needs {item.cost_statistic} 1 or more.",
            )
        cost = equipment_cost(item, builder.stats)
        builder.equipment_costs.append(cost)
        total += cost
        known.append((i, item))
    _check_loadout(builder, known, where)
    return total, _defence(builder, known, where)


def _check_loadout(
    builder: _MemberBuilder, items: list[tuple[int, Equipment]], where: str
) -> None:
    """R8: two hands of weapons and shields, plus one more piece of any kind."""
    extra_slot_free = True
    in_hand = [(i, e) for i, e in items if e.held_in_hand]
    for i, item in items:
        if item.held_in_hand:
            continue
        if extra_slot_free:
            extra_slot_free = False
        else:
            builder.error(
                f"{where}/{i}",
                "too-many-pieces",
                f"{item.name}: beyond what is in hand a student carries one more piece "
                "(a backup weapon, armour or an item), and that is taken.",
            )
    if extra_slot_free and sum(e.hands for _, e in in_hand) > 2:
        # The largest piece is the backup; the first of equals, for a stable answer.
        backup = max(in_hand, key=lambda pair: (pair[1].hands, -pair[0]))
        in_hand = [pair for pair in in_hand if pair is not backup]
    hands_free = 2
    for i, item in in_hand:
        if item.hands <= hands_free:
            hands_free -= item.hands
        else:
            needs = "a hand" if item.hands == 1 else f"{item.hands} hands"
            free = "no hand is free" if hands_free == 0 else f"only {hands_free} is free"
            builder.error(
                f"{where}/{i}",
                "too-many-hands",
                f"{item.name} needs {needs} and {free}"
                + (" (the extra piece is taken)." if not extra_slot_free else "."),
            )


def _defence(
    builder: _MemberBuilder, items: list[tuple[int, Equipment]], where: str
) -> dict[str, int]:
    """R8: armour and shields raise DF (Light Shield in melee only), capped at 16 (R3)."""
    defence = {"melee": builder.stats["DF"], "ranged": builder.stats["DF"]}
    warned = False
    for i, item in items:
        for kind, bonus in (("melee", item.df_bonus_melee), ("ranged", item.df_bonus_ranged)):
            if not bonus:
                continue
            raised = defence[kind] + bonus
            if raised > DF_MAX and not warned:
                builder.warn(
                    f"{where}/{i}",
                    "df-capped",
                    f"{item.name} would take DF {kind} to {raised}; it counts as {DF_MAX}.",
                )
                warned = True
            defence[kind] = min(raised, DF_MAX)
    return defence


# --- R9: spells -----------------------------------------------------------------------


def _learn_spells(builder: _MemberBuilder) -> None:
    builder.spell_slots = _spells(builder)


def _spells(builder: _MemberBuilder) -> dict[str, int]:
    """R9: slots = CA + Additional Spell Slots; core school 1 slot, others 2.

    Long because the slots (R9) are counted as the spells, Spell Focus and the Mastery use
    them, in one pass.
    """
    at = builder.at
    total = builder.stats["CA"] + builder.skills.count(ADDITIONAL_SPELL_SLOT)
    used = 0
    wants_magic = bool(builder.m.spells or builder.m.spell_focus or builder.m.mastery)
    if wants_magic and builder.stats["CA"] < 1:
        builder.error(
            f"{at}/spells",
            "needs-ca",
            f"Only a student with CA 1 or more learns spells; CA is {builder.stats['CA']}.",
        )
        return {"total": max(total, 0), "used": 0}

    schools = _core_schools(builder)
    overflow_reported = False

    def use(slots: int, where: str, what: str) -> None:
        nonlocal used, overflow_reported
        used += slots
        if used > total and not overflow_reported:
            overflow_reported = True
            builder.error(
                where,
                "too-many-spells",
                f"{what} needs {counted(slots, 'slot')} but only {total - used + slots} of "
                f"{total} are left.",
            )

    known: set[str] = set()
    for i, slug in enumerate(builder.m.spells):
        here = f"{at}/spells/{i}"
        spell = builder.catalogue.spells.get(slug)
        if spell is None:
            builder.error(here, "unknown-spell", f"'{slug}' is not a spell.")
            continue
        if slug in known:
            builder.error(here, "duplicate-spell", f"{spell.name} is already known.")
            continue
        known.add(slug)
        if spell.required_skill is not None:
            if spell.required_skill not in builder.skills:
                skill_name = builder.catalogue.skills[spell.required_skill].name
                builder.error(here, "needs-skill", f"{spell.name} needs the {skill_name} skill.")
            continue  # Dragon Slayer is known in addition to other spells: no slot.
        if spell.school is not None and spell.school in schools:
            use(1, here, spell.name)
        else:
            use(2, here, f"{spell.name} (not of a core school)")
    if builder.m.spell_focus:
        if SPELL_FOCUS not in builder.skills:
            builder.error(
                f"{at}/spell_focus", "needs-skill", "Spell Focus needs the Spell Focus skill."
            )
        else:
            use(1, f"{at}/spell_focus", "Spell Focus")
    if builder.m.mastery is not None:
        if SPELL_MASTERY not in builder.skills:
            builder.error(
                f"{at}/mastery",
                "needs-skill",
                "A Mastery needs the Supreme Spell Mastery skill.",
            )
        elif builder.m.mastery not in known:
            builder.error(
                f"{at}/mastery",
                "mastery-not-known",
                f"'{builder.m.mastery}' is not among this student's spells.",
            )
        else:
            use(1, f"{at}/mastery", "Supreme Spell Mastery")
    return {"total": total, "used": used}


def _core_schools(builder: _MemberBuilder) -> set[str]:
    where = f"{builder.at}/core_schools"
    allowed = 2 if SPELL_DILETTANTE in builder.skills else 1
    schools: set[str] = set()
    for i, slug in enumerate(builder.m.core_schools):
        if slug not in builder.catalogue.spell_schools:
            names = ", ".join(builder.catalogue.spell_schools)
            builder.error(f"{where}/{i}", "unknown-school", f"'{slug}' is not a school ({names}).")
        elif slug in schools:
            builder.error(f"{where}/{i}", "duplicate-school", f"'{slug}' is named twice.")
        elif len(schools) >= allowed:
            builder.error(
                f"{where}/{i}",
                "too-many-core-schools",
                "A student names one core school, two with Spell Dilettante.",
            )
        else:
            schools.add(slug)
    needs_school = any(
        (s := builder.catalogue.spells.get(slug)) is not None and s.school is not None
        for slug in builder.m.spells
    )
    if needs_school and not builder.m.core_schools:
        builder.error(where, "core-school-required", "Name a core school for this student.")
    return schools


# The building steps in the order a player takes them.
STEPS: tuple[Callable[[_MemberBuilder], object], ...] = (
    _base_statistics,  # 0 (R1)
    _join_society,  # 1 (R2)
    _free_advancements,  # 2 (R4, R5)
    _creation_purchases,  # 3 (R6)
    _take_level_ups,  # 4 (R16, R17)
    _between_battle_purchases,  # 5 (R17)
    _take_equipment,  # 6 (R7, R8)
    _learn_spells,  # 7 (R9)
)
# The first step that reads each field of a member: a variant of a member that differs
# only in fields first read at step k is the same as the original up to step k, so a
# what-if can start there (`MemberWhatIf`). Name and role are read by no step, only by the
# result and the force checks. A test keeps this in step with `documents.Member`.
FIRST_READ: Mapping[str, int] = {
    "name": len(STEPS),
    "role": len(STEPS),
    "club_name": len(STEPS),
    "base": 0,
    "society": 1,
    "society_choice": 1,
    "free_advancements": 2,
    "purchases": 3,
    "xp": 4,
    "level_ups": 4,
    "equipment": 6,
    "core_schools": 7,
    "spells": 7,
    "spell_focus": 7,
    "mastery": 7,
}


# --- the force ---------------------------------------------------------------------------


def evaluate(
    document: Any,
    catalogue: Catalogue,
    *,
    verified_rolls: Collection[str] = frozenset(),
    level_thresholds: tuple[int, ...] = LEVEL_THRESHOLDS,
) -> Evaluation:
    """Evaluate any JSON value as a dbd-roster/1 document. Never raises on bad input.

    `verified_rolls` holds the pointers of rolled advancements backed by a roll the
    server made and stored (R5); every other rolled skill counts as unverified.
    """
    try:
        roster = documents.parse(document)
    except documents.MalformedDocument as exc:
        return Evaluation(rules_version=catalogue.rules_version, malformed=exc.problems)
    return evaluate_roster(
        roster, catalogue, verified_rolls=verified_rolls, level_thresholds=level_thresholds
    )


def evaluate_roster(
    roster: documents.Roster,
    catalogue: Catalogue,
    *,
    verified_rolls: Collection[str] = frozenset(),
    level_thresholds: tuple[int, ...] = LEVEL_THRESHOLDS,
) -> Evaluation:
    """`evaluate` for a document already parsed (`documents.parse`)."""
    result = Evaluation(rules_version=catalogue.rules_version, resources=roster.resources)
    for index, member in enumerate(roster.members):
        builder = _MemberBuilder(
            member,
            index,
            catalogue,
            result.errors,
            result.warnings,
            verified_rolls,
            level_thresholds,
        )
        result.members.append(builder.build())
    result.total_cost = sum(m.cost["total"] for m in result.members)
    _force_checks(roster.members, result)
    return result


def with_resources(evaluation: Evaluation, resources: int) -> Evaluation:
    """The same evaluation for a force with `resources` (R11): only the budget changes."""
    result = replace(
        evaluation,
        resources=resources,
        errors=[p for p in evaluation.errors if p.code != "over-budget"],
    )
    _check_budget(result)
    return result


def _force_checks(members: Iterable[Member], result: Evaluation) -> None:
    members = list(members)
    students = sum(1 for m in members if m.role == "student")
    if not MIN_STUDENTS <= students <= MAX_STUDENTS:
        result.errors.append(
            Problem(
                "/members",
                "force-size",
                f"A force has {MIN_STUDENTS} to {MAX_STUDENTS} students; this has {students}.",
            )
        )
    mentors = [i for i, m in enumerate(members) if m.role == "mentor"]
    for i in mentors[MAX_MENTORS:]:
        result.errors.append(
            Problem(
                pointer("members", i, "role"),
                "too-many-mentors",
                "A force has at most one mentor.",
            )
        )
    names = Counter(m.name.strip().casefold() for m in members)
    repeated = sorted({m.name for m in members if names[m.name.strip().casefold()] > 1})
    if repeated:
        result.errors.append(
            Problem(
                "/members",
                "duplicate-name",
                f"Member names must be unique in a force: {', '.join(repeated)}.",
            )
        )
    _check_budget(result)


def _check_budget(result: Evaluation) -> None:
    if result.total_cost > (result.resources or 0):
        result.errors.append(
            Problem(
                "/resources",
                "over-budget",
                f"The force costs {result.total_cost} but has {result.resources} Resources.",
            )
        )


# --- what-ifs ----------------------------------------------------------------------------


_MEMBER_FIELDS = tuple(f.name for f in fields(Member))


class MemberWhatIf:
    """One member alone in a force of `resources`, and variants of it, evaluated as
    `evaluate` would evaluate them: the builder pages judge every option this way.

    A variant is built from a snapshot of the original taken before the first step that
    reads a field the variant changes, so judging thirty pieces of equipment builds the
    member's statistics and skills once, not thirty times.
    """

    def __init__(
        self,
        member: Member,
        catalogue: Catalogue,
        *,
        resources: int,
        verified_rolls: Collection[str] = frozenset(),
        level_thresholds: tuple[int, ...] = LEVEL_THRESHOLDS,
    ) -> None:
        self.member = member
        self.catalogue = catalogue
        self.resources = resources
        self.verified_rolls = verified_rolls
        self.level_thresholds = level_thresholds
        self._snapshots: dict[int, _MemberBuilder] = {}

    def _snapshot(self, step: int) -> _MemberBuilder:
        """The original member built up to (not including) `step`; kept for reuse."""
        if step not in self._snapshots:
            if step == 0:
                builder = _MemberBuilder(
                    self.member,
                    0,
                    self.catalogue,
                    [],
                    [],
                    self.verified_rolls,
                    self.level_thresholds,
                )
            else:
                builder = self._snapshot(step - 1).resumed(self.member)
                STEPS[step - 1](builder)
            self._snapshots[step] = builder
        return self._snapshots[step]

    def evaluate(self, variant: Member | None = None) -> Evaluation:
        """The engine's answer for `variant` (the original when None) in place of it."""
        variant = self.member if variant is None else variant
        # A variant made by `documents.with_fields` shares every unchanged value.
        changed = [
            FIRST_READ[name]
            for name in _MEMBER_FIELDS
            if (new := getattr(variant, name)) is not (old := getattr(self.member, name))
            and new != old
        ]
        start = min(changed, default=len(STEPS))
        builder = self._snapshot(start).resumed(variant)
        builder.run_steps(start)
        result = Evaluation(
            rules_version=self.catalogue.rules_version,
            resources=self.resources,
            errors=builder.errors,
            warnings=builder.warnings,
        )
        result.members.append(builder.result())
        result.total_cost = result.members[0].cost["total"]
        _force_checks([variant], result)
        return result


# --- dice ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SkillRoll:
    """The outcome of R5's procedure on one table.

    `outcome` is "skill" (the die chose `skill`), "pick-freely" (the die chose a skill
    the student cannot take, so they pick any of `choices` at no cost) or "natural-12"
    (they may roll again on any table). `dice` holds every die rolled, re-rolls included.
    """

    table: str
    dice: tuple[int, ...]
    outcome: str
    skill: str | None = None
    choices: tuple[str, ...] = ()


def takeable_skills(category: SkillCategory, owned: Collection[str]) -> tuple[str, ...]:
    return tuple(
        s.key
        for s in category.skills
        if (s.repeatable or s.key not in owned) and not (s.excludes & set(owned))
    )


def roll_skill(category: SkillCategory, owned: Collection[str], rng: random.Random) -> SkillRoll:
    """R5: roll 1d12 on `category`'s table; real rolls use `rules.dice.server_dice()`."""
    dice: list[int] = []
    while True:
        die = rng.randint(1, 12)
        dice.append(die)
        if die == 12:
            return SkillRoll(category.slug, tuple(dice), "natural-12")
        if die <= category.table_size:
            break
        # Above the table but not a natural 12: roll again at no cost.
    skill = category.skill_for_roll(die)
    assert skill is not None, f"{category.slug} has no skill at {die}"
    takeable = takeable_skills(category, owned)
    if skill.key in takeable:
        return SkillRoll(category.slug, tuple(dice), "skill", skill=skill.key)
    return SkillRoll(category.slug, tuple(dice), "pick-freely", choices=takeable)
