"""Reads of campaigns. Every campaign queryset here is filtered by who is asking.

The dashboard reads (standings, recent battles, pending confirmations, level-ups
waiting) and the charts run a fixed number of queries however many battles a
campaign has: counts and sums happen in the database, rows come back in one query
each, and the rest is plain Python (a test holds them to it).
"""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Count,
    Exists,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

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
)
from roster.models import Member

User = AbstractBaseUser | AnonymousUser


# --- campaigns -----------------------------------------------------------------------------


def campaigns_for(*, user: User) -> QuerySet[Campaign]:
    """The campaigns `user` organises or plays in; none for an anonymous visitor."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    playing = CampaignPlayer.objects.filter(campaign=OuterRef("pk"), user_id=user.pk)
    return Campaign.objects.filter(Q(organiser_id=user.pk) | Exists(playing)).select_related(
        "organiser"
    )


def get_campaign(*, user: User, campaign_id: int) -> Campaign:
    """A campaign the user organises or plays in, or 404 (also for other people's)."""
    return get_object_or_404(campaigns_for(user=user), pk=campaign_id)


def get_campaign_by_invite(*, token: str) -> Campaign:
    """The campaign an invitation link names, or 404."""
    return get_object_or_404(Campaign.objects.select_related("organiser"), invite_token=token)


def is_player(*, campaign: Campaign, user: User) -> bool:
    return bool(
        user.is_authenticated
        and CampaignPlayer.objects.filter(campaign=campaign, user_id=user.pk).exists()
    )


def players(*, campaign: Campaign) -> QuerySet[CampaignPlayer]:
    return campaign.players.select_related("user").order_by("joined_at", "id")


def campaign_forces(
    *, campaign: Campaign, include_retired: bool = True
) -> QuerySet[CampaignForce]:
    forces = campaign.forces.select_related("force", "player")
    if not include_retired:
        forces = forces.filter(retired_at__isnull=True)
    return forces.order_by("entered_at", "id")


def get_campaign_force(*, campaign: Campaign, campaign_force_id: int) -> CampaignForce:
    """A force of an already-authorised campaign, or 404."""
    return get_object_or_404(campaign_forces(campaign=campaign), pk=campaign_force_id)


def campaign_force_for(*, user: User, force_id: int) -> CampaignForce | None:
    """The campaign entry of a roster force the user owns (None for a freeform force)."""
    if not user.is_authenticated:
        return None
    return (
        CampaignForce.objects.select_related("campaign", "force")
        .filter(force_id=force_id, player_id=user.pk)
        .first()
    )


# --- Resources (R15) -----------------------------------------------------------------------


def balance(*, campaign_force: CampaignForce) -> int:
    """The ledger's sum: the force's Resources to spend (R15)."""
    total = campaign_force.ledger_entries.aggregate(total=Sum("amount"))["total"]
    return total or 0


def ledger_with_running_balance(*, campaign_force: CampaignForce) -> QuerySet[LedgerEntry]:
    """The force's ledger, oldest first, each entry with `running_balance` after it."""
    return (
        campaign_force.ledger_entries.select_related("created_by", "battle", "reverses")
        .annotate(running_balance=Window(Sum("amount"), order_by="id"))
        .order_by("id")
    )


def _balances_subquery() -> Subquery:
    return Subquery(
        LedgerEntry.objects.filter(campaign_force=OuterRef("pk"))
        .values("campaign_force")
        .annotate(total=Sum("amount"))
        .values("total"),
        output_field=IntegerField(),
    )


# --- standings -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StandingRow:
    campaign_force: CampaignForce
    name: str
    player: str
    played: int
    won: int
    drawn: int
    lost: int
    points: int
    resources: int
    rating: int  # the force's total cost (R11)
    retired: bool


def standings(*, campaign: Campaign) -> list[StandingRow]:
    """The table, from confirmed battles only: one query, however many battles."""
    confirmed = Q(battle_entries__battle__status=Battle.Status.CONFIRMED)
    forces = (
        campaign.forces.select_related("force", "player")
        .annotate(
            won=Count("battle_entries", filter=confirmed & Q(battle_entries__outcome="win")),
            drawn=Count("battle_entries", filter=confirmed & Q(battle_entries__outcome="draw")),
            lost=Count("battle_entries", filter=confirmed & Q(battle_entries__outcome="loss")),
            balance=Coalesce(_balances_subquery(), Value(0)),
        )
        .order_by("id")
    )
    by_pk = {cf.pk: cf for cf in forces}
    table = progression.standings(
        (
            progression.Record(
                key=cf.pk, name=cf.force.name, won=cf.won, drawn=cf.drawn, lost=cf.lost
            )
            for cf in by_pk.values()
        ),
        campaign.house_rules,
    )
    rows = []
    for standing in table:
        cf = by_pk[standing.key]
        rows.append(
            StandingRow(
                campaign_force=cf,
                name=standing.name,
                player=cf.player.get_username(),
                played=standing.played,
                won=standing.won,
                drawn=standing.drawn,
                lost=standing.lost,
                points=standing.points,
                resources=cf.balance,
                rating=int((cf.force.evaluation or {}).get("total_cost", 0)),
                retired=cf.retired_at is not None,
            )
        )
    return rows


# --- battles -------------------------------------------------------------------------------


def _battle_details(battles: QuerySet[Battle]) -> QuerySet[Battle]:
    return battles.select_related(
        "campaign", "recorded_by", "confirmed_by", "voided_by", "winner__force"
    ).prefetch_related(
        Prefetch(
            "battle_forces",
            queryset=BattleForce.objects.select_related(
                "campaign_force__force", "campaign_force__player"
            )
            .prefetch_related(
                Prefetch("member_results", queryset=BattleMemberResult.objects.order_by("id"))
            )
            .order_by("id"),
        )
    )


def battles(*, campaign: Campaign, status: str | None = None) -> QuerySet[Battle]:
    """The campaign's battles, newest first, with forces and member results."""
    found = campaign.battles.all()
    if status is not None:
        found = found.filter(status=status)
    return _battle_details(found).order_by("-played_on", "-id")


def get_battle(*, campaign: Campaign, battle_id: int) -> Battle:
    return get_object_or_404(battles(campaign=campaign), pk=battle_id)


def recent_battles(*, campaign: Campaign, limit: int = 10) -> list[Battle]:
    """The latest confirmed battles (three queries whatever the campaign's size)."""
    return list(battles(campaign=campaign, status=Battle.Status.CONFIRMED)[:limit])


def pending_confirmations(*, campaign: Campaign, user: User) -> list[Battle]:
    """Pending battles `user` may confirm: all of them for the organiser; for a player,
    those with a force of theirs in them that someone else recorded."""
    if not user.is_authenticated:
        return []
    pending = campaign.battles.filter(status=Battle.Status.PENDING)
    if campaign.organiser_id != user.pk:
        theirs = BattleForce.objects.filter(
            battle=OuterRef("pk"), campaign_force__player_id=user.pk
        )
        pending = pending.filter(Exists(theirs)).exclude(recorded_by_id=user.pk)
    return list(_battle_details(pending).order_by("played_on", "id"))


def pending_battles(*, campaign: Campaign) -> list[Battle]:
    """Every battle waiting for confirmation, oldest first."""
    return list(battles(campaign=campaign, status=Battle.Status.PENDING).order_by("played_on"))


# --- levels (R16, R17) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LevelUpWaiting:
    member: Member
    campaign_force: CampaignForce
    level: int
    taken: int
    waiting: int


def level_ups_waiting(*, campaign: Campaign) -> list[LevelUpWaiting]:
    """Members of active forces whose XP gives more levels than level-ups taken."""
    rules = campaign.house_rules
    members = Member.objects.filter(
        force__campaign_entry__campaign=campaign,
        force__campaign_entry__retired_at__isnull=True,
    ).select_related("force__campaign_entry__player", "force")
    if len(rules.level_thresholds) > 1:
        members = members.filter(xp__gte=rules.level_thresholds[1])
    waiting = []
    for member in members.order_by("force_id", "position", "id"):
        count = progression.level_ups_waiting(member.xp, len(member.level_ups), rules)
        if count:
            waiting.append(
                LevelUpWaiting(
                    member=member,
                    campaign_force=member.force.campaign_entry,
                    level=progression.level_for_xp(member.xp, rules),
                    taken=len(member.level_ups),
                    waiting=count,
                )
            )
    return waiting


# --- charts ----------------------------------------------------------------------------


def _confirmed_in_order(campaign: Campaign) -> list[Battle]:
    return list(
        campaign.battles.filter(status=Battle.Status.CONFIRMED).order_by("confirmed_at", "id")
    )


def _battle_label(battle: Battle) -> str:
    return f"{battle.played_on.isoformat()} {battle.scenario}"


def resources_history(*, campaign: Campaign) -> dict[str, Any]:
    """Each force's balance at the start and after each confirmed battle (chart data).

    `labels` are "Start" then the battles in the order they were confirmed; each series
    has one value per label, None before the force entered. Voided battles count for
    nothing: their rewards and reversals are left out, as if never recorded.
    """
    battles = _confirmed_in_order(campaign)
    void_ids = set(campaign.battles.filter(status=Battle.Status.VOID).values_list("pk", flat=True))
    forces = list(campaign_forces(campaign=campaign))
    entries = [
        e
        for e in campaign.ledger.order_by("id").values(
            "id", "campaign_force_id", "amount", "battle_id"
        )
        if e["battle_id"] not in void_ids
    ]
    first_id: dict[int, int] = {}
    last_id: dict[int, int] = {}
    for e in entries:
        if e["battle_id"] is not None:
            first_id.setdefault(e["battle_id"], e["id"])
            last_id[e["battle_id"]] = e["id"]
    # A battle's point is taken after the last of its reward entries; "Start" before
    # the first battle's first entry.
    marks: list[int] = []
    for b in battles:
        marks.append(max(last_id.get(b.pk, 0), marks[-1] if marks else 0))
    start_mark = first_id.get(battles[0].pk, 1) - 1 if battles else None
    running: dict[int, int] = {}
    start: dict[int, int] | None = None
    values: list[dict[int, int]] = []
    for e in entries:
        if start is None and start_mark is not None and e["id"] > start_mark:
            start = dict(running)
        while len(values) < len(marks) and e["id"] > marks[len(values)]:
            values.append(dict(running))
        cf_id = e["campaign_force_id"]
        running[cf_id] = running.get(cf_id, 0) + e["amount"]
    if start is None:
        start = dict(running)
    while len(values) < len(marks):
        values.append(dict(running))
    labels = ["Start", *(_battle_label(b) for b in battles)]
    return {
        "labels": labels,
        "battles": [b.pk for b in battles],
        "series": [
            {
                "campaign_force": cf.pk,
                "name": cf.force.name,
                "values": [start.get(cf.pk), *(v.get(cf.pk) for v in values)],
            }
            for cf in forces
        ],
    }


def xp_history(*, campaign: Campaign) -> dict[str, Any]:
    """Each member's XP at the start and after each confirmed battle (chart data).

    Members start with 0 XP (campaign forces enter with none, R16). Members who left
    keep their line under the name they had.
    """
    battles = _confirmed_in_order(campaign)
    index = {b.pk: i for i, b in enumerate(battles)}
    results = BattleMemberResult.objects.filter(
        battle_force__battle__campaign=campaign,
        battle_force__battle__status=Battle.Status.CONFIRMED,
    ).values(
        "member_id",
        "member_name",
        "xp_awarded",
        "battle_force__battle_id",
        "battle_force__campaign_force_id",
    )
    current = Member.objects.filter(force__campaign_entry__campaign=campaign).values(
        "pk", "name", "force__campaign_entry"
    )
    series: dict[Any, dict[str, Any]] = {}
    for m in current.order_by("force__campaign_entry", "position", "pk"):
        series[("m", m["pk"])] = {
            "member": m["pk"],
            "name": m["name"],
            "campaign_force": m["force__campaign_entry"],
            "gains": [0] * len(battles),
        }
    for r in results:
        key = (
            ("m", r["member_id"])
            if r["member_id"] is not None
            else ("gone", r["battle_force__campaign_force_id"], r["member_name"])
        )
        line = series.setdefault(
            key,
            {
                "member": r["member_id"],
                "name": r["member_name"],
                "campaign_force": r["battle_force__campaign_force_id"],
                "gains": [0] * len(battles),
            },
        )
        line["gains"][index[r["battle_force__battle_id"]]] += r["xp_awarded"]
    out = []
    for line in series.values():
        running, values = 0, [0]
        for gain in line.pop("gains"):
            running += gain
            values.append(running)
        out.append({**line, "values": values})
    return {
        "labels": ["Start", *(_battle_label(b) for b in battles)],
        "battles": [b.pk for b in battles],
        "series": out,
    }


def member_history(*, campaign_force: CampaignForce) -> list[BattleMemberResult]:
    """Every confirmed result of the force's members, oldest first (XP over time)."""
    return list(
        BattleMemberResult.objects.filter(
            battle_force__campaign_force=campaign_force,
            battle_force__battle__status=Battle.Status.CONFIRMED,
        )
        .select_related("battle_force__battle", "member")
        .order_by("battle_force__battle__confirmed_at", "battle_force__battle_id", "id")
    )


# --- the log -------------------------------------------------------------------------------


def campaign_log(*, campaign: Campaign, limit: int | None = None) -> QuerySet[CampaignEvent]:
    """Who did what, when: newest first."""
    events = campaign.events.select_related("actor").order_by("-created_at", "-id")
    return events[:limit] if limit is not None else events


# --- the dashboard -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dashboard:
    standings: list[StandingRow]
    recent_battles: list[Battle]
    pending_confirmations: list[Battle]
    level_ups_waiting: list[LevelUpWaiting]
    log: list[CampaignEvent]


def dashboard(*, campaign: Campaign, user: User, recent: int = 10, log: int = 10) -> Dashboard:
    """Everything the campaign's front page shows, in a fixed number of queries."""
    return Dashboard(
        standings=standings(campaign=campaign),
        recent_battles=recent_battles(campaign=campaign, limit=recent),
        pending_confirmations=pending_confirmations(campaign=campaign, user=user),
        level_ups_waiting=level_ups_waiting(campaign=campaign),
        log=list(campaign_log(campaign=campaign, limit=log)),
    )
