"""Battles being played, for the campaign dashboard: where the other player finds the
battle that was just started."""

from typing import Any

from django import template

from play import selectors

register = template.Library()


@register.inclusion_tag("play/_live_battles.html")
def live_battles(campaign: Any) -> dict[str, Any]:
    """The campaign's battles still being played (the dashboard has authorised its reader
    for the campaign)."""
    return {"battles": selectors.live_battles_in(campaign=campaign)}
