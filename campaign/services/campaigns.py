"""Campaigns and their players: create, house rules, the invitation, joining."""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaign import progression, signals, tags
from campaign.models import (
    Campaign,
    CampaignEvent,
    CampaignPlayer,
    new_invite_token,
)
from campaign.progression import HouseRules, InvalidHouseRules
from campaign.services.common import _clean_text, _log, _name, _require_organiser, _resync
from dbd_site import preconditions
from dbd_site.errors import Invalid, NotFound, PreconditionFailed, Problem
from roster.models import Member


def _house_rules(values: Mapping[str, Any], base: HouseRules | None = None) -> HouseRules:
    unknown = sorted(set(values) - set(progression.LABELS))
    if unknown:
        raise Invalid.of(
            [
                Problem(f"/{name}", "unknown-key", f"'{name}' is not a house rule.")
                for name in unknown
            ]
        )
    try:
        return replace(base or HouseRules(), **values)
    except InvalidHouseRules as exc:
        raise Invalid.of(
            [Problem("", "invalid-house-rules", problem) for problem in exc.problems]
        ) from exc


def _store_rules(campaign: Campaign, rules: HouseRules) -> None:
    for name, value in rules.as_dict().items():
        setattr(campaign, name, value)


@transaction.atomic
def create_campaign(*, organiser: User, name: str, **house_rules: Any) -> Campaign:
    """A new campaign; the organiser is its first player. House rules default to R14-R18."""
    name = _clean_text(name, "A campaign name", 100, "/name")
    rules = _house_rules(house_rules)
    campaign = Campaign(name=name, organiser=organiser)
    _store_rules(campaign, rules)
    campaign.save()
    CampaignPlayer.objects.create(campaign=campaign, user=organiser)
    _log(
        campaign,
        organiser,
        CampaignEvent.Kind.CAMPAIGN_CREATED,
        f"{_name(organiser)} created the campaign {name}.",
        house_rules=rules.as_dict(),
    )
    return campaign


def _refuse_thresholds_below_level_ups(campaign: Campaign, after: progression.HouseRules) -> None:
    """R17: new thresholds may not leave a member with more level-ups than levels."""
    over = [
        m.name
        for m in Member.objects.filter(
            force__campaign_entry__campaign=campaign,
            force__campaign_entry__retired_at__isnull=True,
        )
        if len(m.level_ups) > progression.level_for_xp(m.xp, after) - 1
    ]
    if over:
        raise Invalid(
            "invalid-house-rules",
            "With these thresholds some members would have more level-ups than levels: "
            + ", ".join(over)
            + ".",
            pointer="/level_thresholds",
        )


@transaction.atomic
def update_house_rules(
    *, campaign: Campaign, by: User, if_match: list[str] | None = None, **values: Any
) -> Campaign:
    """The organiser changes house rules; every change is logged, old and new value.

    New level thresholds are refused if a member would then have taken more level-ups
    than their level allows (R17). `if_match`: the campaign tags (`campaign.tags`) the
    change was made on (`dbd_site.preconditions.if_match`); 412 when the house rules have
    changed since.
    """
    _require_organiser(campaign, by, "change the house rules")
    given = campaign
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not preconditions.holds(if_match, tags.campaign_tag(campaign)):
        raise PreconditionFailed(
            "precondition-failed",
            "The house rules have changed since the version you name; nothing was changed: "
            "read the campaign again.",
        )
    before = campaign.house_rules
    after = _house_rules(values, before)
    if after.level_thresholds != before.level_thresholds:
        _refuse_thresholds_below_level_ups(campaign, after)
    changes = {
        name: [old, after.as_dict()[name]]
        for name, old in before.as_dict().items()
        if old != after.as_dict()[name]
    }
    if not changes:
        return campaign
    _store_rules(campaign, after)
    campaign.save()
    _store_rules(given, after)  # the caller's instance shows the new rules too
    if after.level_thresholds != before.level_thresholds:
        # R16: levels, and the level-ups still to take, follow the new thresholds; the
        # stored evaluations (pages, API, standings) must say so now, not at each force's
        # next change (the write path re-evaluates, and keeps R11's Resources in step).
        for entry in campaign.forces.select_related("force"):
            _resync(entry, "new level thresholds")
    described = "; ".join(
        f"{progression.LABELS[name]} {progression.setting_in_words(old)} -> "
        f"{progression.setting_in_words(new)}"
        for name, (old, new) in changes.items()
    )
    _log(
        campaign,
        by,
        CampaignEvent.Kind.HOUSE_RULES_CHANGED,
        f"{_name(by)} changed the house rules: {described}.",
        changes=changes,
    )
    signals.house_rules_changed.send(Campaign, campaign=campaign, by=by, changes=changes)
    return campaign


@transaction.atomic
def reset_invite_token(*, campaign: Campaign, by: User) -> Campaign:
    """A new invitation link; the old one stops working."""
    _require_organiser(campaign, by, "change the invitation link")
    campaign.invite_token = new_invite_token()
    campaign.save(update_fields=["invite_token"])
    _log(
        campaign,
        by,
        CampaignEvent.Kind.INVITE_RESET,
        f"{_name(by)} made a new invitation link; the old one no longer works.",
    )
    return campaign


@transaction.atomic
def join_campaign(*, user: User, token: str) -> CampaignPlayer:
    """Join through the invitation link; joining twice changes nothing."""
    campaign = Campaign.objects.filter(invite_token=token).first() if token else None
    if campaign is None:
        raise NotFound(
            "invalid-invite", "This invitation link is not valid (it may have been replaced)."
        )
    player, created = CampaignPlayer.objects.get_or_create(campaign=campaign, user=user)
    if created:
        _log(
            campaign,
            user,
            CampaignEvent.Kind.PLAYER_JOINED,
            f"{_name(user)} joined the campaign.",
        )
        signals.player_joined.send(Campaign, campaign=campaign, user=user)
    return player
