"""Every write to a battle: starting it, every action (one step, `act`, for all of them:
the registry in `play.actions` names each action's rule), undo and the end.

An action locks the battle row (`select_for_update`), refuses what the rules or the user's
rights refuse (a `dbd_site.errors.DomainError`, nothing changed), applies the action's rule
(`play.table`) to a copy of the state, and stores the new state, a new `version` and one
log line (with the state before it, for undo) in the same transaction. So two phones
acting at once are served one after the other, and neither action is lost.

Dice are the server's (`random.SystemRandom()` unless a test injects a `random.Random`)
or entered as rolled at the table and marked so (P5).
"""

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaign import services as campaign_services
from campaign.models import Campaign, CampaignForce
from dbd_site.errors import (
    Conflict,
    DomainError,
    Invalid,
    Kind,
    NotAllowed,
    PreconditionFailed,
    Problem,
    declare_codes,
)
from play import bounds, selectors, sharing, signals, table
from play.models import Battle, BattleAction, BattleFigure, BattleSide
from roster.models import Force, Member
from rules.loader import get_catalogue

CODES = declare_codes(
    {
        "force-not-legal": "A battle is played with legal forces only.",
        "campaign-refused": "The campaign refused the battle's record.",
        "invalid-sides": "A battle has two (or, in a campaign, two or more) different forces.",
        "force-not-in-campaign": "The force is not an active force of this campaign.",
    }
)

NOT_ALLOWED_CODES = declare_codes(
    {
        "not-a-side": "Only the players of the battle's sides act in it.",
    },
    Kind.NOT_ALLOWED,
)

CONFLICT_CODES = declare_codes(
    {
        "battle-ended": "The battle has ended; nothing more can be done in it.",
        "nothing-to-undo": "There is no action left to undo.",
    },
    Kind.CONFLICT,
)

CAMPAIGN_MAX_SIDES = bounds.MAX_SIDES
D = TypeVar("D")


def _system_dice() -> random.Random:
    return random.SystemRandom()


def _battle_dice(battle: Battle) -> random.Random:
    """The battle's server dice: the stream of its committed seed, from where its last
    action's dice ended (`play.table.commitment`). A battle started before dice were
    committed to rolls `random.SystemRandom()`."""
    if not battle.dice_seed:
        return _system_dice()
    return table.commitment.DiceStream(battle.dice_seed, start=battle.dice_next)


def _keep_draws(battle: Battle, dice: random.Random) -> list[list[int]]:
    """Where each server die an action drew sits in the battle's stream ([index, faces]),
    for the log; the battle's next dice begin after them."""
    if not isinstance(dice, table.commitment.DiceStream):
        return []
    battle.dice_next = dice.next_index
    return [[drawn.index, drawn.faces] for drawn in dice.drawn]


# --- starting ---------------------------------------------------------------------------


def member_numbers(member: Member, result: Mapping[str, Any]) -> dict[str, Any]:
    """A member's numbers as the table's rules take them (`table.figures.Figure`'s fields
    as JSON, and the role): its evaluation's statistics, defence and skills, its document's
    equipment and spells."""
    return {
        "stats": dict(result["stats"]),
        "defence": dict(result["defence"]),
        "skills": sorted(result["skills"]),
        "equipment": list(member.equipment),
        "spells": list(member.spells),
        "spell_focus": bool(member.spell_focus),
        "mastery": member.mastery,
        "role": member.role,
    }


def figure_numbers(force: Force) -> list[tuple[int | None, str, dict[str, Any]]]:
    """Each member's numbers from the force's stored evaluation and document (member pk,
    name, `member_numbers`)."""
    evaluation = force.evaluation or {}
    results = evaluation.get("members", [])
    members = list(force.members.all())
    return [
        (member.pk, member.name, member_numbers(member, result))
        for member, result in zip(members, results, strict=False)
    ]


def figure_of(battle_figure: BattleFigure) -> table.figures.Figure:
    return table.figures.Figure.from_numbers(battle_figure.name, battle_figure.numbers)


def _clean_scenario(scenario: str) -> str:
    scenario = " ".join(str(scenario).split())
    if not scenario:
        raise Invalid("invalid", "Name the scenario.", pointer="/scenario")
    if len(scenario) > 100:
        raise Invalid("invalid", "A scenario name is at most 100 characters.", pointer="/scenario")
    return scenario


@transaction.atomic
def start_battle(
    *,
    by: User,
    forces: Sequence[Force],
    scenario: str,
    campaign: Campaign | None = None,
    entered_rolls_allowed: bool | None = None,
) -> Battle:
    """Start a battle between `forces` (the caller has read each through a selector).

    One-off: two forces, one of them the starter's (the other theirs too, or shared with
    them by its link). Campaign: two or more active forces of the campaign; the starter
    plays one of them or organises it. Each figure's numbers are copied as they stand.

    Entered rolls (P5): `None` takes the campaign's house rule (a one-off allows them);
    the starter may forbid them in any battle, but not allow them where the campaign
    forbids them. The battle keeps its own copy: a later change of the house rule leaves
    a battle under way as it started.

    Long because the checks, the sides and their figures go in one transaction.
    """
    scenario = _clean_scenario(scenario)
    entered_rolls_allowed = _entered_rolls(campaign, entered_rolls_allowed)
    ids = [f.pk for f in forces]
    most = CAMPAIGN_MAX_SIDES if campaign is not None else 2
    if len(set(ids)) != len(ids) or not 2 <= len(ids) <= most:
        raise Invalid(
            "invalid-sides",
            f"Choose {'2 to ' + str(most) if campaign else 'two'} different forces.",
            pointer="/forces",
        )
    problems: list[Problem] = []
    entries: dict[int, CampaignForce] = {}
    if campaign is not None:
        entries = {
            cf.force_id: cf
            for cf in CampaignForce.objects.filter(
                campaign=campaign, force_id__in=ids, retired_at__isnull=True
            )
        }
    for i, force in enumerate(forces):
        if not force.is_legal:
            problems.append(
                Problem(
                    f"/forces/{i}",
                    "force-not-legal",
                    f"{force.name} is not legal; fix it before playing.",
                )
            )
        if campaign is not None and force.pk not in entries:
            problems.append(
                Problem(
                    f"/forces/{i}",
                    "force-not-in-campaign",
                    f"{force.name} is not an active force of {campaign.name}.",
                )
            )
    if problems:
        raise Invalid.of(problems)
    owners = {f.owner_id for f in forces}
    if by.pk not in owners and not (campaign is not None and campaign.organiser_id == by.pk):
        raise NotAllowed("not-a-side", "Start a battle with one of your own forces.")

    battle = Battle.objects.create(
        created_by=by,
        campaign=campaign,
        scenario=scenario,
        entered_rolls_allowed=entered_rolls_allowed,
        state={},
        dice_seed=(seed := table.commitment.new_seed()),
        dice_commitment=table.commitment.commitment_of(seed),  # published from now on
    )
    placed: dict[str, tuple[int, table.figures.Figure]] = {}
    invitations: list[BattleSide] = []
    for position, force in enumerate(forces):
        # Someone else's force from its share link: the starter plays it, its owner is
        # invited to take it over (`play.sharing`).
        player, invited = sharing.side_player(force, by=by, in_campaign=campaign is not None)
        side = BattleSide.objects.create(
            battle=battle,
            position=position,
            player_id=player,
            invited_id=invited,
            force=force,
            force_name=force.name,
            campaign_force=entries.get(force.pk),
        )
        if invited is not None:
            invitations.append(side)
        for index, (member_pk, name, numbers) in enumerate(figure_numbers(force)):
            bf = BattleFigure.objects.create(
                side=side, position=index, member_id=member_pk, name=name, numbers=numbers
            )
            placed[str(bf.pk)] = (position, figure_of(bf))
    battle.state = table.state.new_state(placed)
    battle.save(update_fields=["state"])
    BattleAction.objects.create(
        battle=battle,
        seq=1,
        kind="start",
        actor=by,
        words=f"{_name(by)} started {scenario}: " + " against ".join(f.name for f in forces) + ".",
        state_before=battle.state,
    )
    for side in invitations:
        signals.side_invited.send(Battle, battle=battle, side=side, by=by)
    return battle


def _entered_rolls(campaign: Campaign | None, asked: bool | None) -> bool:
    allowed = campaign is None or campaign.entered_rolls_allowed
    if asked and not allowed:
        raise Invalid(
            "entered-rolls-forbidden",
            "This campaign's house rules take the server's dice only.",
            pointer="/entered_rolls_allowed",
        )
    return allowed if asked is None else asked


def _name(user: User | None) -> str:
    return user.get_username() if user is not None else "Someone"


# --- the action frame -------------------------------------------------------------------


def _lock(battle_id: int) -> Battle:
    return Battle.objects.select_for_update().get(pk=battle_id)


def _player_sides(sides: Sequence[BattleSide], by: User) -> frozenset[int]:
    """The sides a user plays in the battle (P9: one holding several acts for all); none:
    refused, they may watch."""
    held = frozenset(side.position for side in sides if side.player_id == by.pk)
    if not held:
        raise NotAllowed("not-a-side", "Only the battle's players act in it; you may watch.")
    return held


def _figures(battle: Battle) -> dict[str, table.figures.Figure]:
    """The battle's figures as the rules take them, by id (the one conversion)."""
    return {
        str(f.pk): figure_of(f)
        for f in BattleFigure.objects.filter(side__battle=battle).order_by("pk")
    }


def act(
    *,
    battle: Battle,
    by: User,
    kind: str,
    rule: Callable[[table.state.Table, D], table.state.Outcome],
    declared: D,
    dice: object = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """Every action's service step (the registry's, `play.actions`): `rule` (in
    `play.table`) on `declared`, stored as a log line of `kind`."""
    return _act(battle, by, kind, rule, declared, dice=dice, rng=rng, if_match=if_match)


def _act(
    battle: Battle,
    by: User,
    kind: str,
    rule: Callable[[table.state.Table, D], table.state.Outcome],
    declared: D,
    *,
    dice: object = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """The one place an action is stored: lock the battle, check who acts and when, apply
    the action's rule (through `table.decisions.run`) to a copy of the state with the
    action's dice and the sides the user plays (P9), and store the new state, a new
    version and the log line, all in one transaction.

    Long because it is one action's steps in order under the battle's lock.
    """
    with transaction.atomic():
        locked = _lock(battle.pk)
        sides = list(locked.sides.all())
        player_sides = _player_sides(sides, by)
        if locked.status != Battle.Status.PLAYING:
            raise Conflict("battle-ended", "The battle has ended.")
        if if_match is not None and if_match != locked.version:
            raise PreconditionFailed(
                "precondition-failed",
                f"The battle moved on to version {locked.version}; read it again.",
            )
        # The state as read stays as it was, for the log (undo restores it); the rule
        # changes a copy.
        before = locked.state
        last = locked.actions.order_by("-seq").values_list("seq", flat=True).first() or 0
        rolled = table.dice.Dice(
            rng or _battle_dice(locked), dice, allowed=locked.entered_rolls_allowed
        )
        t = table.state.Table(
            state=copy.deepcopy(table.state.upgraded(before)),
            figures=_figures(locked),
            sides=[side.force_name for side in sides],
            dice=rolled,
            catalogue=get_catalogue(),
            seq=last + 1,
            player_sides=player_sides,
        )
        outcome = table.decisions.run(t, rule, declared)
        rolled.finish()
        entered = rolled.were_entered and bool(rolled.rolled)
        action = BattleAction.objects.create(
            battle=locked,
            seq=last + 1,
            kind=kind,
            actor=by,
            words=outcome.words + (" (dice entered as rolled)" if entered else ""),
            # "side": whose action it is (P9), for undo; None: the battle's own.
            detail={**outcome.detail, "side": t.acting_side},
            dice=rolled.rolled,
            dice_drawn=_keep_draws(locked, rolled.rng),
            entered=entered,
            events=list(outcome.events),
            state_before=before,
        )
        locked.state = t.state
        locked.version += 1
        locked.save(update_fields=["state", "version", "dice_next", "updated_at"])
        battle.state, battle.version = locked.state, locked.version
        return action


# --- before rolling: the odds -----------------------------------------------------------


def plan_attack(
    battle: Battle, declaration: table.attacks.AttackDeclaration
) -> table.attacks.AttackPlan:
    """The attack as declared, before rolling (needed roll, chance, expected damage)."""
    return table.attacks.plan_declared(
        table.state.upgraded(battle.state),
        _figures(battle),
        declaration,
        get_catalogue().equipment,
    )


def plan_spell(battle: Battle, declaration: table.spells.Cast) -> table.spells.SpellPlan:
    """A spell as declared, before rolling: its dice, Difficulty and each tier's chance."""
    return table.spells.plan_declared(
        table.state.upgraded(battle.state),
        _figures(battle),
        declaration,
        get_catalogue().spells,
    )


def plan_spell_attack(
    battle: Battle, declaration: table.spell_attacks.SpellAttack
) -> table.attacks.AttackPlan:
    """The waiting cast's attack on one target as declared, before rolling (its odds)."""
    return table.spell_attacks.plan_declared(
        table.state.upgraded(battle.state), _figures(battle), declaration, get_catalogue()
    )[2]


@transaction.atomic
def undo(*, battle: Battle, by: User, if_match: int | None = None) -> BattleAction:
    """Undo the last action not yet undone (last first, P5): its state before comes back.
    A player undoes their own side's actions only (P9); the battle's own (initiative, a
    new turn) either player may undo."""
    locked = _lock(battle.pk)
    player_sides = _player_sides(list(locked.sides.all()), by)
    if locked.status != Battle.Status.PLAYING:
        raise Conflict("battle-ended", "The battle has ended.")
    if if_match is not None and if_match != locked.version:
        raise PreconditionFailed(
            "precondition-failed", f"The battle moved on to version {locked.version}."
        )
    last = selectors.last_undoable(locked)
    if last is None:
        raise Conflict("nothing-to-undo", "There is nothing to undo.")
    side = last.detail.get("side")
    if side is not None and side not in player_sides:
        raise NotAllowed(
            "not-your-figure",
            f"The last action is the other side's ({last.words}); its player undoes it.",
        )
    locked.state = last.state_before
    locked.version += 1
    locked.save(update_fields=["state", "version", "updated_at"])
    last.undone_at = timezone.now()
    last.undone_by = by
    last.save(update_fields=["undone_at", "undone_by"])
    battle.state, battle.version = locked.state, locked.version
    return last


# --- ending ---------------------------------------------------------------------------------


def effective_events(battle: Battle) -> list[table.state.Event]:
    """The record's events (P6) from the log's actions not undone."""
    actions = battle.actions.filter(undone_at__isnull=True).order_by("seq")
    return table.record.effective_events(
        table.record.Logged(a.seq, a.kind, a.detail, a.events) for a in actions
    )


def record_from_log(battle: Battle) -> dict[str, table.record.MemberRecord]:
    return table.record.record_from(battle.state, effective_events(battle))


@transaction.atomic
def end_battle(
    *,
    battle: Battle,
    by: User,
    winner: int | None,
    objectives: Mapping[int | str, int] | None = None,
    played_on: Any = None,
    if_match: int | None = None,
) -> Battle:
    """End the battle: the R14 record from the log (P6) with the players' objectives and
    result (`winner` is a side's position, None a draw). In a campaign it becomes the
    pending battle that another side confirms (R14a), through `campaign.services`.

    Long because the record, its checks and the campaign's battle are made in one
    transaction.
    """
    locked = _lock(battle.pk)
    sides = list(locked.sides.all())
    _player_sides(sides, by)
    if locked.status != Battle.Status.PLAYING:
        raise Conflict("battle-ended", "The battle has ended.")
    if if_match is not None and if_match != locked.version:
        raise PreconditionFailed("precondition-failed", "The battle moved on; read it again.")
    if winner is not None and (isinstance(winner, bool) or winner not in range(len(sides))):
        raise Invalid(
            "invalid", "The winner is one of the sides, or none for a draw.", pointer="/winner"
        )
    figures = {str(f.pk): f for f in BattleFigure.objects.filter(side__battle=locked)}
    objectives = dict(objectives or {})
    problems: list[Problem] = []
    for key, count in objectives.items():
        if str(key) not in figures:
            problems.append(Problem(f"/objectives/{key}", "not-found", f"No figure {key}."))
        elif isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 10:
            problems.append(
                Problem(f"/objectives/{key}", "invalid", "Objectives are 0 to 10 (R14b).")
            )
    if problems:
        raise Invalid.of(problems)
    lines = record_from_log(locked)
    record = {
        "winner": winner,
        "sides": [
            {
                "force": side.force_name,
                "members": [
                    {
                        "figure": int(fid),
                        "name": figures[fid].name,
                        "unconscious": line.unconscious,
                        "out_of_action": line.out_of_action,
                        "enemies_out_of_action": line.enemies_out_of_action,
                        "objectives": int(objectives.get(int(fid), objectives.get(fid, 0))),
                    }
                    for fid, line in lines.items()
                    if figures[fid].side_id == side.pk
                ],
            }
            for side in sides
        ],
    }
    if locked.campaign is not None:
        locked.recorded_battle = _record_in_campaign(locked, by, sides, figures, record, played_on)
    locked.record = record
    locked.status = Battle.Status.ENDED
    locked.version += 1
    locked.save(update_fields=["record", "status", "version", "recorded_battle", "updated_at"])
    last = locked.actions.order_by("-seq").values_list("seq", flat=True).first() or 0
    result = "a draw" if winner is None else f"won by {sides[winner].force_name}"
    waiting = table.decisions.pending(table.state.upgraded(locked.state))
    passed = "; ".join(
        f"{table.decisions.KIND_WORDS[d['kind']]} for {figures[d['figure']].name}"
        for d in waiting
        if d["figure"] in figures
    )
    BattleAction.objects.create(
        battle=locked,
        seq=last + 1,
        kind="end",
        actor=by,
        words=f"{_name(by)} ended the battle: {result}."
        + (f" Passed, unanswered: {passed}." if passed else ""),
        state_before=locked.state,
    )
    return locked


def _record_in_campaign(
    battle: Battle,
    by: User,
    sides: Sequence[BattleSide],
    figures: Mapping[str, BattleFigure],
    record: Mapping[str, Any],
    played_on: Any,
) -> Any:
    assert battle.campaign is not None  # called for a campaign's battle only
    results: dict[CampaignForce, list[campaign_services.MemberOutcome]] = {}
    members = {
        m.pk: m
        for m in Member.objects.filter(
            pk__in=[f.member_id for f in figures.values() if f.member_id]
        )
    }
    for side, side_record in zip(sides, record["sides"], strict=True):
        if side.campaign_force is None:
            raise Invalid("force-not-in-campaign", f"{side.force_name} left the campaign.")
        outcomes = []
        for line in side_record["members"]:
            member_id = figures[str(line["figure"])].member_id
            if member_id is None or member_id not in members:
                continue  # retired since: their history stays in this battle's log
            outcomes.append(
                campaign_services.MemberOutcome(
                    member=members[member_id],
                    unconscious=line["unconscious"],
                    out_of_action=line["out_of_action"],
                    enemies_out_of_action=line["enemies_out_of_action"],
                    objectives=line["objectives"],
                )
            )
        results[side.campaign_force] = outcomes
    winner = record["winner"]
    try:
        return campaign_services.record_battle(
            campaign=battle.campaign,
            by=by,
            played_on=played_on or timezone.localdate(),
            scenario=battle.scenario,
            winner=None if winner is None else sides[winner].campaign_force,
            results=results,
        )
    except DomainError:
        raise
    except ValueError as error:  # the campaign's refusals before they became DomainErrors
        raise Invalid("campaign-refused", str(error), pointer="") from error
