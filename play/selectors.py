"""Reading battles, filtered by user, with the campaigns' rules of who sees what.

A battle is seen by its sides' players and its starter; a campaign battle also by the
campaign's organiser and players (as they see its recorded battles); anyone with the
spectator link reads it. Only the sides' players act (`may_act`).
"""

import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet

from campaign.models import Campaign, CampaignPlayer
from dbd_site.errors import NotFound
from play import table
from play.models import Battle, BattleAction, BattleFigure, BattleSide
from roster.models import Force
from rules.loader import get_catalogue

User = AbstractBaseUser | AnonymousUser


def _ways_to_see(user: User) -> list[Q]:
    """Each way a user may see a battle (the module's docstring), as a condition on the
    battle's row. The user's sides and campaigns are plain (uncorrelated) subqueries:
    PostgreSQL reads each once, hashed, and Django builds them in about 1.5 ms less than
    correlated EXISTS (bench/findings.md)."""
    return [
        Q(created_by_id=user.pk),
        Q(pk__in=BattleSide.objects.filter(player_id=user.pk).values("battle_id")),
        Q(campaign__organiser_id=user.pk),
        Q(campaign_id__in=CampaignPlayer.objects.filter(user_id=user.pk).values("campaign_id")),
    ]


def battles_for(*, user: User) -> QuerySet[Battle]:
    """The battles a user may see, to look one up by id: the ways to see one in an `OR`,
    which PostgreSQL checks on the one row the id finds. Every battle request and every
    watcher's poll reads through here. A list reads `battle_list_for` instead."""
    if not user.is_authenticated:
        return Battle.objects.none()
    return Battle.objects.filter(reduce(operator.or_, _ways_to_see(user)))


# What a list of battles shows (the page and the API): not the state or the record, which
# are the bulk of a battle's row.
LIST_FIELDS = ("scenario", "status", "campaign", "updated_at")


def battle_list_for(*, user: User) -> QuerySet[Battle]:
    """The battles a user may see, for a list, latest first: the same ways to see one
    (`_ways_to_see`), each read through its own index, joined in a `UNION` that is sorted
    and cut to the page. An `OR` across the sides and campaigns cannot use an index, so as
    a list it read every battle on the site (10 ms more at 20,000 battles,
    bench/findings.md); and a `UNION` of ids joined back to the battles may still be
    hash-joined to the whole table when PostgreSQL guesses a campaign holds many battles.
    This reads the user's own battles, however many the site holds.

    A `UNION` can be counted, sorted and sliced but not filtered or prefetched: a caller
    reads its page, then `prefetch_related_objects(page, "sides")`."""
    if not user.is_authenticated:
        return Battle.objects.none()
    first, *rest = (
        Battle.objects.filter(way).only(*LIST_FIELDS).order_by() for way in _ways_to_see(user)
    )
    return first.union(*rest).order_by("-updated_at", "-id")


def live_battles_in(*, campaign: Campaign, limit: int = 10) -> list[Battle]:
    """The battles still being played in a campaign whose reader is already authorised
    for it (its dashboard): campaign players see the campaign's battles (`battles_for`).
    The latest moved first, with their sides. Read without `battles_for`'s subqueries,
    which cost the dashboard 1.5-2 ms in the bench and would filter nothing here."""
    battles = Battle.objects.filter(campaign=campaign, status=Battle.Status.PLAYING)
    return list(battles.prefetch_related("sides").order_by("-updated_at")[:limit])


def get_battle(*, user: User, battle_id: int) -> Battle:
    """A battle the user may see, or 404 (also for other people's)."""
    found = list(battles_for(user=user).select_related("campaign").filter(pk=battle_id)[:1])
    battle = found[0] if found else None
    if battle is None:
        raise NotFound("not-found", "No such battle.")
    return battle


def battle_version(*, user: User, battle_id: int) -> int:
    """The version of a battle the user may see (404 otherwise), and nothing else: what an
    idle poll compares before it reads or renders anything."""
    found = list(battles_for(user=user).filter(pk=battle_id).values_list("version", flat=True)[:1])
    if not found:
        raise NotFound("not-found", "No such battle.")
    return found[0]


def battle_version_by_token(*, token: str) -> int:
    found = list(
        Battle.objects.filter(spectator_token=token).values_list("version", flat=True)[:1]
    )
    if not found:
        raise NotFound("not-found", "No such battle.")
    return found[0]


def get_battle_by_token(*, token: str) -> Battle:
    """The battle a spectator link names, or 404."""
    battle = Battle.objects.select_related("campaign").filter(spectator_token=token).first()
    if battle is None:
        raise NotFound("not-found", "No such battle.")
    return battle


def may_act(*, battle: Battle, user: User) -> bool:
    return bool(
        user.is_authenticated
        and BattleSide.objects.filter(battle=battle, player_id=user.pk).exists()
    )


def forces_to_play(*, user: User) -> QuerySet[Force]:
    """The user's legal forces, to start a battle with."""
    if not user.is_authenticated:
        return Force.objects.none()
    return Force.objects.filter(owner_id=user.pk).order_by("name")


def shared_force_from_link(*, link: str) -> Force:
    """The force an opponent's share link (or its token) names, or 404."""
    token = str(link).strip().rstrip("/").rsplit("/", 1)[-1]
    force = Force.objects.filter(share_token=token).first() if token else None
    if force is None:
        raise NotFound("not-found", "No force is shared by that link.", pointer="/opponent_link")
    return force


# --- the battle as shown ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FigureView:
    id: int
    side: int
    name: str
    numbers: dict[str, Any]
    state: table.state.FigureState

    @property
    def status_words(self) -> str:
        return table.figures.status_words(self.state["status"])

    @property
    def markers(self) -> list[tuple[str, str, int]]:
        return [
            (k, table.state.MARKERS.get(k, k), n) for k, n in sorted(self.state["markers"].items())
        ]

    @property
    def figure(self) -> table.figures.Figure:
        return table.figures.Figure.from_numbers(self.name, self.numbers)


@dataclass(frozen=True, slots=True)
class SideView:
    position: int
    force_name: str
    player_id: int
    player_name: str
    figures: list[FigureView]


@dataclass(frozen=True, slots=True)
class TransferOffer:
    """Right after a hit that dealt damage, the defender may move some onto friends (P3)."""

    target: FigureView
    damage: int
    friends: list[FigureView]


@dataclass(frozen=True, slots=True)
class SpellAttacksView:
    """A cast waiting for its attacks to be rolled: its profile and whom it may attack."""

    caster: FigureView
    successes: int
    attacks: table.spell_attacks.SpellAttacks
    attacked: list[FigureView]
    targets: list[FigureView]  # the figures it may still attack
    targets_left: int | None  # None: any number (every figure in the radius)


@dataclass(frozen=True, slots=True)
class BattleView:
    battle: Battle
    sides: list[SideView]
    log: list[BattleAction]
    acting_side: int | None
    can_undo: bool
    transfer: TransferOffer | None = None
    spell_attacks: SpellAttacksView | None = None

    @property
    def figures(self) -> list[FigureView]:
        return [f for side in self.sides for f in side.figures]


def _transfer_offer(battle: Battle, figures: dict[str, FigureView]) -> TransferOffer | None:
    if battle.status != Battle.Status.PLAYING:
        return None
    last = (
        battle.actions.filter(undone_at__isnull=True)
        .exclude(kind="start")
        # "battle" too: the related manager compares each row's battle with this one, and a
        # deferred battle_id would cost a query of its own.
        .only("kind", "detail", "battle")
        .order_by("-seq")
        .first()
    )
    if (
        last is None
        or last.kind not in BattleAction.ATTACK_KINDS
        or len(last.detail.get("results", [])) != 1
        or last.detail.get("check")
    ):
        return None
    damage = last.detail.get("damage", 0)
    target = figures.get(str(last.detail.get("target")))
    if not damage or target is None or target.state["status"] == table.figures.OUT_OF_ACTION:
        return None
    friends = [
        f
        for f in figures.values()
        if f.side == target.side
        and f.id != target.id
        and f.state["status"] == table.figures.ACTIVE
    ]
    return TransferOffer(target, damage, friends) if friends else None


def _spell_attacks(battle: Battle, figures: dict[str, FigureView]) -> SpellAttacksView | None:
    state = battle.state
    pending = table.spell_attacks.pending_spell_attacks(state)
    if battle.status != Battle.Status.PLAYING or pending is None:
        return None
    spell = get_catalogue().spells.get(pending["spell"])
    attacks = (
        None
        if spell is None
        else table.spell_attacks.spell_attacks(
            spell, pending["tier"], pending["successes"], pending["chosen"]
        )
    )
    if attacks is None or pending["caster"] not in figures:
        return None
    attacked = [figures[f] for f in pending["attacked"] if f in figures]
    return SpellAttacksView(
        caster=figures[pending["caster"]],
        successes=pending["successes"],
        attacks=attacks,
        attacked=attacked,
        targets=[
            f
            for fid, f in figures.items()
            if not table.spell_attacks.spell_target_problems(state, fid, attacks)
        ],
        targets_left=None
        if attacks.targets is None
        else max(0, attacks.targets - len(pending["attacked"])),
    )


def battle_view(
    *, battle: Battle, log_limit: int | None = None, can_undo: bool | None = None
) -> BattleView:
    """Everything the battle screen and the API show: three queries, whatever the size.
    The screen shows the latest `log_limit` lines (the API the whole log). `can_undo`
    is asked of the log unless the caller knows it (it has just stored an action)."""
    sides = list(battle.sides.select_related("player").order_by("position"))
    figures = list(
        BattleFigure.objects.filter(side__battle=battle).order_by("side_id", "position")
    )
    # The log in words: not the state each line keeps for undo (the bulk of a row).
    lines = (
        battle.actions.select_related("actor")
        .defer("state_before", "detail", "events")
        .order_by("-seq")
    )
    log = list(lines[:log_limit] if log_limit is not None else lines)
    state = battle.state
    views = []
    for side in sides:
        views.append(
            SideView(
                side.position,
                side.force_name,
                side.player_id,
                side.player.get_username(),
                [
                    FigureView(f.pk, side.position, f.name, f.numbers, state["figures"][str(f.pk)])
                    for f in figures
                    if f.side_id == side.pk
                ],
            )
        )
    figures_by_id = {str(f.id): f for side in views for f in side.figures}
    return BattleView(
        battle=battle,
        sides=views,
        log=log,
        transfer=_transfer_offer(battle, figures_by_id),
        spell_attacks=_spell_attacks(battle, figures_by_id),
        acting_side=table.turn.acting_side(state, len(sides)),
        can_undo=battle.status == Battle.Status.PLAYING
        and (
            can_undo
            if can_undo is not None
            else battle.actions.filter(undone_at__isnull=True)
            .exclude(kind__in=("start", "end"))
            .exists()
        ),
    )
