"""What the campaign's services share: the codes they refuse with, the campaign
log, the locks, the ledger's entries and tallies, and the campaign copy's evaluation."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import F, Sum

from campaign.models import (
    Battle,
    BattleForce,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from campaign.progression import HouseRules
from campaign.tallies import TALLY_FOR_OUTCOME
from dbd_site.errors import Conflict, Invalid, Kind, NotAllowed, also, declare_codes
from roster import engine
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.models import Force, Member
from roster.policy import Proposal
from rules.loader import get_catalogue

CODES = declare_codes(
    {
        "required": "This field is required.",
        "too-long": "A text longer than allowed.",
        "invalid-house-rules": "House rules that cannot be played (R14-R18).",
        "force-not-ready": "The force must be legal and new to campaigns to enter (R10, R11, "
        "R16).",
        "not-a-whole-number": "A whole number is needed here.",
        "battle-in-future": "A battle is recorded after it is played.",
        "battle-forces": "A battle has two or more different forces of this campaign.",
        "force-illegal": "A force must be legal to battle.",
        "winner-not-in-battle": "The winner is one of the battle's forces.",
        "member-not-in-force": "A result names only members of its own force (R14b).",
        "listed-twice": "A member or force is listed twice.",
        "out-of-action-credit": "Enemies taken Out of Action credited to one force add up to "
        "at most the other forces' members marked Out of Action (R14b).",
        "objectives-range": "Objectives are 0 to 10 per member (R14b).",
        "enemies-range": "Enemies taken Out of Action are 0 to 99 per member.",
        "took-part-required": "Name at least one member of each force who took part.",
        "void-overdraws": "Voiding would take a balance below 0 (R15, R15a).",
        "no-level-up-waiting": "The member has no level-up waiting (R17).",
        "unknown-line": "No such line on the member's society table.",
        "unknown-action": "An action this endpoint does not take.",
    }
)

NOT_ALLOWED_CODES = declare_codes(
    {
        "not-organiser": "Only the campaign's organiser can do this.",
        "not-a-player": "Join the campaign first.",
        "not-in-battle": "Only a player whose force took part, or the organiser, does this.",
        "own-battle": "Nobody confirms a battle alone: an opponent, or an organiser who "
        "neither recorded it nor plays in it, confirms (R14a).",
    },
    Kind.NOT_ALLOWED,
)

NOT_FOUND_CODES = declare_codes(
    {
        "invalid-invite": "The invitation link is not valid (it may have been replaced).",
        "no-such-level-up": "The member has no level-up there.",
    },
    Kind.NOT_FOUND,
)

CONFLICT_CODES = declare_codes(
    {
        "already-in-campaign": "The force, or the player, is in this campaign already.",
        "battle-not-pending": "The battle is already confirmed or void.",
    },
    Kind.CONFLICT,
)
# A campaign force entered again (its own copy) is bad input, not a state in the way.
ENTRY_CODES = also(Kind.INVALID, "already-in-campaign")

# The most objectives one member scores in a battle (R14b).
MAX_OBJECTIVES = 10
MAX_ENEMIES = 99


@dataclass(frozen=True, slots=True)
class Debit:
    """One purchase: one ledger entry of its own price (R17a), as the campaign's policy
    judges a change (`campaign.policy`) and `record_change` writes it."""

    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class MemberOutcome:
    """What one member who took part did in a battle (R14)."""

    member: Member
    unconscious: bool = False
    out_of_action: bool = False
    enemies_out_of_action: int = 0
    objectives: int = 0


def _name(user: User | None) -> str:
    return user.get_username() if user is not None else "Someone"


def _log(
    campaign: Campaign,
    actor: User | None,
    kind: str,
    message: str,
    **data: Any,
) -> CampaignEvent:
    return CampaignEvent.objects.create(
        campaign=campaign, actor=actor, kind=kind, message=message[:500], data=data
    )


def _is_player(campaign: Campaign, user: User) -> bool:
    return CampaignPlayer.objects.filter(campaign=campaign, user_id=user.pk).exists()


def _require_organiser(campaign: Campaign, by: User, doing: str) -> None:
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
    by: User | None,
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


def record_change(
    campaign_force: CampaignForce, proposal: Proposal, debits: Sequence[Debit]
) -> None:
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
