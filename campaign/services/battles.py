"""Battles (R14, R15, R16): recording, confirming, voiding."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaign import progression, signals, tags
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    LedgerEntry,
)
from campaign.services.common import (
    MAX_ENEMIES,
    MAX_OBJECTIVES,
    MemberOutcome,
    _clean_text,
    _count_battle,
    _entry,
    _lock_all,
    _log,
    _name,
    _require_active,
    _require_organiser,
    balance_of,
)
from dbd_site import preconditions
from dbd_site.errors import Conflict, Invalid, NotAllowed, PreconditionFailed, Problem
from dbd_site.words import counted
from roster import services as roster_services
from roster.models import Member


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
    (`/results/<force>/members/<member>/...`).

    Long because every problem of a record (R14b) is found in one pass, so all are reported
    at once (R12).
    """
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
                    f"{cf.force.name}'s members are credited with "
                    f"{counted(credited, 'enemy', 'enemies')} taken Out of Action, but the "
                    f"other forces have {counted(available, 'member')} marked Out of Action "
                    "(R14b).",
                )
            )
    return problems


@transaction.atomic
def record_battle(
    *,
    campaign: Campaign,
    by: User,
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

    Long because the checks, the locks and the rows of one record go in one transaction.
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
    signals.battle_recorded.send(Battle, battle=battle, by=by)
    return battle


def _lock_battle(battle: Battle) -> Battle:
    return (
        Battle.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=battle.pk)
    )


def _check_precondition(battle: Battle, if_match: list[str] | None) -> None:
    """412 when the locked battle is no longer at a tag the caller names."""
    if not preconditions.holds(if_match, tags.battle_tag(battle)):
        raise PreconditionFailed(
            "precondition-failed",
            "The battle (or the house rules it is scored with) has changed since the "
            "version you name; nothing was changed: read it again.",
        )


def may_confirm(battle: Battle, user: User, owners: Iterable[int]) -> bool:
    """R14a: the player of another force in the battle (not its recorder), or the
    organiser when the organiser neither recorded it nor owns a force in it. Nobody
    confirms a battle alone. `owners` are the user ids owning the battle's forces."""
    if user.pk == battle.recorded_by_id:
        return False
    return user.pk in set(owners) or user.pk == battle.campaign.organiser_id


@transaction.atomic
def confirm_battle(*, battle: Battle, by: User, if_match: list[str] | None = None) -> Battle:
    """Confirm a pending battle and apply it, all or nothing: every member's XP (R16),
    every force's Resources (R15), scored with the house rules in force now (R14c).
    Locking the battle row means two confirmations at once apply it once; the second
    is told it is already confirmed. `if_match`: the battle tags (`campaign.tags`) the
    confirmer reviewed; 412 when its status or the house rules have changed since.

    Long because XP, Resources and tallies of every force are applied in one transaction,
    all or nothing.
    """
    battle = _lock_battle(battle)
    _check_precondition(battle, if_match)
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
    signals.battle_confirmed.send(Battle, battle=battle, by=by)
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
def void_battle(
    *, battle: Battle, by: User, reason: str = "", if_match: list[str] | None = None
) -> Battle:
    """Void a battle (`if_match`: the battle tags, `campaign.tags`, the caller saw; 412
    when it has changed since).

    Confirmed (R15a): the organiser only, with a reason; everything it gave is taken
    back: every ledger entry it made is reversed by a new entry, every member's XP given
    back, and a member whose level falls loses their latest level-ups beyond what the
    new level allows, with their effects (listed by `void_plan`, and in the log).
    Resources spent meanwhile stay spent. Refused if a force has already spent the
    Resources it would give back (R15: never below 0), or if taking the level-ups back
    would leave a force illegal. Pending: the organiser, the recorder (withdrawing it)
    or an opponent who disputes it; nothing had been applied, so nothing is reversed.

    Long because every effect of the battle is taken back in one transaction, all or
    nothing.
    """
    battle = _lock_battle(battle)
    _check_precondition(battle, if_match)
    campaign = battle.campaign
    was = battle.status
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
    signals.battle_voided.send(Battle, battle=battle, by=by, was=was)
    return battle


def may_void(*, battle: Battle, user: User, owners: Iterable[int]) -> bool:
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
