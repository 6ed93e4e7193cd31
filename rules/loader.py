"""Builds the immutable `Catalogue` from the rules tables, once per process."""

import functools
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules import catalogue as c
from rules import models


class RulesNotLoaded(RuntimeError):
    """The rules tables are empty: run `python manage.py loaddata rules`."""


@functools.cache
def get_catalogue() -> c.Catalogue:
    version = models.RulesVersion.objects.first()
    if version is None:
        raise RulesNotLoaded("No rules in the database: run `python manage.py loaddata rules`.")
    return build_catalogue(version.code)


def clear_catalogue_cache() -> None:
    get_catalogue.cache_clear()


def _options(raw: list[dict[str, Any]]) -> tuple[c.StatisticOption, ...]:
    return tuple(c.StatisticOption(o["statistic"], int(o["amount"])) for o in raw)


def build_catalogue(rules_version: str) -> c.Catalogue:
    """Long because it reads each table of the rules in turn into its plain-data form; split,
    the order of the reads would be harder to see."""
    lines_by_society: dict[str, dict[int, c.AdvancementLine]] = {}
    for line in models.AdvancementLine.objects.order_by("society_id", "number"):
        lines_by_society.setdefault(line.society_id, {})[line.number] = c.AdvancementLine(
            number=line.number,
            label=line.label,
            kind=line.kind,
            options=_options(line.options),
            skill_category=line.skill_category_id,
        )
    societies = {
        s.slug: c.Society(
            slug=s.slug,
            name=s.name,
            choice_options=tuple(s.choice_options),
            modifiers=_options(s.modifiers),
            lines=MappingProxyType(lines_by_society.get(s.slug, {})),
            skill_categories=frozenset(
                line.skill_category
                for line in lines_by_society.get(s.slug, {}).values()
                if line.skill_category
            ),
        )
        for s in models.Society.objects.all()
    }

    skills: dict[str, c.Skill] = {}
    for s in models.Skill.objects.prefetch_related("excludes"):
        skills[s.key] = c.Skill(
            key=s.key,
            category=s.category_id,
            slug=s.slug,
            name=s.name,
            roll_min=s.roll_min,
            roll_max=s.roll_max,
            summary=s.summary,
            repeatable=s.repeatable,
            excludes=frozenset(x.key for x in s.excludes.all()),
        )
    categories = {
        cat.slug: c.SkillCategory(
            slug=cat.slug,
            name=cat.name,
            table_size=cat.table_size,
            cost_statistics=tuple(cat.cost_statistics),
            skills=tuple(
                sorted(
                    (s for s in skills.values() if s.category == cat.slug),
                    key=lambda s: s.roll_min,
                )
            ),
        )
        for cat in models.SkillCategory.objects.all()
    }

    equipment = {
        e.slug: c.Equipment(
            slug=e.slug,
            name=e.name,
            kind=e.kind,
            hands=e.hands,
            cost_multiplier=Fraction(e.cost_multiplier),
            cost_statistic=e.cost_statistic or None,
            cost_constant=e.cost_constant,
            cost_label=e.cost_label,
            range_inches=e.range_inches,
            fire_modes=tuple(c.FireMode(m["rof"], m["accuracy"]) for m in e.fire_modes),
            blast=e.blast,
            to_hit=e.to_hit,
            df_bonus_melee=e.df_bonus_melee,
            df_bonus_ranged=e.df_bonus_ranged,
            summary=e.summary,
        )
        for e in models.Equipment.objects.all()
    }

    spells = {
        sp.slug: c.Spell(
            slug=sp.slug,
            name=sp.name,
            school=sp.school_id,
            difficulty=sp.difficulty,
            difficulty_label=sp.difficulty_label,
            range_kind=sp.range_kind,
            range_inches=sp.range_inches,
            forbidden=sp.forbidden,
            required_skill=sp.required_skill_id,
            summary=sp.summary,
            outcomes=tuple(
                c.SpellOutcome(o.successes_label, o.min_successes, o.max_successes, o.effect)
                for o in sp.outcomes.all()
            ),
        )
        for sp in models.Spell.objects.prefetch_related("outcomes")
    }

    catalogue = c.Catalogue(
        rules_version=rules_version,
        content_version="",
        societies=MappingProxyType(societies),
        skill_categories=MappingProxyType(categories),
        skills=MappingProxyType(skills),
        equipment=MappingProxyType(equipment),
        spell_schools=MappingProxyType(
            {school.slug: school.name for school in models.SpellSchool.objects.all()}
        ),
        spells=MappingProxyType(spells),
    )
    return replace(catalogue, content_version=c.content_digest(catalogue))
