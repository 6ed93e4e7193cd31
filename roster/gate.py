"""Writes from the builder pages and the roster API, routed by the kind of force.

A freeform force changes directly. A campaign copy changes only through the
campaign's between-battles gate (R17, R18): its owner, no pending battle, cost
increases paid from the ledger, R10 kept, history fixed.
"""

from collections.abc import Callable
from typing import TypeVar

from django.contrib.auth.models import AbstractBaseUser

from campaign import services as campaign_services
from campaign.services import CampaignError
from roster.models import Force

T = TypeVar("T")

__all__ = ["CampaignError", "campaign_entry", "guarded_change", "refuse_in_campaign"]


def campaign_entry(force: Force):
    """The force's CampaignForce, or None for a freeform force."""
    return getattr(force, "campaign_entry", None)


def guarded_change(
    *, force: Force, user: AbstractBaseUser, change: Callable[[], T], description: str
) -> T:
    """Run `change` (a roster.services call); raises CampaignError when a campaign refuses."""
    entry = campaign_entry(force)
    if entry is None:
        return change()
    result = campaign_services.change_campaign_force(
        campaign_force=entry, by=user, change=change, description=description
    )
    return result.value


def refuse_in_campaign(force: Force, what: str) -> None:
    """For changes a campaign force never takes through the builder (its Resources come
    from the ledger, its history from battles)."""
    entry = campaign_entry(force)
    if entry is not None:
        raise CampaignError(
            f"{force.name} is in the campaign '{entry.campaign.name}': {what} happens "
            "there, not in the builder."
        )
