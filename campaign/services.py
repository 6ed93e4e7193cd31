"""Writes to campaigns. Every function checks who may do it, keeps the house rules
(R14-R18), runs in one transaction and writes a `CampaignEvent` for the campaign log.

Campaign copies of forces are written only through the roster's write path
(`roster.services`), judged by the campaign's policy (`campaign.policy`): the
between-battles rules and their ledger entries live there. The functions here keep the
campaign's own records (players, battles, the ledger) and ask the roster's write path
for the force changes a battle brings (XP, R16) or takes back (R15a).

Resources (R11, R15): a campaign copy's `Force.resources` is its engine cost plus its
ledger balance, so the engine's over-budget check means "the balance is below 0".

Locks: a battle row is locked before campaign force rows, campaign force rows in id
order, and a campaign force row before its force row (the write path takes them in that
order too), so concurrent calls queue instead of deadlocking. Balances are read only
under the campaign force's row lock: no lost update, no overdraft.

Tallies: each campaign force's won / drawn / lost and balance (what the standings read)
move here and nowhere else, in the same transaction as what they count: `_entry` adds
every ledger entry's amount to the balance, `confirm_battle` adds one battle of each
force's outcome and `void_battle` takes a confirmed one away. Each is one UPDATE of
`F() + n`, atomic in the database whatever the locks. `campaign.tallies` recounts them
from the battles and the ledger (the tests hold the two equal).

Refusals raise `dbd_site.errors` kinds with stable codes.
"""

import random
from collections.abc import Iterable, Mapping, Sequence
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
from campaign.tallies import TALLY_FOR_OUTCOME
from dbd_site.errors import Conflict, Invalid, NotAllowed, NotFound, Problem, declare_codes
from dbd_site.inputs import is_whole_number
from roster import engine
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.models import Force, Member
from roster.policy import Proposal
from rules.loader import get_catalogue

CODES = declare_codes(
    {
        "not-organiser": "Only the campaign's organiser can do this.",
        "required": "This field is required.",
        "too-long": "A text longer than allowed.",
        "invalid-house-rules": "House rules that cannot be played (R14-R18).",
        "invalid-invite": "The invitation link is not valid (it may have been replaced).",
        "not-a-player": "Join the campaign first.",
        "already-in-campaign": "The force, or the player, is in this campaign already.",
        "force-not-ready": "The force must be legal and new to campaigns to enter (R10, R11, "
        "R16).",
        "not-a-whole-number": "A whole number is needed here.",
        "battle-in-future": "A battle is recorded after it is played.",
        "battle-forces": "A battle has two or more different forces of this campaign.",
        "force-illegal": "A force must be legal to battle.",
        "not-in-battle": "Only a player whose force took part, or the organiser, does this.",
        "winner-not-in-battle": "The winner is one of the battle's forces.",
        "member-not-in-force": "A result names only members of its own force (R14b).",
        "listed-twice": "A member or force is listed twice.",
        "out-of-action-credit": "Enemies taken Out of Action credited to one force add up to "
        "at most the other forces' members marked Out of Action (R14b).",
        "objectives-range": "Objectives are 0 to 10 per member (R14b).",
        "enemies-range": "Enemies taken Out of Action are 0 to 99 per member.",
        "took-part-required": "Name at least one member of each force who took part.",
        "battle-not-pending": "The battle is already confirmed or void.",
        "own-battle": "Nobody confirms a battle alone: an opponent, or an organiser who "
        "neither recorded it nor plays in it, confirms (R14a).",
        "void-overdraws": "Voiding would take a balance below 0 (R15, R15a).",
        "no-level-up-waiting": "The member has no level-up waiting (R17).",
        "no-such-level-up": "The member has no level-up there.",
        "unknown-line": "No such line on the member's society table.",
        "unknown-action": "An action this endpoint does not take.",
    }
)

# The most objectives one member scores in a battle (R14b).
MAX_OBJECTIVES = 10
MAX_ENEMIES = 99


@dataclass(frozen=True, slots=True)
class MemberOutcome:
    """What one member who took part did in a battle (R14)."""

    member: Member
    unconscious: bool = False
    out_of_action: bool = False
    enemies_out_of_action: int = 0
    objectives: int = 0


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
        raise NotAllowed("not-organiser", f"Only the organiser can {doing}.")


def _clean_text(value: str, what: str, max_length: int, at: str) -> str:
    value = (value or "").strip()
    if not value:
        raise Invalid("required", f"{what} is required.", pointer=at)
    if len(value) > max_length:
        raise Invalid("too-long", f"{what} is at most {max_length} characters.", pointer=at)
    return value


def _whole(value: Any, at: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("not-a-whole-number", f"{what} is a whole number.", pointer=at)
    return value


def lock_campaign_force(campaign_force: CampaignForce) -> CampaignForce:
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


def balance_of(campaign_force: CampaignForce) -> int:
    """The ledger's sum (R15); read under the campaign force's row lock when it matters."""
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
    """The one way a ledger entry is written (R15); the force's balance tally moves
    with it."""
    entry = LedgerEntry.objects.create(
        campaign_id=campaign_force.campaign_id,
        campaign_force=campaign_force,
        amount=amount,
        kind=kind,
        reason=reason[:200],
        battle=battle,
        reverses=reverses,
        created_by=by,
    )
    CampaignForce.objects.filter(pk=campaign_force.pk).update(balance=F("balance") + amount)
    return entry


def _count_battle(battle_force: BattleForce, battles: int) -> None:
    """Add `battles` (1 when confirmed, -1 when a confirmed battle is voided) to the
    force's tally of its outcome (R14, R15a)."""
    tally = TALLY_FOR_OUTCOME[battle_force.outcome]
    CampaignForce.objects.filter(pk=battle_force.campaign_force_id).update(
        **{tally: F(tally) + battles}
    )


def has_pending_battle(campaign_force: CampaignForce) -> bool:
    return BattleForce.objects.filter(
        campaign_force=campaign_force, battle__status=Battle.Status.PENDING
    ).exists()


def _require_active(campaign_force: CampaignForce) -> None:
    if campaign_force.retired_at is not None:
        raise Conflict(
            "force-retired", f"{campaign_force.force.name} has retired from the campaign."
        )


def _resync(campaign_force: CampaignForce, description: str = "") -> Force:
    """Evaluate the copy again through the write path: its Resources follow the ledger
    (cost + balance) and its levels the campaign's thresholds."""
    return roster_services.refresh(force=campaign_force.force, description=description)


def record_change(campaign_force: CampaignForce, proposal: Proposal, debits: Sequence) -> None:
    """The policy's settlement after a write to a campaign copy: one ledger entry per
    purchase (R17a) and a line in the log for what the owner did."""
    command = proposal.command
    for debit in debits:
        _entry(
            campaign_force,
            -debit.amount,
            LedgerEntry.Kind.PURCHASE,
            debit.reason,
            command.actor,
        )
    if command.actor is None:
        return  # the campaign's own bookkeeping logs itself
    spent = sum(d.amount for d in debits)
    kind = (
        CampaignEvent.Kind.LEVEL_UP
        if command.kind == "take-level-up" or (command.slot or "").startswith("level_ups/")
        else CampaignEvent.Kind.FORCE_CHANGED
    )
    what = command.description or command.kind.replace("-", " ")
    message = f"{_name(command.actor)} changed {proposal.force.name}: {what}"
    if spent:
        message += f" ({spent} Resources)"
    _log(
        campaign_force.campaign,
        command.actor,
        kind,
        message + ".",
        campaign_force=campaign_force.pk,
        cost_before=int(proposal.before.get("total_cost", 0)),
        cost_after=proposal.after.total_cost,
        spent=spent,
    )


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
def create_campaign(*, organiser: AbstractBaseUser, name: str, **house_rules: Any) -> Campaign:
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
            raise Invalid(
                "invalid-house-rules",
                "With these thresholds some members would have more level-ups than levels: "
                + ", ".join(over)
                + ".",
                pointer="/level_thresholds",
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
    return player


# --- forces --------------------------------------------------------------------------------


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
def retire_campaign_force(*, campaign_force: CampaignForce, by: AbstractBaseUser) -> CampaignForce:
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


# --- Resources (R15) ---------------------------------------------------------------------


@transaction.atomic
def spend(
    *, campaign_force: CampaignForce, amount: int, reason: str, by: AbstractBaseUser
) -> LedgerEntry:
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
    *, campaign_force: CampaignForce, amount: int, reason: str, by: AbstractBaseUser
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


# --- level-ups (R16, R17) -------------------------------------------------------------------


def _member_of(campaign_force: CampaignForce, member: Member) -> Member:
    try:
        return Member.objects.get(pk=member.pk, force_id=campaign_force.force_id)
    except Member.DoesNotExist as exc:
        raise NotFound("no-such-member", f"{member.name} is not in this force.") from exc


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
    a statistic that prices equipment, the new price is not charged (R17a).
    """
    current = _member_of(campaign_force, member)
    rules = campaign_force.campaign.house_rules
    if progression.level_ups_waiting(current.xp, len(current.level_ups), rules) < 1:
        level = progression.level_for_xp(current.xp, rules)
        raise Invalid(
            "no-level-up-waiting",
            f"{current.name} has no level-up waiting (level {level}).",
            pointer="/line",
        )
    society = get_catalogue().societies.get(current.society)
    table_line = society.lines.get(line) if society else None
    if table_line is None:
        raise Invalid(
            "unknown-line",
            f"Line {line} is not on {current.name}'s society table.",
            pointer="/line",
        )
    advancement: dict[str, Any] = {"line": line}
    if table_line.kind == "statistic":
        if skill is not None:  # not silently dropped: the caller meant something else
            raise Invalid(
                "invalid",
                f"Line {line} raises a statistic; a skill is taken on a skill line.",
                pointer="/skill",
            )
        if choice is not None:
            advancement["choice"] = choice
    elif method == "picked":
        if not skill:
            raise Invalid("required", "Name the skill to pick.", pointer="/skill")
        advancement.update(skill=skill, method="picked")
    return roster_services.take_level_up(
        force=campaign_force.force,
        actor=by,
        member_id=current.pk,
        advancement=advancement,
        rng=rng,
        description=f"{current.name} took a level-up (line {line})",
    )


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
    """Finish or redo a level-up's skill roll (R5, R5a): `action` is "roll" (after a
    natural 12, on `table`; otherwise a re-roll at -1 FR), "free-pick" (`skill` among the
    roll's choices) or "pick" (`skill` outright, -2 FR)."""
    current = _member_of(campaign_force, member)
    kind, _, index = slot.partition("/")
    if kind != "level_ups" or not is_whole_number(index) or int(index) >= len(current.level_ups):
        raise NotFound("no-such-level-up", f"{current.name} has no level-up at '{slot}'.")
    force = campaign_force.force
    if action == "roll":
        roster_services.roll_skill(
            force=force,
            actor=by,
            member_id=current.pk,
            slot=slot,
            table=table,
            rng=rng or random.SystemRandom(),
        )
    elif action == "free-pick":
        roster_services.take_free_pick(
            force=force, actor=by, member_id=current.pk, slot=slot, skill=skill or ""
        )
    elif action == "pick":
        roster_services.pick_skill(
            force=force, actor=by, member_id=current.pk, slot=slot, skill=skill or ""
        )
    else:
        raise Invalid("unknown-action", "Roll, free-pick or pick.", pointer="/action")
    return Member.objects.get(pk=current.pk)


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


def _record_problems(
    rows: Sequence[tuple[CampaignForce, Sequence[MemberOutcome]]],
) -> list[Problem]:
    """R14b: a consistent record, every problem pointing at its field of the request
    (`/results/<force>/members/<member>/...`)."""
    problems: list[Problem] = []
    out_of_action = {cf.pk: sum(1 for o in outcomes if o.out_of_action) for cf, outcomes in rows}
    for i, (cf, outcomes) in enumerate(rows):
        at = f"/results/{i}"
        if not outcomes:
            problems.append(
                Problem(
                    f"{at}/members",
                    "took-part-required",
                    f"Name at least one member of {cf.force.name} who took part.",
                )
            )
            continue
        members = {m.pk for m in Member.objects.filter(force_id=cf.force_id)}
        seen: set[int] = set()
        for j, outcome in enumerate(outcomes):
            here = f"{at}/members/{j}"
            if outcome.member.pk not in members:
                problems.append(
                    Problem(
                        f"{here}/member",
                        "member-not-in-force",
                        f"{outcome.member.name} is not in {cf.force.name} (R14b).",
                    )
                )
            elif outcome.member.pk in seen:
                problems.append(
                    Problem(
                        f"{here}/member", "listed-twice", f"{outcome.member.name} is listed twice."
                    )
                )
            seen.add(outcome.member.pk)
            for name, value, low, high, code in (
                ("objectives", outcome.objectives, 0, MAX_OBJECTIVES, "objectives-range"),
                (
                    "enemies_out_of_action",
                    outcome.enemies_out_of_action,
                    0,
                    MAX_ENEMIES,
                    "enemies-range",
                ),
            ):
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int)
                    or not (low <= value <= high)
                ):
                    problems.append(
                        Problem(
                            f"{here}/{name}",
                            code,
                            f"{outcome.member.name}: a whole number from {low} to {high}.",
                        )
                    )
        credited = sum(
            o.enemies_out_of_action for o in outcomes if isinstance(o.enemies_out_of_action, int)
        )
        available = sum(n for pk, n in out_of_action.items() if pk != cf.pk)
        if credited > available:
            problems.append(
                Problem(
                    f"{at}/members",
                    "out-of-action-credit",
                    f"{cf.force.name}'s members are credited with {credited} enemies taken "
                    f"Out of Action, but the other forces have {available} member(s) marked "
                    "Out of Action (R14b).",
                )
            )
    return problems


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
    The record must be consistent (R14b); every problem is reported at once.
    """
    scenario = _clean_text(scenario, "A scenario name", 100, "/scenario")
    if played_on > timezone.localdate():
        raise Invalid(
            "battle-in-future",
            "A battle cannot be recorded before it is played (date in future).",
            pointer="/played_on",
        )
    if len(results) < 2:
        raise Invalid("battle-forces", "A battle has two or more forces.", pointer="/results")
    if len(results) > progression.MAX_BATTLE_FORCES:
        raise Invalid(
            "too-many-items",
            f"A battle has at most {progression.MAX_BATTLE_FORCES} forces.",
            pointer="/results",
        )
    forces = _lock_all(results)
    if len(forces) != len(results):
        raise Invalid(
            "battle-forces", "A battle has two or more different forces.", pointer="/results"
        )
    by_pk = {cf.pk: cf for cf in forces}
    for i, given in enumerate(results):
        cf = by_pk[given.pk]
        if cf.campaign_id != campaign.pk:
            raise Invalid(
                "battle-forces",
                f"{cf.force.name} is not in this campaign.",
                pointer=f"/results/{i}/force",
            )
        _require_active(cf)
        if not cf.force.is_legal:
            raise Invalid(
                "force-illegal",
                f"{cf.force.name} is not legal; fix it before battling.",
                pointer=f"/results/{i}/force",
            )
    if by.pk != campaign.organiser_id and not any(cf.player_id == by.pk for cf in forces):
        raise NotAllowed(
            "not-in-battle", "Only a player whose force took part, or the organiser, records it."
        )
    if winner is not None and winner.pk not in by_pk:
        raise Invalid(
            "winner-not-in-battle",
            "The winner must be one of the battle's forces.",
            pointer="/winner",
        )
    busy = _pending_involving(forces)
    if busy:
        raise Conflict(
            "battle-pending",
            f"Already in a battle waiting for confirmation: {', '.join(busy)}. "
            "Confirm or void it first.",
        )
    rows = [(by_pk[given.pk], list(outcomes)) for given, outcomes in results.items()]
    problems = _record_problems(rows)
    if problems:
        raise Invalid.of(problems)

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
    """R14a: the player of another force in the battle (not its recorder), or the
    organiser when the organiser neither recorded it nor owns a force in it. Nobody
    confirms a battle alone. `owners` are the user ids owning the battle's forces."""
    if user.pk == battle.recorded_by_id:
        return False
    return user.pk in set(owners) or user.pk == battle.campaign.organiser_id


@transaction.atomic
def confirm_battle(*, battle: Battle, by: AbstractBaseUser) -> Battle:
    """Confirm a pending battle and apply it, all or nothing: every member's XP (R16),
    every force's Resources (R15), scored with the house rules in force now (R14c).
    Locking the battle row means two confirmations at once apply it once; the second
    is told it is already confirmed."""
    battle = _lock_battle(battle)
    if battle.status != Battle.Status.PENDING:
        raise Conflict(
            "battle-not-pending",
            f"This battle is already {battle.get_status_display().lower()}.",
        )
    battle_forces = list(
        battle.battle_forces.select_related("campaign_force__force").prefetch_related(
            "member_results"
        )
    )
    owners = [bf.campaign_force.player_id for bf in battle_forces]
    if not may_confirm(battle, by, owners):
        if by.pk == battle.recorded_by_id:
            raise NotAllowed(
                "own-battle",
                "An opponent (or an organiser who is not in the battle) confirms a battle, "
                "not its recorder (R14a).",
            )
        raise NotAllowed(
            "not-in-battle", "Only an opponent in this battle or the organiser can confirm it."
        )
    rules = battle.campaign.house_rules  # R14c: the rules in force at confirmation
    forces = {cf.pk: cf for cf in _lock_all(bf.campaign_force for bf in battle_forces)}
    levelled: list[str] = []
    results: list[BattleMemberResult] = []
    for bf in battle_forces:
        xp: dict[int, int] = {}
        for result in bf.member_results.all():
            result.xp_awarded = progression.xp_earned(
                enemies_out_of_action=result.enemies_out_of_action,
                objectives=result.objectives,
                side_won=bf.outcome == BattleForce.Outcome.WIN,
                rules=rules,
            )
            results.append(result)
            if result.member_id:
                xp[result.member_id] = result.xp_awarded
        members = {m.pk: m for m in Member.objects.filter(pk__in=list(xp))}
        for member_id, gained_xp in xp.items():
            member = members.get(member_id)
            if member is None:
                continue
            if progression.levels_gained(member.xp, member.xp + gained_xp, rules) > 0:
                level = progression.level_for_xp(member.xp + gained_xp, rules)
                levelled.append(f"{member.name} reached level {level}")
        cf = forces[bf.campaign_force_id]
        _entry(
            cf,
            progression.resources_earned(bf.outcome, rules),
            LedgerEntry.Kind.BATTLE,
            f"{bf.get_outcome_display()}: {battle.scenario} ({battle.played_on.isoformat()})",
            by,
            battle=battle,
        )
        _count_battle(bf, 1)
        roster_services.award_xp(
            force=cf.force, xp=xp, description=f"battle {battle.pk} confirmed"
        )
    BattleMemberResult.objects.bulk_update(results, ["xp_awarded"])
    Campaign.objects.filter(pk=battle.campaign_id).update(battles_played=F("battles_played") + 1)
    battle.status = Battle.Status.CONFIRMED
    battle.confirmed_by = by
    battle.confirmed_at = timezone.now()
    battle.save(update_fields=["status", "confirmed_by", "confirmed_at"])
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


@dataclass(frozen=True, slots=True)
class LevelUpLost:
    """A level-up a void takes back (R15a), latest first."""

    campaign_force: CampaignForce
    member: Member
    index: int  # which level-up of the member (0 for the first)
    advancement: dict[str, Any]


def void_plan(*, battle: Battle) -> list[LevelUpLost]:
    """The level-ups voiding this confirmed battle would take back (R15a), for the void
    page to list before the organiser confirms; latest first per member."""
    if battle.status != Battle.Status.CONFIRMED:
        return []
    rules = battle.campaign.house_rules
    lost: list[LevelUpLost] = []
    for bf in battle.battle_forces.select_related("campaign_force__force"):
        for result in bf.member_results.select_related("member"):
            member = result.member
            if member is None:
                continue
            keep = progression.level_ups_kept(
                max(0, member.xp - result.xp_awarded), len(member.level_ups), rules
            )
            for index in range(len(member.level_ups) - 1, keep - 1, -1):
                lost.append(LevelUpLost(bf.campaign_force, member, index, member.level_ups[index]))
    return lost


@transaction.atomic
def void_battle(*, battle: Battle, by: AbstractBaseUser, reason: str = "") -> Battle:
    """Void a battle.

    Confirmed (R15a): the organiser only, with a reason; everything it gave is taken
    back: every ledger entry it made is reversed by a new entry, every member's XP given
    back, and a member whose level falls loses their latest level-ups beyond what the
    new level allows, with their effects (listed by `void_plan`, and in the log).
    Resources spent meanwhile stay spent. Refused if a force has already spent the
    Resources it would give back (R15: never below 0), or if taking the level-ups back
    would leave a force illegal. Pending: the organiser, the recorder (withdrawing it)
    or an opponent who disputes it; nothing had been applied, so nothing is reversed.
    """
    battle = _lock_battle(battle)
    campaign = battle.campaign
    if battle.status == Battle.Status.VOID:
        raise Conflict("battle-not-pending", "This battle is already void.")
    battle_forces = list(
        battle.battle_forces.select_related("campaign_force__force").prefetch_related(
            "member_results"
        )
    )
    reason = (reason or "").strip()
    if len(reason) > 200:
        raise Invalid("too-long", "A reason is at most 200 characters.", pointer="/reason")
    reversed_entries: list[LedgerEntry] = []
    lost: list[str] = []
    if battle.status == Battle.Status.PENDING:
        owners = [bf.campaign_force.player_id for bf in battle_forces]
        if not may_void(battle=battle, user=by, owners=owners):
            raise NotAllowed(
                "not-in-battle", "Only the organiser, the recorder or an opponent can void this."
            )
    else:
        _require_organiser(campaign, by, "void a confirmed battle")
        reason = _clean_text(reason, "A reason", 200, "/reason")
        forces = {cf.pk: cf for cf in _lock_all(bf.campaign_force for bf in battle_forces)}
        entries = list(
            LedgerEntry.objects.filter(
                battle=battle, kind=LedgerEntry.Kind.BATTLE, reversed_by__isnull=True
            )
        )
        short = []
        for entry in entries:
            balance = balance_of(forces[entry.campaign_force_id])
            if balance - entry.amount < 0:
                short.append(
                    f"{forces[entry.campaign_force_id].force.name} has {balance} Resources "
                    f"but would give back {entry.amount}"
                )
        if short:
            raise Invalid(
                "void-overdraws",
                "Voiding would take a balance below 0 (R15): " + "; ".join(short) + ".",
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
        rules = campaign.house_rules
        Campaign.objects.filter(pk=campaign.pk).update(battles_played=F("battles_played") - 1)
        for bf in battle_forces:
            cf = forces[bf.campaign_force_id]
            _count_battle(bf, -1)
            taken = {r.member_id: r.xp_awarded for r in bf.member_results.all() if r.member_id}
            members = {m.pk: m for m in Member.objects.filter(pk__in=list(taken))}
            keep: dict[int, int] = {}
            for member_id, xp in taken.items():
                member = members.get(member_id)
                if member is None:
                    continue
                kept = progression.level_ups_kept(
                    max(0, member.xp - xp), len(member.level_ups), rules
                )
                if kept < len(member.level_ups):
                    keep[member_id] = kept
                    lost += [
                        f"{member.name}'s level-up {i + 1}"
                        for i in range(len(member.level_ups) - 1, kept - 1, -1)
                    ]
            roster_services.award_xp(
                force=cf.force,
                xp={member_id: -xp for member_id, xp in taken.items()},
                keep_level_ups=keep,
                description=f"battle {battle.pk} voided",
            )
    battle.status = Battle.Status.VOID
    battle.voided_by = by
    battle.voided_at = timezone.now()
    battle.void_reason = reason
    battle.save(update_fields=["status", "voided_by", "voided_at", "void_reason"])
    what = f"{battle.scenario} ({battle.played_on.isoformat()})"
    message = f"{_name(by)} voided {what}" + (f": {reason}." if reason else ".")
    if lost:
        message += " Level-ups taken back: " + ", ".join(lost) + "."
    _log(
        campaign,
        by,
        CampaignEvent.Kind.BATTLE_VOIDED,
        message,
        battle=battle.pk,
        reversed_entries=[e.pk for e in reversed_entries],
        level_ups_lost=lost,
    )
    return battle


def may_void(*, battle: Battle, user: AbstractBaseUser, owners: Iterable[int]) -> bool:
    """Who `void_battle` lets void this battle: a confirmed one, the organiser only; a
    pending one, the organiser, its recorder (withdrawing it) or an opponent (disputing
    it). `owners` are the user ids owning the battle's forces."""
    if battle.status == Battle.Status.CONFIRMED:
        return user.pk == battle.campaign.organiser_id
    if battle.status == Battle.Status.PENDING:
        return (
            user.pk == battle.recorded_by_id
            or user.pk == battle.campaign.organiser_id
            or user.pk in set(owners)
        )
    return False
