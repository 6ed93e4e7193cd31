"""Writes to campaigns. Every function checks who may do it, keeps the house rules
(R14-R18), runs in one transaction and writes a `CampaignEvent` for the campaign log.

Resources and the engine (R11, R15, R18): a campaign force's `Force.resources` is
kept equal to its engine total cost plus its ledger balance, so the engine's
over-budget check means "the balance is not below 0", and discarding equipment
(no refund, R18) lowers the cost without raising the balance. (The one exception:
a force that costs nothing and has nothing left shows 1 Resource, because a roster
document needs at least 1; the ledger, not the engine, is what every spend checks.)

Locks: a battle row is locked before campaign force rows, and campaign force rows
in id order, so concurrent calls queue instead of deadlocking. Balances are read
only under the campaign force's row lock: no lost update, no overdraft.
"""

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from campaign import progression
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
    new_invite_token,
)
from campaign.progression import HouseRules, InvalidHouseRules
from dbd_site.inputs import is_whole_number
from roster import engine
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.documents import MalformedDocument
from roster.models import Force, Member
from rules.loader import get_catalogue

# R10: the engine codes a change between battles may never leave behind (R18).
R10_CODES = frozenset({"force-size", "too-many-mentors", "duplicate-name"})
# Member columns fixed once a force is in a campaign: its creation choices, and XP,
# which only battles change (R16). Renaming and everything bought later stay free.
_FROZEN_MEMBER_FIELDS = (
    "role",
    "society",
    "society_choice",
    "base_me",
    "base_ra",
    "base_ca",
    "base_df",
    "free_advancements",
    "xp",
)


class CampaignError(ValueError):
    """Something the campaign's rules do not allow; the message says why, in plain words."""


class NotAllowed(CampaignError):
    """The user may not do this in this campaign."""


class InsufficientResources(CampaignError):
    """The ledger balance cannot cover a spend (R15: it never goes below 0)."""


class HouseRulesError(CampaignError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class MemberOutcome:
    """What one member who took part did in a battle (R14)."""

    member: Member
    unconscious: bool = False
    out_of_action: bool = False
    enemies_out_of_action: int = 0
    objectives: int = 0


@dataclass(frozen=True, slots=True)
class ChangeResult:
    """What a between-battles change did: its callable's value and what it cost."""

    value: Any
    cost_before: int
    cost_after: int
    spent: int


# --- helpers ---------------------------------------------------------------------------


def _name(user: AbstractBaseUser | None) -> str:
    return user.get_username() if user is not None else "Someone"


def _log(
    campaign: Campaign,
    actor: AbstractBaseUser | None,
    kind: str,
    message: str,
    **data: Any,
) -> CampaignEvent:
    return CampaignEvent.objects.create(
        campaign=campaign, actor=actor, kind=kind, message=message[:500], data=data
    )


def _is_player(campaign: Campaign, user: AbstractBaseUser) -> bool:
    return CampaignPlayer.objects.filter(campaign=campaign, user_id=user.pk).exists()


def _require_organiser(campaign: Campaign, by: AbstractBaseUser, doing: str) -> None:
    if campaign.organiser_id != by.pk:
        raise NotAllowed(f"Only the organiser can {doing}.")


def _clean_text(value: str, what: str, max_length: int) -> str:
    value = (value or "").strip()
    if not value:
        raise CampaignError(f"{what} is required.")
    if len(value) > max_length:
        raise CampaignError(f"{what} is at most {max_length} characters.")
    return value


def _lock(campaign_force: CampaignForce) -> CampaignForce:
    """The campaign force row, locked until the transaction ends."""
    return (
        CampaignForce.objects.select_for_update(of=("self",))
        .select_related("campaign", "force", "player")
        .get(pk=campaign_force.pk)
    )


def _lock_all(campaign_forces: Iterable[CampaignForce]) -> list[CampaignForce]:
    ids = sorted({cf.pk for cf in campaign_forces})
    locked = {
        cf.pk: cf
        for cf in CampaignForce.objects.select_for_update(of=("self",))
        .select_related("campaign", "force", "player")
        .filter(pk__in=ids)
        .order_by("pk")
    }
    return [locked[pk] for pk in ids]


def _balance(campaign_force: CampaignForce) -> int:
    total = LedgerEntry.objects.filter(campaign_force=campaign_force).aggregate(
        total=Sum("amount")
    )["total"]
    return total or 0


def _entry(
    campaign_force: CampaignForce,
    amount: int,
    kind: str,
    reason: str,
    by: AbstractBaseUser | None,
    *,
    battle: Battle | None = None,
    reverses: LedgerEntry | None = None,
) -> LedgerEntry:
    return LedgerEntry.objects.create(
        campaign_id=campaign_force.campaign_id,
        campaign_force=campaign_force,
        amount=amount,
        kind=kind,
        reason=reason[:200],
        battle=battle,
        reverses=reverses,
        created_by=by,
    )


def _cost(force: Force) -> int:
    """The engine's total cost of the force as stored now (refreshing its evaluation)."""
    roster_services.refresh_evaluation(force)
    return int(force.evaluation["total_cost"])


def _sync_resources(campaign_force: CampaignForce, *, cost: int | None = None) -> Force:
    """Set `Force.resources` to cost + balance (at least 1: a document needs 1).

    `cost` is the force's engine cost when the caller has just refreshed it.
    """
    force = Force.objects.get(pk=campaign_force.force_id)
    if cost is None:
        cost = _cost(force)
    target = max(1, cost + _balance(campaign_force))
    if force.resources != target:
        force.resources = target
        force.save(update_fields=["resources", "updated_at"])
        roster_services.refresh_evaluation(force)
    campaign_force.force = force
    return force


def _debit(
    campaign_force: CampaignForce, amount: int, reason: str, by: AbstractBaseUser
) -> LedgerEntry:
    """A purchase entry; the caller holds the row lock. R15: never below 0."""
    balance = _balance(campaign_force)
    if amount > balance:
        raise InsufficientResources(
            f"{campaign_force.force.name} has {balance} Resources; this needs {amount}."
        )
    return _entry(campaign_force, -amount, LedgerEntry.Kind.PURCHASE, reason, by)


def _has_pending_battle(campaign_force: CampaignForce) -> bool:
    return BattleForce.objects.filter(
        campaign_force=campaign_force, battle__status=Battle.Status.PENDING
    ).exists()


def _require_active(campaign_force: CampaignForce) -> None:
    if campaign_force.retired_at is not None:
        raise CampaignError(f"{campaign_force.force.name} has retired from the campaign.")


def _document_evaluation(force: Force, resources: int, rules: HouseRules) -> engine.Evaluation:
    """The engine's answer for the force as if it had `resources` (R11)."""
    document = roster_selectors.force_document(force=force)
    document["resources"] = resources
    return engine.evaluate(
        document,
        get_catalogue(),
        verified_rolls=roster_selectors.verified_roll_pointers(force=force),
        level_thresholds=rules.level_thresholds,
    )


def _with_members(force_id: int) -> Force:
    return Force.objects.prefetch_related("members__rolls").get(pk=force_id)


# --- campaigns and players ---------------------------------------------------------------


def _house_rules(values: Mapping[str, Any], base: HouseRules | None = None) -> HouseRules:
    unknown = sorted(set(values) - set(progression.LABELS))
    if unknown:
        raise HouseRulesError([f"'{name}' is not a house rule." for name in unknown])
    try:
        return replace(base or HouseRules(), **values)
    except InvalidHouseRules as exc:
        raise HouseRulesError(exc.problems) from exc


def _store_rules(campaign: Campaign, rules: HouseRules) -> None:
    for name, value in rules.as_dict().items():
        setattr(campaign, name, value)


@transaction.atomic
def create_campaign(*, organiser: AbstractBaseUser, name: str, **house_rules: Any) -> Campaign:
    """A new campaign; the organiser is its first player. House rules default to R14-R18."""
    name = _clean_text(name, "A campaign name", 100)
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


@transaction.atomic
def update_house_rules(*, campaign: Campaign, by: AbstractBaseUser, **values: Any) -> Campaign:
    """The organiser changes house rules; every change is logged, old and new value.

    New level thresholds are refused if a member would then have taken more level-ups
    than their level allows (R17).
    """
    _require_organiser(campaign, by, "change the house rules")
    given = campaign
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    before = campaign.house_rules
    after = _house_rules(values, before)
    if after.level_thresholds != before.level_thresholds:
        over = [
            m.name
            for m in Member.objects.filter(
                force__campaign_entry__campaign=campaign,
                force__campaign_entry__retired_at__isnull=True,
            )
            if len(m.level_ups) > progression.level_for_xp(m.xp, after) - 1
        ]
        if over:
            raise CampaignError(
                "With these thresholds some members would have more level-ups than levels: "
                + ", ".join(over)
                + "."
            )
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
        # next change (`_sync_resources` re-evaluates, and keeps R11's Resources in step).
        for entry in campaign.forces.all():
            _sync_resources(entry)
    described = "; ".join(
        f"{progression.LABELS[name]} {old} -> {new}" for name, (old, new) in changes.items()
    )
    _log(
        campaign,
        by,
        CampaignEvent.Kind.HOUSE_RULES_CHANGED,
        f"{_name(by)} changed the house rules: {described}.",
        changes=changes,
    )
    return campaign


@transaction.atomic
def reset_invite_token(*, campaign: Campaign, by: AbstractBaseUser) -> Campaign:
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
def join_campaign(*, user: AbstractBaseUser, token: str) -> CampaignPlayer:
    """Join through the invitation link; joining twice changes nothing."""
    campaign = Campaign.objects.filter(invite_token=token).first() if token else None
    if campaign is None:
        raise CampaignError("This invitation link is not valid (it may have been replaced).")
    player, created = CampaignPlayer.objects.get_or_create(campaign=campaign, user=user)
    if created:
        _log(
            campaign,
            user,
            CampaignEvent.Kind.PLAYER_JOINED,
            f"{_name(user)} joined the campaign.",
        )
    return player


# --- forces --------------------------------------------------------------------------------


@transaction.atomic
def enter_force(*, campaign: Campaign, player: AbstractBaseUser, force: Force) -> CampaignForce:
    """The campaign takes its own copy of the player's force; the original stays as it is.

    The force must be legal with the starting Resources (R10, R11) and new to campaigns
    (no XP, no level-ups: R16 XP is earned in battles). A player has one active force
    per campaign. Ledger: +starting Resources, then -cost for the initial roster.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not _is_player(campaign, player):
        raise NotAllowed("Join the campaign before entering a force.")
    if force.owner_id != player.pk:
        raise NotAllowed("You can only enter a force you own.")
    if CampaignForce.objects.filter(force_id=force.pk).exists():
        raise CampaignError(
            "This force is already a campaign force; enter your own freeform force."
        )
    if CampaignForce.objects.filter(
        campaign=campaign, player=player, retired_at__isnull=True
    ).exists():
        raise CampaignError(
            "You already have a force in this campaign; retire it before entering another."
        )
    rules = campaign.house_rules
    original = _with_members(force.pk)
    experienced = [m.name for m in original.members.all() if m.xp or m.level_ups]
    if experienced:
        raise CampaignError(
            "A force enters a campaign with no XP and no level-ups (R16); "
            f"remove them from: {', '.join(experienced)}."
        )
    evaluation = _document_evaluation(original, rules.starting_resources, rules)
    if not evaluation.valid:
        problems = [p.message for p in (*evaluation.malformed, *evaluation.errors)]
        raise CampaignError(
            f"The force must be legal with {rules.starting_resources} starting Resources "
            f"(R10, R11): {' '.join(problems[:5])}"
            + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
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
    _sync_resources(entry)
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
def retire_campaign_force(*, campaign_force: CampaignForce, by: AbstractBaseUser) -> CampaignForce:
    """The owner or the organiser retires a force; its record and ledger stay."""
    cf = _lock(campaign_force)
    if by.pk not in (cf.player_id, cf.campaign.organiser_id):
        raise NotAllowed("Only the force's owner or the organiser can retire it.")
    _require_active(cf)
    if _has_pending_battle(cf):
        raise CampaignError(
            f"{cf.force.name} has a battle waiting for confirmation; settle it first."
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


# --- Resources (R15) ---------------------------------------------------------------------


@transaction.atomic
def spend(
    *, campaign_force: CampaignForce, amount: int, reason: str, by: AbstractBaseUser
) -> LedgerEntry:
    """The owner spends Resources; refused (InsufficientResources) beyond the balance."""
    reason = _clean_text(reason, "A reason", 200)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise CampaignError("A spend is a whole number of Resources, 1 or more.")
    cf = _lock(campaign_force)
    if by.pk != cf.player_id:
        raise NotAllowed("Only the force's owner can spend its Resources.")
    _require_active(cf)
    entry = _debit(cf, amount, reason, by)
    _sync_resources(cf)
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
    *, campaign_force: CampaignForce, amount: int, reason: str, by: AbstractBaseUser
) -> LedgerEntry:
    """The organiser corrects a balance up or down, with a reason; never below 0 (R15)."""
    reason = _clean_text(reason, "A reason", 200)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise CampaignError("An adjustment is a whole number of Resources, not 0.")
    cf = _lock(campaign_force)
    _require_organiser(cf.campaign, by, "adjust Resources")
    balance = _balance(cf)
    if balance + amount < 0:
        raise InsufficientResources(
            f"{cf.force.name} has {balance} Resources; it cannot go below 0 (R15)."
        )
    entry = _entry(cf, amount, LedgerEntry.Kind.ADJUSTMENT, reason, by)
    _sync_resources(cf)
    _log(
        cf.campaign,
        by,
        CampaignEvent.Kind.RESOURCES_ADJUSTED,
        f"{_name(by)} adjusted {cf.force.name}'s Resources by {amount:+d}: {reason}.",
        campaign_force=cf.pk,
        amount=amount,
    )
    return entry


# --- changes between battles (R17, R18) ---------------------------------------------------


def _member_snapshot(force_id: int) -> dict[int, dict[str, Any]]:
    fought = set(
        BattleMemberResult.objects.filter(
            member__force_id=force_id, battle_force__battle__status=Battle.Status.CONFIRMED
        ).values_list("member_id", flat=True)
    )
    snapshot = {}
    for m in Member.objects.filter(force_id=force_id):
        values = {name: getattr(m, name) for name in _FROZEN_MEMBER_FIELDS}
        values["creation_purchases"] = [p for p in m.purchases if not p.get("between_battles")]
        values["level_ups"] = list(m.level_ups)
        values["name"] = m.name
        values["fought"] = m.pk in fought
        snapshot[m.pk] = values
    return snapshot


def _check_member_changes(
    before: dict[int, dict[str, Any]],
    after: dict[int, dict[str, Any]],
    rules: HouseRules,
    *,
    level_up_slot: tuple[int, int] | None = None,
) -> None:
    """Refuse changes that rewrite history: creation choices, XP, taken level-ups."""
    for pk, now in after.items():
        was = before.get(pk)
        # Until a member has fought in a confirmed battle they are still being recruited
        # (R18) and may be rebuilt, costs charged as usual; after that their creation
        # choices are history. A recruit starts at the beginning: no XP, no level-ups.
        if was is None or not was["fought"]:
            if now["xp"] or now["level_ups"]:
                raise CampaignError(
                    f"{now['name']} is a new recruit: XP comes from battles (R16) and "
                    "level-ups from levels (R17), so both start empty."
                )
            continue
        frozen = [
            name
            for name in (*_FROZEN_MEMBER_FIELDS, "creation_purchases")
            if was[name] != now[name]
        ]
        if frozen:
            if "xp" in frozen:
                raise CampaignError(f"{now['name']}'s XP changes only through battles (R16).")
            raise CampaignError(
                f"{now['name']} is in a campaign: their creation choices are fixed. Buy "
                "advancements between battles instead (purchases marked between_battles, "
                "R17)."
            )
        was_ups, now_ups = was["level_ups"], now["level_ups"]
        if was_ups == now_ups:
            continue
        if level_up_slot is not None and level_up_slot[0] == pk:
            # take_level_up adds the slot; continue_level_up_roll changes it; nothing else.
            i = level_up_slot[1]
            same_elsewhere = was_ups[:i] + was_ups[i + 1 :] == now_ups[:i] + now_ups[i + 1 :]
            if i < len(now_ups) and len(now_ups) - len(was_ups) in (0, 1) and same_elsewhere:
                continue
        # Level-ups may be taken away, from the end, only while the member has more than
        # their level allows (after a void or a threshold change).
        allowed = progression.level_for_xp(now["xp"], rules) - 1
        trimmed = now_ups == was_ups[: len(now_ups)]
        if not (trimmed and len(was_ups) > allowed and len(now_ups) >= allowed):
            raise CampaignError(
                f"{now['name']}'s level-ups are taken with a level-up (R17), one per level "
                "gained; only extra ones may be removed."
            )


def _stored_errors(force: Force) -> set[tuple[str, str, str]]:
    """The force's errors as last stored: a campaign copy is evaluated with its campaign's
    level thresholds (R16, roster.selectors.level_thresholds_for), so these are the
    campaign's view; `_cost` has just refreshed them."""
    return {(p["pointer"], p["code"], p["message"]) for p in force.evaluation["errors"]}


def _edit(
    *,
    campaign_force: CampaignForce,
    by: AbstractBaseUser,
    change: Callable[[], Any],
    description: str,
    charge: bool,
    level_up_slot: tuple[int, int] | None = None,
    kind: str = CampaignEvent.Kind.FORCE_CHANGED,
) -> ChangeResult:
    cf = _lock(campaign_force)
    if by.pk != cf.player_id:
        raise NotAllowed("Only the force's owner can change a campaign force.")
    _require_active(cf)
    if _has_pending_battle(cf):
        raise CampaignError(
            f"{cf.force.name} has a battle waiting for confirmation; changes wait until "
            "it is confirmed or voided."
        )
    rules = cf.campaign.house_rules
    force = Force.objects.get(pk=cf.force_id)
    cost_before = _cost(force)
    errors_before = _stored_errors(force)
    members_before = _member_snapshot(force.pk)
    try:
        value = change()
    except (MalformedDocument, roster_services.RollRefused) as exc:
        raise CampaignError(str(exc) or "That change is not a valid roster change.") from exc
    members_after = _member_snapshot(force.pk)
    _check_member_changes(members_before, members_after, rules, level_up_slot=level_up_slot)
    cost_after = _cost(force)
    r10 = [p["message"] for p in force.evaluation["errors"] if p["code"] in R10_CODES]
    if r10:
        raise CampaignError(f"A campaign force stays legal under R10 (R18): {' '.join(r10)}")
    if level_up_slot is not None:
        # A level-up must itself be legal (under the campaign's thresholds); a roll still
        # open (no skill yet) is finished with continue_level_up_roll.
        pk, index = level_up_slot
        at = f"/members/{_member_index(force.pk, pk)}/level_ups/{index}"
        new = _stored_errors(force) - errors_before
        bad = [
            message
            for pointer, code, message in new
            if not (code == "skill-required" and pointer.startswith(at))
        ]
        if bad:
            raise CampaignError(f"That level-up is not allowed: {' '.join(sorted(bad))}")
    spent = 0
    increase = cost_after - cost_before
    if charge and increase > 0:
        _debit(cf, increase, description, by)
        spent = increase
    _sync_resources(cf, cost=cost_after)
    # No refund for a cost decrease (R18).
    message = f"{_name(by)} changed {force.name}: {description}"
    if spent:
        message += f" ({spent} Resources)"
    _log(
        cf.campaign,
        by,
        kind,
        message + ".",
        campaign_force=cf.pk,
        cost_before=cost_before,
        cost_after=cost_after,
        spent=spent,
    )
    return ChangeResult(value=value, cost_before=cost_before, cost_after=cost_after, spent=spent)


def _member_index(force_id: int, member_pk: int) -> int:
    ids = list(Member.objects.filter(force_id=force_id).values_list("pk", flat=True))
    return ids.index(member_pk)


@transaction.atomic
def change_campaign_force(
    *,
    campaign_force: CampaignForce,
    by: AbstractBaseUser,
    change: Callable[[], Any],
    description: str = "a change between battles",
) -> ChangeResult:
    """Run a roster change (e.g. `roster.services.update_member`) as a between-battles
    change of a campaign force (R17, R18), in one transaction with the force locked.

    Only the owner, only while no battle of the force is pending. A cost increase is
    spent from the ledger (InsufficientResources rolls everything back, the roster
    change included); a decrease gives no refund (R18). Refused if the force breaks
    R10, if a member's creation choices or XP change, or if a recruit brings XP or
    level-ups. Level-ups have their own services (`take_level_up`).
    """
    return _edit(
        campaign_force=campaign_force, by=by, change=change, description=description, charge=True
    )


def _member_of(campaign_force: CampaignForce, member: Member) -> Member:
    try:
        return Member.objects.get(pk=member.pk, force_id=campaign_force.force_id)
    except Member.DoesNotExist as exc:
        raise CampaignError(f"{member.name} is not in this force.") from exc


@transaction.atomic
def take_level_up(
    *,
    campaign_force: CampaignForce,
    by: AbstractBaseUser,
    member: Member,
    line: int,
    choice: str | None = None,
    method: str = "rolled",
    skill: str | None = None,
    rng: random.Random | None = None,
) -> Member:
    """R17: one free advancement per level gained, from the member's society table.

    A statistic line takes `choice` on an "or" line. A skill line is rolled on the
    server (`method="rolled"`, the roll stored like a creation roll, R5) or picked
    (`method="picked"`, `skill`, -2 FR). After a roll that needs a decision (a natural
    12 or a free pick) use `continue_level_up_roll`. A level-up is free: if it raises
    a statistic that prices equipment, the new price is not charged.
    """
    current = _member_of(campaign_force, member)
    rules = campaign_force.campaign.house_rules
    if progression.level_ups_waiting(current.xp, len(current.level_ups), rules) < 1:
        level = progression.level_for_xp(current.xp, rules)
        raise CampaignError(f"{current.name} has no level-up waiting (level {level}).")
    if method not in ("rolled", "picked"):
        raise CampaignError("A skill is rolled or picked (R5).")
    index = len(current.level_ups)
    slot = f"level_ups/{index}"

    def change() -> Member:
        fresh = Member.objects.get(pk=current.pk)
        society = get_catalogue().societies.get(fresh.society)
        table_line = society.lines.get(line) if society else None
        if table_line is None:
            raise CampaignError(f"Line {line} is not on {fresh.name}'s society table.")
        advancement: dict[str, Any] = {"line": line}
        if table_line.kind == "statistic":
            if choice is not None:
                advancement["choice"] = choice
        elif method == "picked":
            if not skill:
                raise CampaignError("Name the skill to pick.")
            advancement.update(skill=skill, method="picked")
        data = roster_selectors.member_json(fresh)
        data["level_ups"] = [*fresh.level_ups, advancement]
        updated = roster_services.update_member(member=fresh, data=data)
        if table_line.kind == "skill" and method == "rolled":
            roster_services.roll_skill(member=updated, slot=slot, user=by, rng=rng)
        return Member.objects.get(pk=current.pk)

    result = _edit(
        campaign_force=campaign_force,
        by=by,
        change=change,
        description=f"{current.name} took a level-up (line {line})",
        charge=False,
        level_up_slot=(current.pk, index),
        kind=CampaignEvent.Kind.LEVEL_UP,
    )
    return result.value


@transaction.atomic
def continue_level_up_roll(
    *,
    campaign_force: CampaignForce,
    by: AbstractBaseUser,
    member: Member,
    slot: str,
    action: str,
    table: str | None = None,
    skill: str | None = None,
    rng: random.Random | None = None,
) -> Member:
    """Finish or redo a level-up's skill roll (R5): `action` is "roll" (after a natural
    12, on `table`; otherwise a re-roll at -1 FR), "free-pick" (`skill` among the roll's
    choices) or "pick" (`skill` outright, -2 FR)."""
    current = _member_of(campaign_force, member)
    kind, _, index = slot.partition("/")
    if kind != "level_ups" or not is_whole_number(index) or int(index) >= len(current.level_ups):
        raise CampaignError(f"{current.name} has no level-up at '{slot}'.")

    def change() -> Member:
        fresh = Member.objects.get(pk=current.pk)
        if action == "roll":
            roster_services.roll_skill(member=fresh, slot=slot, user=by, table=table, rng=rng)
        elif action == "free-pick":
            roster_services.take_free_pick(member=fresh, slot=slot, skill=skill or "")
        elif action == "pick":
            roster_services.pick_skill(member=fresh, slot=slot, skill=skill or "")
        else:
            raise CampaignError("Roll, free-pick or pick.")
        return Member.objects.get(pk=current.pk)

    return _edit(
        campaign_force=campaign_force,
        by=by,
        change=change,
        description=f"{current.name}'s level-up roll ({action})",
        charge=False,
        level_up_slot=(current.pk, int(index)),
        kind=CampaignEvent.Kind.LEVEL_UP,
    ).value


# --- battles (R14, R15, R16) ---------------------------------------------------------------


def _pending_involving(campaign_forces: Iterable[CampaignForce]) -> list[str]:
    return sorted(
        {
            bf.campaign_force.force.name
            for bf in BattleForce.objects.filter(
                campaign_force__in=list(campaign_forces), battle__status=Battle.Status.PENDING
            ).select_related("campaign_force__force")
        }
    )


@transaction.atomic
def record_battle(
    *,
    campaign: Campaign,
    by: AbstractBaseUser,
    played_on: date,
    scenario: str,
    winner: CampaignForce | None,
    results: Mapping[CampaignForce, Sequence[MemberOutcome]],
) -> Battle:
    """Record a battle (R14) as pending: nothing counts until an opponent confirms it.

    Two or more active forces of this campaign, each legal and with at least one member
    who took part; `winner` is one of them, or None for a draw. The recorder is the
    organiser or owns one of the forces. A force may be in one pending battle at a
    time: a pending battle freezes the force, and its results apply to it as it is.
    """
    scenario = _clean_text(scenario, "A scenario name", 100)
    if played_on > timezone.localdate():
        raise CampaignError("A battle cannot be recorded before it is played (date in future).")
    if len(results) < 2:
        raise CampaignError("A battle has two or more forces.")
    forces = _lock_all(results)
    if len(forces) != len(results):
        raise CampaignError("A battle has two or more different forces.")
    by_pk = {cf.pk: cf for cf in forces}
    for cf in forces:
        if cf.campaign_id != campaign.pk:
            raise CampaignError(f"{cf.force.name} is not in this campaign.")
        _require_active(cf)
        if not cf.force.is_legal:
            raise CampaignError(f"{cf.force.name} is not legal; fix it before battling.")
    if by.pk != campaign.organiser_id and not any(cf.player_id == by.pk for cf in forces):
        raise NotAllowed("Only a player whose force took part, or the organiser, records it.")
    if winner is not None and winner.pk not in by_pk:
        raise CampaignError("The winner must be one of the battle's forces.")
    busy = _pending_involving(forces)
    if busy:
        raise CampaignError(
            f"Already in a battle waiting for confirmation: {', '.join(busy)}. "
            "Confirm or void it first."
        )
    rows: list[tuple[CampaignForce, list[MemberOutcome]]] = []
    for given, outcomes in results.items():
        cf = by_pk[given.pk]
        outcomes = list(outcomes)
        if not outcomes:
            raise CampaignError(f"Name at least one member of {cf.force.name} who took part.")
        members = {m.pk: m for m in Member.objects.filter(force_id=cf.force_id)}
        seen: set[int] = set()
        for outcome in outcomes:
            if outcome.member.pk not in members:
                raise CampaignError(f"{outcome.member.name} is not in {cf.force.name}.")
            if outcome.member.pk in seen:
                raise CampaignError(f"{outcome.member.name} is listed twice.")
            seen.add(outcome.member.pk)
            for what, value in (
                ("Enemies taken Out of Action", outcome.enemies_out_of_action),
                ("Objectives", outcome.objectives),
            ):
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
                    raise CampaignError(f"{what} is a whole number from 0 to 99.")
        rows.append((cf, outcomes))

    battle = Battle.objects.create(
        campaign=campaign,
        played_on=played_on,
        scenario=scenario,
        recorded_by=by,
        winner_id=winner.pk if winner is not None else None,
    )
    for cf, outcomes in rows:
        bf = BattleForce.objects.create(
            battle=battle,
            campaign_force=cf,
            outcome=progression.outcome_for(cf.pk, battle.winner_id),
        )
        members = {m.pk: m for m in Member.objects.filter(force_id=cf.force_id)}
        BattleMemberResult.objects.bulk_create(
            BattleMemberResult(
                battle_force=bf,
                member_id=o.member.pk,
                member_name=members[o.member.pk].name,
                unconscious=o.unconscious,
                out_of_action=o.out_of_action,
                enemies_out_of_action=o.enemies_out_of_action,
                objectives=o.objectives,
            )
            for o in outcomes
        )
    names = " vs ".join(cf.force.name for cf, _ in rows)
    result = "a draw" if winner is None else f"won by {by_pk[winner.pk].force.name}"
    _log(
        campaign,
        by,
        CampaignEvent.Kind.BATTLE_RECORDED,
        f"{_name(by)} recorded {scenario} on {played_on.isoformat()}: {names}, {result}; "
        "waiting for confirmation.",
        battle=battle.pk,
    )
    return battle


def _lock_battle(battle: Battle) -> Battle:
    return (
        Battle.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=battle.pk)
    )


def may_confirm(battle: Battle, user: AbstractBaseUser, owners: Iterable[int]) -> bool:
    """An opponent (a player owning a force in the battle, not the recorder) or the
    organiser; `owners` are the user ids owning the battle's forces."""
    if user.pk == battle.campaign.organiser_id:
        return True
    return user.pk != battle.recorded_by_id and user.pk in set(owners)


@transaction.atomic
def confirm_battle(*, battle: Battle, by: AbstractBaseUser) -> Battle:
    """Confirm a pending battle and apply it, all or nothing: every member's XP (R16),
    every force's Resources (R15). Locking the battle row means two confirmations at
    once apply it once; the second is told it is already confirmed."""
    battle = _lock_battle(battle)
    if battle.status != Battle.Status.PENDING:
        raise CampaignError(f"This battle is already {battle.get_status_display().lower()}.")
    battle_forces = list(
        battle.battle_forces.select_related("campaign_force").prefetch_related("member_results")
    )
    owners = [bf.campaign_force.player_id for bf in battle_forces]
    if not may_confirm(battle, by, owners):
        if by.pk == battle.recorded_by_id:
            raise NotAllowed("An opponent or the organiser confirms a battle, not its recorder.")
        raise NotAllowed("Only an opponent in this battle or the organiser can confirm it.")
    rules = battle.campaign.house_rules
    forces = {cf.pk: cf for cf in _lock_all(bf.campaign_force for bf in battle_forces)}
    results = [r for bf in battle_forces for r in bf.member_results.all()]
    members = {
        m.pk: m
        for m in Member.objects.select_for_update().filter(
            pk__in=[r.member_id for r in results if r.member_id]
        )
    }
    levelled: list[str] = []
    for bf in battle_forces:
        for result in bf.member_results.all():
            result.xp_awarded = progression.xp_earned(
                enemies_out_of_action=result.enemies_out_of_action,
                objectives=result.objectives,
                side_won=bf.outcome == BattleForce.Outcome.WIN,
                rules=rules,
            )
            member = members.get(result.member_id)
            if member is None:
                continue
            before = member.xp
            Member.objects.filter(pk=member.pk).update(xp=F("xp") + result.xp_awarded)
            gained = progression.levels_gained(before, before + result.xp_awarded, rules)
            if gained > 0:
                level = progression.level_for_xp(before + result.xp_awarded, rules)
                levelled.append(f"{member.name} reached level {level}")
    BattleMemberResult.objects.bulk_update(results, ["xp_awarded"])
    for bf in battle_forces:
        cf = forces[bf.campaign_force_id]
        amount = progression.resources_earned(bf.outcome, rules)
        _entry(
            cf,
            amount,
            LedgerEntry.Kind.BATTLE,
            f"{bf.get_outcome_display()}: {battle.scenario} ({battle.played_on.isoformat()})",
            by,
            battle=battle,
        )
    battle.status = Battle.Status.CONFIRMED
    battle.confirmed_by = by
    battle.confirmed_at = timezone.now()
    battle.save(update_fields=["status", "confirmed_by", "confirmed_at"])
    for cf in forces.values():
        _sync_resources(cf)
    message = f"{_name(by)} confirmed {battle.scenario} ({battle.played_on.isoformat()})."
    if levelled:
        message += " Level up: " + ", ".join(levelled) + "."
    _log(
        battle.campaign,
        by,
        CampaignEvent.Kind.BATTLE_CONFIRMED,
        message,
        battle=battle.pk,
        xp_awarded=sum(r.xp_awarded for r in results),
    )
    return battle


@transaction.atomic
def void_battle(*, battle: Battle, by: AbstractBaseUser, reason: str = "") -> Battle:
    """Void a battle.

    Confirmed: the organiser only, with a reason; every ledger entry it made is
    reversed by a new entry and every member's XP given back. Refused if a force has
    already spent the Resources it would give back (R15: never below 0); the organiser
    sorts that out first. Pending: the organiser, the recorder (withdrawing it) or an
    opponent who disputes it; nothing had been applied, so nothing is reversed.
    """
    battle = _lock_battle(battle)
    campaign = battle.campaign
    if battle.status == Battle.Status.VOID:
        raise CampaignError("This battle is already void.")
    battle_forces = list(
        battle.battle_forces.select_related("campaign_force__force").prefetch_related(
            "member_results"
        )
    )
    reason = (reason or "").strip()
    if len(reason) > 200:
        raise CampaignError("A reason is at most 200 characters.")
    reversed_entries: list[LedgerEntry] = []
    if battle.status == Battle.Status.PENDING:
        owners = [bf.campaign_force.player_id for bf in battle_forces]
        if by.pk != battle.recorded_by_id and not may_confirm(battle, by, owners):
            raise NotAllowed("Only the organiser, the recorder or an opponent can void this.")
    else:
        _require_organiser(campaign, by, "void a confirmed battle")
        reason = _clean_text(reason, "A reason", 200)
        forces = {cf.pk: cf for cf in _lock_all(bf.campaign_force for bf in battle_forces)}
        entries = list(
            LedgerEntry.objects.filter(
                battle=battle, kind=LedgerEntry.Kind.BATTLE, reversed_by__isnull=True
            )
        )
        short = []
        for entry in entries:
            balance = _balance(forces[entry.campaign_force_id])
            if balance - entry.amount < 0:
                short.append(
                    f"{forces[entry.campaign_force_id].force.name} has {balance} Resources "
                    f"but would give back {entry.amount}"
                )
        if short:
            raise InsufficientResources(
                "Voiding would take a balance below 0 (R15): " + "; ".join(short) + "."
            )
        for entry in entries:
            reversed_entries.append(
                _entry(
                    forces[entry.campaign_force_id],
                    -entry.amount,
                    LedgerEntry.Kind.REVERSAL,
                    f"Battle voided: {entry.reason}",
                    by,
                    battle=battle,
                    reverses=entry,
                )
            )
        results = [r for bf in battle_forces for r in bf.member_results.all() if r.member_id]
        members = {
            m.pk: m
            for m in Member.objects.select_for_update().filter(
                pk__in=[r.member_id for r in results]
            )
        }
        for result in results:
            member = members.get(result.member_id)
            if member is None:
                continue
            member.xp = max(0, member.xp - result.xp_awarded)
            Member.objects.filter(pk=member.pk).update(xp=member.xp)
        for cf in forces.values():
            _sync_resources(cf)
    battle.status = Battle.Status.VOID
    battle.voided_by = by
    battle.voided_at = timezone.now()
    battle.void_reason = reason
    battle.save(update_fields=["status", "voided_by", "voided_at", "void_reason"])
    what = f"{battle.scenario} ({battle.played_on.isoformat()})"
    _log(
        campaign,
        by,
        CampaignEvent.Kind.BATTLE_VOIDED,
        f"{_name(by)} voided {what}" + (f": {reason}." if reason else "."),
        battle=battle.pk,
        reversed_entries=[e.pk for e in reversed_entries],
    )
    return battle


# --- permissions for the pages (appended) --------------------------------------------------


def may_void(*, battle: Battle, user: AbstractBaseUser, owners: Iterable[int]) -> bool:
    """Who `void_battle` lets void this battle: a confirmed one, the organiser only; a
    pending one, the organiser, its recorder (withdrawing it) or an opponent (disputing
    it). `owners` are the user ids owning the battle's forces."""
    if battle.status == Battle.Status.CONFIRMED:
        return user.pk == battle.campaign.organiser_id
    if battle.status == Battle.Status.PENDING:
        return user.pk == battle.recorded_by_id or may_confirm(battle, user, owners)
    return False
