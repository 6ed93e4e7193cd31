"""Read-only queries over the rules tables, for the pages and the API.

Every function takes keyword arguments only and issues a fixed number of queries,
whatever the size of the catalogue (prefetches, no per-row lookups).
"""

from dataclasses import dataclass, field

from django.db.models import Prefetch, Q, QuerySet

from rules.models import (
    AdvancementLine,
    Equipment,
    Skill,
    SkillCategory,
    Society,
    Spell,
    SpellOutcome,
    SpellSchool,
)

# The equipment tables of the rules reference, in printed order.
EQUIPMENT_TABLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("melee", "Melee weapons", (Equipment.Kind.MELEE,)),
    ("ranged", "Ranged weapons", (Equipment.Kind.RANGED,)),
    ("armour", "Armour and shields", (Equipment.Kind.ARMOUR, Equipment.Kind.SHIELD)),
    ("items", "Items", (Equipment.Kind.ITEM,)),
)


def signed(value: int) -> str:
    """+1, +0, -1: how the rulebook prints modifiers."""
    return f"{value:+d}"


# --- Query sets (shared with the API) ---------------------------------------------------


def society_queryset() -> QuerySet[Society]:
    return Society.objects.prefetch_related(
        Prefetch("lines", queryset=AdvancementLine.objects.order_by("number"))
    )


def skill_queryset(*, category: str | None = None) -> QuerySet[Skill]:
    skills = Skill.objects.select_related("category").prefetch_related(
        Prefetch("excludes", queryset=Skill.objects.order_by("key"))
    )
    if category:
        skills = skills.filter(category_id=category)
    return skills


def skill_category_queryset() -> QuerySet[SkillCategory]:
    return SkillCategory.objects.prefetch_related(
        Prefetch("skills", queryset=Skill.objects.order_by("roll_min"))
    )


def equipment_queryset(*, kind: str | None = None) -> QuerySet[Equipment]:
    equipment = Equipment.objects.all()
    if kind:
        equipment = equipment.filter(kind=kind)
    return equipment


def spell_queryset(*, school: str | None = None) -> QuerySet[Spell]:
    spells = Spell.objects.select_related("school").prefetch_related(
        Prefetch("outcomes", queryset=SpellOutcome.objects.order_by("min_successes"))
    )
    if school:
        spells = spells.filter(school_id=school)
    return spells


def spell_school_queryset() -> QuerySet[SpellSchool]:
    return SpellSchool.objects.prefetch_related(
        Prefetch("spells", queryset=Spell.objects.order_by("order"))
    )


# --- The rules reference page -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SocietyEntry:
    society: Society
    modifiers_label: str  # e.g. "-1 ME or RA, +1 CA"
    lines: tuple[AdvancementLine, ...]


@dataclass(frozen=True, slots=True)
class SkillTable:
    category: SkillCategory
    skills: tuple[Skill, ...]


@dataclass(frozen=True, slots=True)
class EquipmentRow:
    equipment: Equipment
    hands_label: str  # "1H", "2H" or "" for armour and items
    rof_label: str  # "2/3" for the Light Machine Gun's two modes
    accuracy_label: str  # "+0/-1"
    defence_label: str  # what armour and shields add to DF


@dataclass(frozen=True, slots=True)
class EquipmentTable:
    slug: str
    title: str
    rows: tuple[EquipmentRow, ...]


@dataclass(frozen=True, slots=True)
class SpellList:
    school: SpellSchool
    spells: tuple[Spell, ...]


@dataclass(frozen=True, slots=True)
class RulesIndex:
    query: str
    societies: tuple[SocietyEntry, ...]
    skill_tables: tuple[SkillTable, ...]
    equipment_tables: tuple[EquipmentTable, ...]
    spell_lists: tuple[SpellList, ...]
    forbidden_spells: tuple[Spell, ...]
    count: int = field(init=False)

    def __post_init__(self) -> None:
        count = (
            len(self.societies)
            + sum(len(t.skills) for t in self.skill_tables)
            + sum(len(t.rows) for t in self.equipment_tables)
            + sum(len(s.spells) for s in self.spell_lists)
            + len(self.forbidden_spells)
        )
        object.__setattr__(self, "count", count)

    @property
    def has_spells(self) -> bool:
        return bool(self.spell_lists or self.forbidden_spells)


def _modifiers_label(society: Society) -> str:
    parts = []
    for modifier in society.modifiers:
        statistic = modifier["statistic"]
        if statistic == "choice":
            statistic = " or ".join(society.choice_options)
        parts.append(f"{signed(int(modifier['amount']))} {statistic}")
    return ", ".join(parts)


def _defence_label(item: Equipment) -> str:
    melee, ranged = item.df_bonus_melee, item.df_bonus_ranged
    if not melee and not ranged:
        return ""
    if melee == ranged:
        return signed(melee)
    if not ranged:
        return f"{signed(melee)} (melee only)"
    return f"{signed(melee)} melee, {signed(ranged)} ranged"


def _equipment_row(item: Equipment) -> EquipmentRow:
    modes = item.fire_modes or []
    return EquipmentRow(
        equipment=item,
        hands_label=f"{item.hands}H" if item.hands else "",
        rof_label="/".join(str(m["rof"]) for m in modes),
        accuracy_label="/".join(signed(int(m["accuracy"])) for m in modes),
        defence_label=_defence_label(item),
    )


def rules_index(*, query: str = "") -> RulesIndex:
    """Everything the rules reference shows, narrowed to entries matching `query`.

    A society matches on its name, summary or an advancement line; a skill, a piece of
    equipment or a spell on its name or summary (a spell also on an outcome's effect).
    Matching is case-insensitive. At most eleven queries, however much content matches
    (a prefetch with nothing to attach to is skipped).

    Long because it narrows the four kinds of entry the reference shows, each in the same
    few steps, side by side.
    """
    query = query.strip()

    societies = Society.objects.order_by("order")
    skills = Skill.objects.order_by("roll_min").prefetch_related(
        Prefetch("excludes", queryset=Skill.objects.order_by("key"))
    )
    equipment = Equipment.objects.order_by("order")
    spells = Spell.objects.select_related("required_skill").order_by("order")
    if query:
        societies = societies.filter(
            Q(name__icontains=query)
            | Q(summary__icontains=query)
            | Q(lines__label__icontains=query)
        ).distinct()
        skills = skills.filter(Q(name__icontains=query) | Q(summary__icontains=query))
        equipment = equipment.filter(Q(name__icontains=query) | Q(summary__icontains=query))
        spells = spells.filter(
            Q(name__icontains=query)
            | Q(summary__icontains=query)
            | Q(outcomes__effect__icontains=query)
        ).distinct()
    outcomes = SpellOutcome.objects.order_by("min_successes")
    lines = AdvancementLine.objects.order_by("number")

    society_entries = tuple(
        SocietyEntry(society=s, modifiers_label=_modifiers_label(s), lines=tuple(s.lines.all()))
        for s in societies.prefetch_related(Prefetch("lines", queryset=lines))
    )

    categories = SkillCategory.objects.order_by("order").prefetch_related(
        Prefetch("skills", queryset=skills, to_attr="matching_skills")
    )
    skill_tables = tuple(
        SkillTable(category=c, skills=tuple(c.matching_skills))
        for c in categories
        if c.matching_skills
    )

    table_for_kind = {kind: slug for slug, _, kinds in EQUIPMENT_TABLES for kind in kinds}
    rows: dict[str, list[EquipmentRow]] = {slug: [] for slug, _, _ in EQUIPMENT_TABLES}
    for item in equipment:  # printed order, so shields follow armour
        rows[table_for_kind[item.kind]].append(_equipment_row(item))
    equipment_tables = tuple(
        EquipmentTable(slug=slug, title=title, rows=tuple(rows[slug]))
        for slug, title, _ in EQUIPMENT_TABLES
        if rows[slug]
    )

    spells = spells.prefetch_related(Prefetch("outcomes", queryset=outcomes))
    schools = SpellSchool.objects.order_by("order").prefetch_related(
        Prefetch("spells", queryset=spells, to_attr="matching_spells")
    )
    spell_lists = tuple(
        SpellList(school=s, spells=tuple(s.matching_spells)) for s in schools if s.matching_spells
    )
    forbidden = tuple(spells.filter(school__isnull=True))  # Dragon Slayer

    return RulesIndex(
        query=query,
        societies=society_entries,
        skill_tables=skill_tables,
        equipment_tables=equipment_tables,
        spell_lists=spell_lists,
        forbidden_spells=forbidden,
    )
