"""Battles being played, for the campaign dashboard: where the other player finds the
battle that was just started."""

from typing import Any

from django import template

from play.models import Battle

register = template.Library()


@register.inclusion_tag("play/_live_battles.html")
def live_battles(campaign: Any) -> dict[str, Any]:
    """The campaign's battles still being played (the dashboard's reader may see them:
    campaign players see the campaign's battles)."""
    battles = (
        Battle.objects.filter(campaign=campaign, status=Battle.Status.PLAYING)
        .prefetch_related("sides")
        .order_by("-updated_at")[:10]
    )
    return {"battles": list(battles)}
