"""Battles being played, for the campaign dashboard: where the other player finds the
battle that was just started."""

from typing import Any

from django import template

from play import selectors

register = template.Library()


@register.inclusion_tag("play/_live_battles.html", takes_context=True)
def live_battles(context: template.Context, campaign: Any) -> dict[str, Any]:
    """The campaign's battles still being played, as the page's reader may see them."""
    user = context["request"].user
    return {"battles": selectors.live_battles_in(user=user, campaign_id=campaign.pk)}
