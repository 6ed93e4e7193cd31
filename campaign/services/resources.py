"""Resources between battles (R15): spending, and the organiser's adjustments."""

from django.contrib.auth.models import User
from django.db import transaction

from campaign.models import (
    CampaignEvent,
    CampaignForce,
    LedgerEntry,
)
from campaign.services.common import (
    _clean_text,
    _entry,
    _log,
    _name,
    _require_active,
    _require_organiser,
    _resync,
    _whole,
    balance_of,
    lock_campaign_force,
)
from dbd_site.errors import Invalid, NotAllowed


@transaction.atomic
def spend(*, campaign_force: CampaignForce, amount: int, reason: str, by: User) -> LedgerEntry:
    """The owner spends Resources on something the roster does not hold; refused beyond
    the balance (R15)."""
    reason = _clean_text(reason, "A reason", 200, "/reason")
    if _whole(amount, "/amount", "A spend") <= 0:
        raise Invalid(
            "not-a-whole-number",
            "A spend is a whole number of Resources, 1 or more.",
            pointer="/amount",
        )
    cf = lock_campaign_force(campaign_force)
    if by.pk != cf.player_id:
        raise NotAllowed("not-owner", "Only the force's owner can spend its Resources.")
    _require_active(cf)
    balance = balance_of(cf)
    if amount > balance:
        raise Invalid(
            "insufficient-resources",
            f"{cf.force.name} has {balance} Resources; this needs {amount}.",
            pointer="/amount",
        )
    entry = _entry(cf, -amount, LedgerEntry.Kind.PURCHASE, reason, by)
    _resync(cf)
    _log(
        cf.campaign,
        by,
        CampaignEvent.Kind.RESOURCES_SPENT,
        f"{_name(by)} spent {amount} Resources of {cf.force.name}: {reason}.",
        campaign_force=cf.pk,
        amount=-amount,
    )
    return entry


@transaction.atomic
def adjust_resources(
    *, campaign_force: CampaignForce, amount: int, reason: str, by: User
) -> LedgerEntry:
    """The organiser corrects a balance up or down, with a reason; never below 0 (R15)."""
    reason = _clean_text(reason, "A reason", 200, "/reason")
    if _whole(amount, "/amount", "An adjustment") == 0:
        raise Invalid(
            "not-a-whole-number",
            "An adjustment is a whole number of Resources, not 0.",
            pointer="/amount",
        )
    cf = lock_campaign_force(campaign_force)
    _require_organiser(cf.campaign, by, "adjust Resources")
    balance = balance_of(cf)
    if balance + amount < 0:
        raise Invalid(
            "insufficient-resources",
            f"{cf.force.name} has {balance} Resources; it cannot go below 0 (R15).",
            pointer="/amount",
        )
    entry = _entry(cf, amount, LedgerEntry.Kind.ADJUSTMENT, reason, by)
    _resync(cf)
    _log(
        cf.campaign,
        by,
        CampaignEvent.Kind.RESOURCES_ADJUSTED,
        f"{_name(by)} adjusted {cf.force.name}'s Resources by {amount:+d}: {reason}.",
        campaign_force=cf.pk,
        amount=amount,
    )
    return entry
