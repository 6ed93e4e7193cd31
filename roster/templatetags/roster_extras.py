"""Small display filters for the force builder, and the demo force for the site's home
page. They format the engine's and the catalogue's numbers; none of them works out a cost
or a rule."""

from typing import Any

from django import template

from roster import presenters
from rules.catalogue import Spell

register = template.Library()


@register.inclusion_tag("roster/_demo_example.html")
def demo_example() -> dict[str, Any]:
    """The demo force as the engine sees it, for a visitor's first look: the site's home
    page (`templates/home.html`) shows it, and the site layer imports no app."""
    return {"example": presenters.demo_example()}


@register.filter
def signed(value: int | None) -> str:
    """+1, +0, -1: how the rulebook prints modifiers."""
    return "" if value is None else f"{value:+d}"


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
