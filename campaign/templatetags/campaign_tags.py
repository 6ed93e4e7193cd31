"""Small presentation helpers for the campaign pages (no rules here)."""

from typing import Any

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def signed(value: int | None) -> str:
    """+10, -5, 0: a ledger amount with its sign."""
    if value is None:
        return ""
    return f"{value:+d}" if value else "0"


@register.filter
def status_badge(status: str) -> str:
    """The badge modifier for a battle status."""
    return {"confirmed": "badge--ok", "pending": "badge--warn", "void": "badge--bad"}.get(
        status, ""
    )


@register.filter
def outcome_badge(outcome: str) -> str:
    return {"win": "badge--ok", "loss": "badge--bad"}.get(outcome, "")


@register.simple_tag
def battle_result(battle: Any) -> str:
    """ "<strong>Red</strong> won against Blue" or "Draw: Red, Blue" (forces prefetched)."""
    entries = list(battle.battle_forces.all())
    if battle.winner_id is None:
        return format_html("Draw: {}", ", ".join(bf.campaign_force.force.name for bf in entries))
    names = {bf.campaign_force_id: bf.campaign_force.force.name for bf in entries}
    winner = names.get(battle.winner_id, "")
    others = ", ".join(
        bf.campaign_force.force.name for bf in entries if bf.campaign_force_id != battle.winner_id
    )
    return format_html("<strong>{}</strong> won against {}", winner, others)


@register.filter
def skill_name(key: str) -> str:
    """ "melee/dual-wield" -> "Dual Wield" (the catalogue's name; the key if unknown)."""
    from rules.loader import get_catalogue

    skill = get_catalogue().skills.get(key or "")
    return skill.name if skill else key


@register.filter
def table_name(slug: str) -> str:
    """ "melee" -> "Melee" (a skill table's name)."""
    from rules.loader import get_catalogue

    category = get_catalogue().skill_categories.get(slug or "")
    return category.name if category else slug
