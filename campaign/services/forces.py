"""A campaign's forces: entering a copy of a player's force, retiring it."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaign.models import (
    Campaign,
    CampaignEvent,
    CampaignForce,
    LedgerEntry,
)
from campaign.services.common import (
    _document_evaluation,
    _entry,
    _is_player,
    _log,
    _name,
    _require_active,
    _resync,
    _with_members,
    has_pending_battle,
    lock_campaign_force,
)
from dbd_site.errors import Conflict, Invalid, NotAllowed
from roster import services as roster_services
from roster.models import Force


@transaction.atomic
def enter_force(*, campaign: Campaign, player: User, force: Force) -> CampaignForce:
    """The campaign takes its own copy of the player's force; the original stays as it is.

    The force must be legal with the starting Resources (R10, R11) and new to campaigns
    (no XP, no level-ups: R16 XP is earned in battles). A player has one active force
    per campaign. Ledger: +starting Resources, then -cost for the initial roster.

    Long because the checks, the copy and its ledger entries go in one transaction.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not _is_player(campaign, player):
        raise NotAllowed("not-a-player", "Join the campaign before entering a force.")
    if force.owner_id != player.pk:
        raise NotAllowed("not-owner", "You can only enter a force you own.")
    if CampaignForce.objects.filter(force_id=force.pk).exists():
        raise Invalid(
            "already-in-campaign",
            "This force is already a campaign force; enter your own freeform force.",
            pointer="/force",
        )
    if CampaignForce.objects.filter(
        campaign=campaign, player=player, retired_at__isnull=True
    ).exists():
        raise Conflict(
            "already-in-campaign",
            "You already have a force in this campaign; retire it before entering another.",
        )
    rules = campaign.house_rules
    original = _with_members(force.pk)
    experienced = [m.name for m in original.members.all() if m.xp or m.level_ups]
    if experienced:
        raise Invalid(
            "force-not-ready",
            "A force enters a campaign with no XP and no level-ups (R16); "
            f"remove them from: {', '.join(experienced)}.",
            pointer="/force",
        )
    evaluation = _document_evaluation(original, rules.starting_resources, rules)
    if not evaluation.valid:
        problems = [p.message for p in (*evaluation.malformed, *evaluation.errors)]
        raise Invalid(
            "force-not-ready",
            f"The force must be legal with {rules.starting_resources} starting Resources "
            f"(R10, R11): {' '.join(problems[:5])}"
            + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""),
            pointer="/force",
        )
    copy = roster_services.duplicate_force(force=original, owner=player, name=original.name)
    entry = CampaignForce.objects.create(
        campaign=campaign, player=player, force=copy, entered_from=original
    )
    _entry(
        entry,
        rules.starting_resources,
        LedgerEntry.Kind.START,
        "Starting Resources (R11)",
        player,
    )
    cost = evaluation.total_cost
    if cost > 0:
        _entry(entry, -cost, LedgerEntry.Kind.PURCHASE, "Initial roster", player)
    _resync(entry, "entered the campaign")
    _log(
        campaign,
        player,
        CampaignEvent.Kind.FORCE_ENTERED,
        f"{_name(player)} entered {copy.name} ({len(original.members.all())} members, "
        f"cost {cost}, {rules.starting_resources - cost} Resources left).",
        campaign_force=entry.pk,
        cost=cost,
    )
    return entry


@transaction.atomic
def retire_campaign_force(*, campaign_force: CampaignForce, by: User) -> CampaignForce:
    """The owner or the organiser retires a force; its record and ledger stay."""
    cf = lock_campaign_force(campaign_force)
    if by.pk not in (cf.player_id, cf.campaign.organiser_id):
        raise NotAllowed("not-owner", "Only the force's owner or the organiser can retire it.")
    _require_active(cf)
    if has_pending_battle(cf):
        raise Conflict(
            "battle-pending",
            f"{cf.force.name} has a battle waiting for confirmation; settle it first.",
        )
    cf.retired_at = timezone.now()
    cf.save(update_fields=["retired_at"])
    _log(
        cf.campaign,
        by,
        CampaignEvent.Kind.FORCE_RETIRED,
        f"{_name(by)} retired {cf.force.name}.",
        campaign_force=cf.pk,
    )
    return cf
