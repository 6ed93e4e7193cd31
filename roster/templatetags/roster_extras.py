"""Small display filters for the force builder. They format the engine's and the
catalogue's numbers; none of them works out a cost or a rule."""

from typing import Any

from django import template

from rules.catalogue import Equipment, Spell

register = template.Library()


@register.filter
def signed(value: int | None) -> str:
    """+1, +0, -1: how the rulebook prints modifiers."""
    return "" if value is None else f"{value:+d}"


@register.filter
def magnitude(value: int | None) -> int | None:
    """How far over budget, from the engine's (negative) Resources left."""
    return None if value is None else abs(value)


@register.filter
def hands_label(item: Equipment) -> str:
    return f"{item.hands}H" if item.hands else ""


@register.filter
def fire_profile(item: Equipment) -> str:
    """Range, ROF and ACC as printed: 15" ROF 2/3 ACC +0/-1 (the LMG's two modes)."""
    if item.kind != "ranged":
        return ""
    parts = []
    if item.range_inches:
        parts.append(f'{item.range_inches}"')
    if item.fire_modes:
        parts.append("ROF " + "/".join(str(m.rate_of_fire) for m in item.fire_modes))
        parts.append("ACC " + "/".join(f"{m.accuracy:+d}" for m in item.fire_modes))
    if item.blast:
        parts.append(f"Blast {item.blast}")
    return " · ".join(parts)


@register.filter
def item_profile(item: Equipment) -> str:
    """A short line of what a piece does in play: to hit, DF bonus, or its fire profile."""
    if item.kind == "ranged":
        return fire_profile(item)
    if item.kind == "melee":
        return f"{item.to_hit:+d} to hit" if item.to_hit else "Melee weapon"
    melee, ranged = item.df_bonus_melee, item.df_bonus_ranged
    if melee or ranged:
        if melee == ranged:
            return f"DF {melee:+d}"
        if not ranged:
            return f"DF {melee:+d} in melee only"
        return f"DF {melee:+d} in melee, {ranged:+d} against ranged"
    return item.summary


@register.filter
def spell_range(spell: Spell) -> str:
    if spell.range_kind == "inches":
        return f'{spell.range_inches}"'
    return {"self": "Self", "fr": "FR"}.get(spell.range_kind, spell.range_kind)


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """`catalogue.equipment|get_item:slug`: a catalogue entry by its slug."""
    try:
        return mapping[key]
    except (KeyError, TypeError, IndexError):
        return None
