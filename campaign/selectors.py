"""Reads of campaigns. Every campaign queryset here is filtered by who is asking.

The dashboard reads (standings, recent battles, pending confirmations, level-ups
waiting) and the charts run a fixed number of queries however many battles a
campaign has: counts and sums happen in the database, rows come back in one query
each, and the rest is plain Python (a test holds them to it).

They also read only their campaign's rows however many battles the site has: every
large table (battles, their forces and members' results, the ledger) is filtered by a
constant (the campaign's id, or its forces' ids), never only through a join or a
correlated subquery. PostgreSQL plans those for a generic key, estimated as the table's
rows over its distinct keys; where a few forces have thousands of battles each, that
estimate made it hash the whole site's battles instead (the standings did, when they
counted battles; a PostgreSQL test counts the rows each plan reads). The standings now
read no battles at all: each campaign force carries its tallies (`campaign.tallies`).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Player
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
    Window,
    prefetch_related_objects,
)
from django.db.models.fields.json import KeyTextTransform
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
from roster import selectors as roster_selectors
from roster.models import Member
from roster.presenters import advancement_entry

User = Player | AnonymousUser


# --- campaigns -----------------------------------------------------------------------------


def campaigns_for(*, user: User) -> QuerySet[Campaign]:
    """The campaigns `user` organises or plays in; none for an anonymous visitor.

    Their ids come from two index reads joined by a UNION: written as "organiser or
    player" (an OR), the filter reads every campaign on the site, and the planner,
    expecting many rows, hashes every user to join the organisers."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    organised = Campaign.objects.filter(organiser_id=user.pk).order_by().values("pk")
    playing = CampaignPlayer.objects.filter(user_id=user.pk).order_by().values("campaign_id")
    return Campaign.objects.filter(pk__in=organised.union(playing)).select_related("organiser")


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
    """A force of an already-authorised campaign, or 404; its stored evaluation worked out
    again first if the rules' content changed since (issue #13, as a roster read does)."""
    entry = get_object_or_404(campaign_forces(campaign=campaign), pk=campaign_force_id)
    roster_selectors.refreshed([entry.force])
    return entry


# --- Resources (R15) -----------------------------------------------------------------------


def balance(*, campaign_force: CampaignForce) -> int:
    """The force's Resources to spend (R15): the ledger's sum, as the write path keeps it
    on the force's row (`campaign.tallies`). Read from the row, not the instance given,
    which may be older than the last write."""
    return CampaignForce.objects.values_list("balance", flat=True).get(pk=campaign_force.pk)


def ledger_with_running_balance(*, campaign_force: CampaignForce) -> QuerySet[LedgerEntry]:
    """The force's ledger, oldest first, each entry with `running_balance` after it.

    The battles and reversed entries it names are prefetched by id rather than joined:
    joined, PostgreSQL hashed the whole site's battles (or ledger) once the force had a
    few hundred entries."""
    return (
        campaign_force.ledger_entries.select_related("created_by")
        .prefetch_related(
            Prefetch("battle", queryset=Battle.objects.order_by()),
            Prefetch("reverses", queryset=LedgerEntry.objects.order_by()),
        )
        .annotate(running_balance=Window(Sum("amount"), order_by="id"))
        .order_by("id")
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


def _standing_forces(campaign: Campaign) -> list[CampaignForce]:
    """The campaign's forces with their force (its name, and the rating as one number of
    the stored evaluation, not the whole JSON) and player: one query."""
    return list(
        campaign.forces.select_related("force", "player")
        .defer("force__evaluation")
        .annotate(rating=KeyTextTransform("total_cost", "force__evaluation"))
        .order_by("id")
    )


def standings(*, campaign: Campaign) -> list[StandingRow]:
    """The table, from confirmed battles only (R14, R15a): one query, the campaign's
    forces with the tallies the write path keeps on them (won, drawn, lost, balance;
    `campaign.tallies`), so its cost follows the campaign's forces, never its battles.
    Points and order come from the house rules in force now (`progression.standings`)."""
    return _standings_of(campaign, _standing_forces(campaign))


def _standings_of(campaign: Campaign, forces: list[CampaignForce]) -> list[StandingRow]:
    by_pk = {cf.pk: cf for cf in forces}
    table = progression.standings(
        (
            progression.Record(
                key=cf.pk, name=cf.force.name, won=cf.won, drawn=cf.drawn, lost=cf.lost
            )
            for cf in forces
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
                rating=int(cf.rating or 0),  # type: ignore[attr-defined]  # annotated by the query
                retired=cf.retired_at is not None,
            )
        )
    return rows


# --- battles -------------------------------------------------------------------------------


def _battle_details(battles: QuerySet[Battle], *, with_results: bool = True) -> QuerySet[Battle]:
    # Battles show their forces by name (each battle force's `campaign_force.force`;
    # `winner` is only ever compared by id), so the forces' stored evaluations, kilobytes
    # of JSON each, stay in the database instead of being decoded for every row.
    sides = (
        BattleForce.objects.select_related("campaign_force__force", "campaign_force__player")
        .defer("campaign_force__force__evaluation")
        .order_by("id")
    )
    if with_results:
        sides = sides.prefetch_related(
            Prefetch("member_results", queryset=BattleMemberResult.objects.order_by("id"))
        )
    return battles.select_related(
        "campaign", "recorded_by", "confirmed_by", "voided_by"
    ).prefetch_related(Prefetch("battle_forces", queryset=sides))


def battles(*, campaign: Campaign, status: str | None = None) -> QuerySet[Battle]:
    """The campaign's battles, newest first, with forces and member results."""
    found = campaign.battles.all()
    if status is not None:
        found = found.filter(status=status)
    return _battle_details(found).order_by("-played_on", "-id")


def get_battle(*, campaign: Campaign, battle_id: int) -> Battle:
    return get_object_or_404(battles(campaign=campaign), pk=battle_id)


def recent_battles(*, campaign: Campaign, limit: int = 10) -> list[Battle]:
    """The latest confirmed battles with their sides and outcomes, without members'
    results (a list shows who won, not who did what): two queries, whatever the size."""
    found = campaign.battles.filter(status=Battle.Status.CONFIRMED)
    return list(_battle_details(found, with_results=False).order_by("-played_on", "-id")[:limit])


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
    # Listed by name: each member's force evaluation would be decoded once per member.
    members = members.defer("force__evaluation")
    return _level_ups_of(_with_level_ups(members, rules), rules, lambda m: m.force.campaign_entry)


def _with_level_ups(members: QuerySet[Member], rules: progression.HouseRules) -> QuerySet[Member]:
    """Only members with the XP for a level above the first can have one waiting."""
    if len(rules.level_thresholds) > 1:
        members = members.filter(xp__gte=rules.level_thresholds[1])
    return members.order_by("force_id", "position", "id")


def _level_ups_of(
    members: Iterable[Member],
    rules: progression.HouseRules,
    entry: Callable[[Member], CampaignForce],
) -> list[LevelUpWaiting]:
    """The members with level-ups to take; `entry(member)` is the member's campaign force."""
    waiting = []
    for member in members:
        count = progression.level_ups_waiting(member.xp, len(member.level_ups), rules)
        if count:
            waiting.append(
                LevelUpWaiting(
                    member=member,
                    campaign_force=entry(member),
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

    Long because the chart's lines are built in one pass over the battles.
    """
    battles = _confirmed_in_order(campaign)
    index = {b.pk: i for i, b in enumerate(battles)}
    # The campaign's force ids as constants: battle rows are then read through their
    # forces (see `standings`), not by hashing the site's.
    force_ids = list(campaign.forces.order_by().values_list("pk", flat=True))
    results = BattleMemberResult.objects.filter(
        battle_force__campaign_force_id__in=force_ids,
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
            # A constant for the battles too, so they are read through the campaign.
            battle_force__battle__campaign_id=campaign_force.campaign_id,
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
    pending_battles: list[Battle]
    level_ups_waiting: list[LevelUpWaiting]
    log: list[CampaignEvent]
    my_force: CampaignForce | None  # the viewer's force still playing, if any


# What the dashboard's battle lists show of a battle: when, what, who won, its status
# and who recorded it (the pending list names them; confirm and void check them).
_LISTED_BATTLE = (
    "id",
    "campaign_id",
    "played_on",
    "scenario",
    "status",
    "recorded_by_id",
    "recorded_by__username",
    "winner_id",
)


def dashboard(
    *, campaign: Campaign, user: User | None = None, recent: int = 10, log: int = 10
) -> Dashboard:
    """Everything the campaign's front page shows, in six queries however many battles:
    the forces (standings), the latest confirmed battles, every pending battle, the
    sides of both, the members with level-ups, the log.

    The forces are read once, with their force and player, and everything else names
    them from there: battle sides and level-ups read only their own rows, never the
    forces again. Only the columns the page shows are read (members have kilobytes of
    JSON choices; a battle list shows no one's results)."""
    forces = _standing_forces(campaign)
    by_pk = {cf.pk: cf for cf in forces}
    listed = campaign.battles.select_related("recorded_by").only(*_LISTED_BATTLE)
    recent_battles = list(
        listed.filter(status=Battle.Status.CONFIRMED).order_by("-played_on", "-id")[:recent]
    )
    pending = list(listed.filter(status=Battle.Status.PENDING).order_by("played_on", "id"))
    _attach_sides([*recent_battles, *pending], campaign, by_pk)

    rules = campaign.house_rules
    active = {cf.force_id: cf for cf in forces if cf.retired_at is None}
    members = Member.objects.filter(force_id__in=list(active)).only(
        "id", "force_id", "position", "name", "xp", "level_ups"
    )
    waiting = _level_ups_of(_with_level_ups(members, rules), rules, lambda m: active[m.force_id])
    for item in waiting:
        item.member.force = item.campaign_force.force

    mine = [
        cf
        for cf in active.values()
        if user is not None and user.is_authenticated and cf.player_id == user.pk
    ]
    return Dashboard(
        standings=_standings_of(campaign, forces),
        recent_battles=recent_battles,
        pending_battles=pending,
        level_ups_waiting=waiting,
        log=list(
            campaign.events.only("id", "campaign_id", "created_at", "message").order_by(
                "-created_at", "-id"
            )[:log]
        ),
        my_force=min(mine, key=lambda cf: (cf.entered_at, cf.pk), default=None),
    )


def _attach_sides(
    battles: list[Battle], campaign: Campaign, forces: dict[int, CampaignForce]
) -> None:
    """Read the battles' sides in one query and point them at the forces already read
    (`battle.battle_forces.all()` then needs no query); each battle's campaign is the
    one given."""
    sides = BattleForce.objects.only("id", "battle_id", "campaign_force_id", "outcome")
    prefetch_related_objects(battles, Prefetch("battle_forces", queryset=sides.order_by("id")))
    for battle in battles:
        battle.campaign = campaign
        for side in battle.battle_forces.all():
            side.campaign_force = forces[side.campaign_force_id]


# --- the campaign API --------------------------------------------------------------------


def campaign_forces_with_members(
    *, campaign: Campaign, include_retired: bool = True
) -> QuerySet[CampaignForce]:
    """`campaign_forces` with members prefetched (in document order): a fixed number of
    queries however many forces; each force's ledger `balance` is its tally."""
    return campaign_forces(campaign=campaign, include_retired=include_retired).prefetch_related(
        Prefetch("force__members", queryset=Member.objects.order_by("position", "id"))
    )


def get_campaign_force_with_members(
    *, campaign: Campaign, campaign_force_id: int
) -> CampaignForce:
    """One force of an already-authorised campaign as `campaign_forces_with_members`, or
    404; refreshed first as `get_campaign_force`."""
    entry = get_object_or_404(
        campaign_forces_with_members(campaign=campaign), pk=campaign_force_id
    )
    roster_selectors.refreshed([entry.force])
    return entry


def members_of(*, campaign_force: CampaignForce) -> QuerySet[Member]:
    """The members of an already-authorised campaign force, in document order."""
    return Member.objects.filter(force_id=campaign_force.force_id).order_by("position", "id")


def get_member(*, campaign_force: CampaignForce, member_id: int) -> Member:
    """A member of an already-authorised campaign force, or 404."""
    return get_object_or_404(members_of(campaign_force=campaign_force), pk=member_id)


def ledger_entry_with_running_balance(
    *, campaign_force: CampaignForce, entry_id: int
) -> LedgerEntry:
    """One ledger entry with `running_balance` (the balance after it), or 404."""
    upto = (
        LedgerEntry.objects.filter(campaign_force_id=campaign_force.pk, id__lte=OuterRef("id"))
        .values("campaign_force")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return get_object_or_404(
        campaign_force.ledger_entries.select_related("created_by", "battle", "reverses").annotate(
            running_balance=Subquery(upto, output_field=IntegerField())
        ),
        pk=entry_id,
    )


# --- pages (appended for the campaign pages) -----------------------------------------------


@dataclass(frozen=True, slots=True)
class CampaignSummary:
    """One row of "my campaigns": the numbers the list page shows."""

    campaign: Campaign
    is_organiser: bool
    players: int
    battles_played: int
    pending_for_me: int


def _count(queryset: QuerySet[Any], group: str) -> Subquery:
    return Subquery(
        queryset.values(group).annotate(n=Count("pk")).values("n")[:1],
        output_field=IntegerField(),
    )


def campaign_summaries(*, user: User) -> list[CampaignSummary]:
    """The campaigns `user` organises or plays in, newest first, with players, confirmed
    battles (the count the services keep, `Campaign.battles_played`: counting them here
    would cost more the longer a campaign runs) and the battles waiting for `user` to
    confirm (one query)."""
    if not user.is_authenticated:
        return []
    theirs = BattleForce.objects.filter(battle=OuterRef("pk"), campaign_force__player_id=user.pk)
    waiting = Battle.objects.filter(campaign=OuterRef("pk"), status=Battle.Status.PENDING).filter(
        Q(campaign__organiser_id=user.pk) | (Exists(theirs) & ~Q(recorded_by_id=user.pk))
    )
    found = campaigns_for(user=user).annotate(
        player_count=Coalesce(
            _count(CampaignPlayer.objects.filter(campaign=OuterRef("pk")), "campaign"), 0
        ),
        waiting_for_me=Coalesce(_count(waiting, "campaign"), 0),
    )
    return [
        CampaignSummary(
            campaign=c,
            is_organiser=c.organiser_id == user.pk,
            players=c.player_count,
            battles_played=c.battles_played,
            pending_for_me=c.waiting_for_me,
        )
        for c in found.order_by("-created_at", "-id")
    ]


def campaign_force_detail(*, campaign: Campaign, campaign_force_id: int) -> CampaignForce:
    """A force of an already-authorised campaign with its members and their rolls, or 404."""
    return get_object_or_404(
        campaign_forces(campaign=campaign).prefetch_related(
            Prefetch("force__members", queryset=Member.objects.order_by("position", "id"))
        ),
        pk=campaign_force_id,
    )


def battle_sides(*, campaign: Campaign, campaign_force_ids: list[int]) -> list[CampaignForce]:
    """The campaign's active forces among `campaign_force_ids`, with their members, in
    the order they entered (the record-a-battle form's per-member rows)."""
    return list(
        campaign_forces(campaign=campaign, include_retired=False)
        .filter(pk__in=campaign_force_ids)
        .prefetch_related(
            Prefetch("force__members", queryset=Member.objects.order_by("position", "id"))
        )
    )


@dataclass(frozen=True, slots=True)
class ForceEntryOption:
    """One of the player's freeform forces, and why it cannot enter (None if it can)."""

    force: Any  # roster.models.Force
    reason: str | None


def force_entry_options(*, campaign: Campaign, user: User) -> list[ForceEntryOption]:
    """The player's own freeform forces and whether each may enter the campaign: legal
    with the starting Resources (R10, R11), no XP and no level-ups yet (R16)."""
    from roster import engine
    from roster import selectors as roster_selectors
    from rules.loader import get_catalogue

    if not user.is_authenticated:
        return []
    rules = campaign.house_rules
    catalogue = get_catalogue()
    from roster.models import SkillRoll

    forces = (
        roster_selectors.forces_for(user=user)
        .filter(campaign_entry__isnull=True)
        .prefetch_related(
            Prefetch(
                "members",
                queryset=Member.objects.order_by("position", "id").prefetch_related(
                    Prefetch("rolls", queryset=SkillRoll.objects.order_by("created_at", "id"))
                ),
            )
        )
        .order_by("name", "id")
    )
    options = []
    for force in forces:
        members = list(force.members.all())
        experienced = [m.name for m in members if m.xp or m.level_ups]
        reason = None
        if experienced:
            reason = "Has XP or level-ups already: " + ", ".join(experienced) + "."
        else:
            document = roster_selectors.force_document(force=force)
            document["resources"] = rules.starting_resources
            evaluation = engine.evaluate(
                document,
                catalogue,
                verified_rolls=roster_selectors.verified_roll_pointers(force=force),
                level_thresholds=rules.level_thresholds,
            )
            if not evaluation.valid:
                problems = [p.message for p in (*evaluation.malformed, *evaluation.errors)]
                reason = " ".join(problems[:2])
                if len(problems) > 2:
                    reason += f" (and {len(problems) - 2} more)"
        options.append(ForceEntryOption(force=force, reason=reason))
    return options


def active_force_of(*, campaign: Campaign, user: User) -> CampaignForce | None:
    """The user's force still playing in the campaign, if any."""
    if not user.is_authenticated:
        return None
    return (
        campaign_forces(campaign=campaign, include_retired=False).filter(player_id=user.pk).first()
    )


@dataclass(frozen=True, slots=True)
class ProgressRow:
    """One confirmed battle of one member: what they did and where it left them."""

    result: BattleMemberResult
    battle: Battle
    outcome: str
    xp_after: int
    level_after: int


@dataclass(frozen=True, slots=True)
class LevelUpLine:
    """A level-up taken, in words, and whether its skill roll is still open."""

    index: int
    label: str
    detail: str
    open_roll: bool


@dataclass(frozen=True, slots=True)
class MemberProgress:
    member: Member | None  # None: no longer in the force (kept under the name they had)
    name: str
    xp: int
    level: int
    level_ups_taken: int
    level_ups_waiting: int
    next_level_xp: int | None
    level_ups: list[LevelUpLine]
    rolls: list[Any]  # roster.models.SkillRoll, level-up rolls only, oldest first
    rows: list[ProgressRow]

    @property
    def open_roll(self) -> LevelUpLine | None:
        return next((line for line in self.level_ups if line.open_roll), None)


def advancement_words(
    advancement: dict[str, Any], society: Any, catalogue: Any
) -> tuple[str, str]:
    """A level-up (or any advancement) as (label, detail), in the member builder's words
    (`roster.presenters.advancement_entry`: "+2 HP", never a line number it does not show)."""
    entry = advancement_entry(advancement, society, catalogue)
    return entry.label, entry.detail


def force_progress(*, campaign_force: CampaignForce) -> list[MemberProgress]:
    """Each member's XP, level and level-ups over time (R16, R17): current members in
    roster order, then members who left (under the name they had). Four queries.

    Long because each member's progress is built from the same four reads, in one pass.
    """
    from roster.models import SkillRoll
    from rules.loader import get_catalogue

    rules = campaign_force.campaign.house_rules
    catalogue = get_catalogue()
    results = member_history(campaign_force=campaign_force)
    members = list(Member.objects.filter(force_id=campaign_force.force_id).order_by("position"))
    rolls: dict[int, list[SkillRoll]] = {}
    for roll in SkillRoll.objects.filter(
        member__force_id=campaign_force.force_id, slot__startswith="level_ups/"
    ).order_by("created_at", "id"):
        rolls.setdefault(roll.member_id, []).append(roll)
    by_key: dict[Any, list[BattleMemberResult]] = {}
    for r in results:
        key = r.member_id if r.member_id is not None else ("gone", r.member_name)
        by_key.setdefault(key, []).append(r)

    def rows_for(found: list[BattleMemberResult]) -> list[ProgressRow]:
        running, rows = 0, []
        for r in found:
            running += r.xp_awarded
            rows.append(
                ProgressRow(
                    result=r,
                    battle=r.battle_force.battle,
                    outcome=r.battle_force.get_outcome_display(),
                    xp_after=running,
                    level_after=progression.level_for_xp(running, rules),
                )
            )
        return rows

    out = []
    for m in members:
        level = progression.level_for_xp(m.xp, rules)
        society = catalogue.societies.get(m.society)
        lines = []
        for i, adv in enumerate(m.level_ups):
            label, detail = advancement_words(adv, society, catalogue)
            line = society.lines.get(adv.get("line")) if society else None
            lines.append(
                LevelUpLine(
                    index=i,
                    label=label,
                    detail=detail,
                    open_roll=bool(line and line.kind == "skill" and not adv.get("skill")),
                )
            )
        out.append(
            MemberProgress(
                member=m,
                name=m.name,
                xp=m.xp,
                level=level,
                level_ups_taken=len(m.level_ups),
                level_ups_waiting=progression.level_ups_waiting(m.xp, len(m.level_ups), rules),
                next_level_xp=(
                    rules.level_thresholds[level] if level < len(rules.level_thresholds) else None
                ),
                level_ups=lines,
                rolls=rolls.get(m.pk, []),
                rows=rows_for(by_key.get(m.pk, [])),
            )
        )
    for key, found in by_key.items():
        if isinstance(key, tuple):
            rows = rows_for(found)
            out.append(
                MemberProgress(
                    member=None,
                    name=key[1],
                    xp=rows[-1].xp_after,
                    level=rows[-1].level_after,
                    level_ups_taken=0,
                    level_ups_waiting=0,
                    next_level_xp=None,
                    level_ups=[],
                    rolls=[],
                    rows=rows,
                )
            )
    return out


def house_rules_in_words(*, campaign: Campaign) -> list[tuple[str, str, str]]:
    """The campaign's house rules as (setting, label, value in words)."""
    rules = campaign.house_rules
    rows = [
        (name, progression.LABELS[name], progression.setting_in_words(getattr(rules, name)))
        for name in (*progression.HouseRules.number_names(), *progression.HouseRules.flag_names())
    ]
    levels = ", ".join(f"level {i + 1} at {xp}" for i, xp in enumerate(rules.level_thresholds))
    rows.insert(8, ("level_thresholds", progression.LABELS["level_thresholds"], levels))
    return rows


def has_pending_battle(*, campaign_force: CampaignForce) -> bool:
    """A battle of the force waits for confirmation (changes wait until it is settled)."""
    return BattleForce.objects.filter(
        campaign_force=campaign_force, battle__status=Battle.Status.PENDING
    ).exists()


def members_who_fought(*, force_id: int) -> frozenset[int]:
    """Members of the force who took part in a confirmed battle: their creation choices
    are history (R17a, R18a)."""
    return frozenset(
        BattleMemberResult.objects.filter(
            member__force_id=force_id, battle_force__battle__status=Battle.Status.CONFIRMED
        ).values_list("member_id", flat=True)
    )
