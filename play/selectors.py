"""Reading battles, filtered by user, with the campaigns' rules of who sees what.

A battle is seen by its sides' players and its starter; a campaign battle also by the
campaign's organiser and players (as they see its recorded battles); anyone with the
spectator link reads it. Only the sides' players act (`may_act`).
"""

import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Player
from django.db.models import Q, QuerySet

from campaign.models import Campaign, CampaignPlayer
from dbd_site.errors import NotFound
from play import table
from play.models import Battle, BattleAction, BattleFigure, BattleSide
from roster.models import Force
from rules.loader import get_catalogue

User = Player | AnonymousUser


def _ways_to_see(user: Player) -> list[Q]:
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


def invitations_for(*, user: User) -> QuerySet[BattleSide]:
    """Sides of battles still being played that others started with the user's shared
    forces, waiting for the user to take them over (`play.sharing`), latest first."""
    if not user.is_authenticated:
        return BattleSide.objects.none()
    return (
        BattleSide.objects.filter(invited_id=user.pk, battle__status=Battle.Status.PLAYING)
        .select_related("battle", "battle__created_by")
        .order_by("-battle__created_at", "-battle_id")
    )


def is_invited(*, user: User, battle_id: int) -> bool:
    """Whether the user is invited to take over a side of the battle (`play.sharing`)."""
    return user.is_authenticated and (
        BattleSide.objects.filter(battle_id=battle_id, invited_id=user.pk).exists()
    )


def get_battle_by_token(*, token: str) -> Battle:
    """The battle a spectator link names, or 404."""
    battle = Battle.objects.select_related("campaign").filter(spectator_token=token).first()
    if battle is None:
        raise NotFound("not-found", "No such battle.")
    return battle


def player_sides(*, battle: Battle, user: User) -> frozenset[int]:
    """The sides of the battle a user plays (P9: they act and undo for these)."""
    if not user.is_authenticated:
        return frozenset()
    return frozenset(
        BattleSide.objects.filter(battle=battle, player_id=user.pk).values_list(
            "position", flat=True
        )
    )


def may_act(*, battle: Battle, user: User) -> bool:
    return bool(player_sides(battle=battle, user=user))


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
    # The owner of the shared force this side plays, invited to take it over (`play.sharing`).
    invited_name: str | None = None


@dataclass(frozen=True, slots=True)
class DecisionView:
    """A decision the attacked side makes after an attack, waiting for its answer (P9)."""

    decision: table.state.Decision
    target: FigureView
    attacker: FigureView | None
    friends: list[FigureView]  # a transfer's possible recipients
    yours: bool  # the reader answers it

    @property
    def id(self) -> int:
        return self.decision["id"]

    @property
    def kind(self) -> str:
        return self.decision["kind"]

    @property
    def damage(self) -> int | None:
        return self.decision.get("damage")

    @property
    def words(self) -> str:
        if self.kind == "transfer":
            return (
                f"{self.target.name} took {self.damage} damage: move some onto friends "
                "(Friendship), or pass."
            )
        return f'{self.target.name} Dodges for Cover {self.decision.get("inches", 2)}".'


@dataclass(frozen=True, slots=True)
class UndoView:
    """What undo would take back, and whose it is (P9)."""

    action: BattleAction
    side: int | None  # None: the battle's own action, either player undoes it
    player: str | None
    yours: bool


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
    undo: UndoView | None = None
    decisions: tuple[DecisionView, ...] = ()
    spell_attacks: SpellAttacksView | None = None
    viewer_sides: frozenset[int] = frozenset()

    @property
    def figures(self) -> list[FigureView]:
        return [f for side in self.sides for f in side.figures]

    @property
    def can_undo(self) -> bool:
        return self.undo is not None and self.undo.yours

    @property
    def transfer(self) -> DecisionView | None:
        """The latest Friendship decision the reader answers, for the screen's form."""
        mine = [d for d in self.decisions if d.kind == "transfer" and d.yours]
        return mine[-1] if mine else None


def _decisions(
    state: table.state.BattleState, figures: dict[str, FigureView], viewer: frozenset[int]
) -> tuple[DecisionView, ...]:
    views = []
    for d in table.decisions.pending(state):
        target = figures.get(d["figure"])
        if target is None:
            continue
        friends = [
            f
            for f in figures.values()
            if f.side == target.side
            and f.id != target.id
            and f.state["status"] == table.figures.ACTIVE
        ]
        views.append(
            DecisionView(d, target, figures.get(d["attacker"]), friends, d["side"] in viewer)
        )
    return tuple(views)


def last_undoable(battle: Battle) -> BattleAction | None:
    """The action undo would take back (last first, P5): not the start, not the end."""
    return (
        battle.actions.filter(undone_at__isnull=True)
        .exclude(kind__in=("start", "end"))
        .order_by("-seq")
        .first()
    )


def _undo(battle: Battle, sides: list[SideView], viewer: frozenset[int]) -> UndoView | None:
    last = last_undoable(battle)
    if last is None:
        return None
    side = last.detail.get("side")
    player = next((s.player_name for s in sides if s.position == side), None)
    yours = bool(viewer) and (side is None or side in viewer)
    return UndoView(last, side, player, yours)


def _spell_attacks(battle: Battle, figures: dict[str, FigureView]) -> SpellAttacksView | None:
    state = table.state.upgraded(battle.state)
    found = table.spell_attacks.waiting(state, get_catalogue().spells)
    if battle.status != Battle.Status.PLAYING or found is None:
        return None
    pending, attacks = found
    if pending["caster"] not in figures:
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
    *,
    battle: Battle,
    log_limit: int | None = None,
    viewer_sides: frozenset[int] = frozenset(),
) -> BattleView:
    """Everything the battle screen and the API show: a few queries, whatever the size.
    The screen shows the latest `log_limit` lines (the API the whole log); `viewer_sides`
    are the sides the reader plays (P9: what they may answer and undo)."""
    sides = list(battle.sides.select_related("player", "invited").order_by("position"))
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
    state = table.state.upgraded(battle.state)
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
                side.invited.get_username() if side.invited is not None else None,
            )
        )
    figures_by_id = {str(f.id): f for side in views for f in side.figures}
    playing = battle.status == Battle.Status.PLAYING
    return BattleView(
        battle=battle,
        sides=views,
        log=log,
        decisions=_decisions(state, figures_by_id, viewer_sides) if playing else (),
        spell_attacks=_spell_attacks(battle, figures_by_id),
        acting_side=table.turn.acting_side(state, len(sides)),
        undo=_undo(battle, views, viewer_sides) if playing else None,
        viewer_sides=viewer_sides,
    )


@dataclass(frozen=True, slots=True)
class ScreenLog:
    """What the screen's log fold is sent: `lines` latest first, and `key`, the log's
    position they bring it to ("<last seq>.<undone count>"). `whole`: the fold's lines
    as they stand (the latest `limit`), to replace what it shows; otherwise only the
    lines after those it shows, to put on top of them, and `follows`, the key of the lines
    they follow: a phone puts them on top only if it still shows exactly those (an answer
    replayed after a lost connection may come after a poll that brought the same lines)."""

    lines: list[BattleAction]
    key: str
    whole: bool
    follows: str = ""


def screen_log(*, battle: Battle, shows: str | None, limit: int) -> ScreenLog:
    """The log's lines the screen's open fold is missing. `shows`: the key of what it
    shows (`ScreenLog.key`), or None for the whole fold. An undo since then strikes a
    line the fold shows: the whole fold again. Two reads, however long the log."""
    undone = battle.actions.filter(undone_at__isnull=False).count()
    lines = (
        battle.actions.select_related("actor")
        .defer("state_before", "detail", "events")
        .order_by("-seq")
    )
    last, _, undos = (shows or "").partition(".")
    whole = not (last.isdigit() and undos.isdigit() and int(undos) == undone)
    if not whole:
        lines = lines.filter(seq__gt=int(last))
    found = list(lines[:limit])
    top = found[0].seq if found else (0 if whole else int(last))
    # More new lines than the fold keeps (a phone back after a long while): the whole fold.
    return ScreenLog(found, f"{top}.{undone}", whole or len(found) >= limit, shows or "")


# --- the dice check ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiceCheck:
    """A battle's committed dice (`play.table.commitment`): the commitment published at
    the start, the seed once the battle has ended (never before), every server die of
    the log in order (undone actions' too), and their check against the revealed seed."""

    battle: Battle
    commitment: str | None  # None: the battle started before dice were committed to
    seed: str | None
    dice: list[table.commitment.LoggedDie]
    words: dict[int, str]  # each action's words, by seq
    verification: table.commitment.Verification | None  # None until the seed is revealed


def dice_commitment(battle: Battle) -> str | None:
    """The SHA-256 published when the battle started."""
    return battle.dice_commitment or None


def revealed_seed(battle: Battle) -> str | None:
    """The seed, once the battle has ended: while it is played, no one may see it."""
    if battle.status != Battle.Status.ENDED or not battle.dice_seed:
        return None
    return battle.dice_seed


def dice_check(*, battle: Battle) -> DiceCheck:
    """The battle's server dice and their check (one query for the log's dice)."""
    dice: list[table.commitment.LoggedDie] = []
    words: dict[int, str] = {}
    lines = (
        battle.actions.filter(entered=False)
        .only("seq", "words", "dice", "dice_drawn", "undone_at", "battle")
        .order_by("seq")
    )
    for line in lines:
        for position, value in enumerate(line.dice):
            drawn = line.dice_drawn[position] if position < len(line.dice_drawn) else None
            dice.append(
                table.commitment.LoggedDie(
                    line.seq,
                    position,
                    value,
                    drawn[0] if drawn else None,
                    drawn[1] if drawn else None,
                    undone=line.undone_at is not None,
                )
            )
            words[line.seq] = line.words
    commitment, seed = dice_commitment(battle), revealed_seed(battle)
    verification = (
        None
        if commitment is None or seed is None
        else table.commitment.verify(commitment, seed, dice)
    )
    return DiceCheck(battle, commitment, seed, dice, words, verification)
