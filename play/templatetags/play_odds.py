"""The print card's odds: each weapon's chance to hit against DF 6 to 16 and each spell's
chance of each outcome tier, from the table's own maths (`play.presenters`)."""

from typing import Any

from django import template

from play import presenters, services, table
from rules.loader import get_catalogue

register = template.Library()


@register.inclusion_tag("play/_print_odds.html")
def member_odds(member: Any, result: dict[str, Any] | None) -> dict[str, Any]:
    """`member` a roster Member, `result` its evaluation (stats, defence, skills)."""
    if not result:
        return {"weapons": [], "spells": []}
    figure = table.figures.Figure.from_numbers(
        member.name, services.member_numbers(member, result)
    )
    catalogue = get_catalogue()
    return {
        "name": member.name,
        "dfs": list(presenters.PRINT_DFS),
        "weapons": presenters.weapon_odds_rows(figure, catalogue),
        "spells": presenters.spell_odds_rows(figure, catalogue),
    }
