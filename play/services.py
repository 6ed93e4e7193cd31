"""Every write to a battle: one function per action.

Each action locks the battle row (`select_for_update`), refuses what the rules or the
user's rights refuse (a `dbd_site.errors.DomainError`, nothing changed), applies the table's
rules (`play.table`) to a copy of the state, and stores the new state, a new `version` and
one log line (with the state before it, for undo) in the same transaction. So two phones
acting at once are served one after the other, and neither action is lost.

Dice are the server's (`random.SystemRandom()` unless a test injects a `random.Random`)
or entered as rolled at the table and marked so (P5).
"""

import copy
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from campaign import services as campaign_services
from campaign.models import Campaign, CampaignForce
from dbd_site.errors import (
    Conflict,
    DomainError,
    Invalid,
    NotAllowed,
    PreconditionFailed,
    Problem,
    declare_codes,
)
from play import table
from play.models import Battle, BattleAction, BattleFigure, BattleSide
from roster.models import Force, Member
from rules.loader import get_catalogue

declare_codes(
    {
        "battle-ended": "The battle has ended; nothing more can be done in it.",
        "nothing-to-undo": "There is no action left to undo.",
        "force-not-legal": "A battle is played with legal forces only.",
        "not-a-side": "Only the players of the battle's sides act in it.",
        "entered-rolls-forbidden": "This battle (or its campaign) takes the server's dice only.",
        "campaign-refused": "The campaign refused the battle's record.",
        "invalid-sides": "A battle has two (or, in a campaign, two or more) different forces.",
        "force-not-in-campaign": "The force is not an active force of this campaign.",
    }
)

CAMPAIGN_MAX_SIDES = 6


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


def figure_numbers(force: Force) -> list[tuple[int | None, str, dict[str, Any]]]:
    """Each member's numbers from the force's stored evaluation and document (member pk,
    name, `table.figures.Figure` fields as JSON)."""
    evaluation = force.evaluation or {}
    results = evaluation.get("members", [])
    members = list(force.members.all())
    numbers: list[tuple[int | None, str, dict[str, Any]]] = []
    for member, result in zip(members, results, strict=False):
        numbers.append(
            (
                member.pk,
                member.name,
                {
                    "stats": dict(result["stats"]),
                    "defence": dict(result["defence"]),
                    "skills": sorted(result["skills"]),
                    "equipment": list(member.equipment),
                    "spells": list(member.spells),
                    "spell_focus": bool(member.spell_focus),
                    "mastery": member.mastery,
                    "role": member.role,
                },
            )
        )
    return numbers


def figure_of(battle_figure: BattleFigure) -> table.figures.Figure:
    n = battle_figure.numbers
    return table.figures.Figure(
        name=battle_figure.name,
        stats=n["stats"],
        defence=n["defence"],
        skills=frozenset(n["skills"]),
        equipment=tuple(n["equipment"]),
        spells=tuple(n["spells"]),
        spell_focus=n["spell_focus"],
        mastery=n["mastery"],
    )


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
    by: AbstractBaseUser,
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
    for position, force in enumerate(forces):
        side = BattleSide.objects.create(
            battle=battle,
            position=position,
            player_id=force.owner_id,
            force=force,
            force_name=force.name,
            campaign_force=entries.get(force.pk),
        )
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


def _name(user: AbstractBaseUser | None) -> str:
    return user.get_username() if user is not None else "Someone"


# --- the action frame -------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """What an action did: its words, details and dice for the log, its record events."""

    words: str
    detail: dict[str, Any] = field(default_factory=dict)
    dice: list[int] = field(default_factory=list)
    entered: bool = False
    events: list[table.state.Event] = field(default_factory=list)


@dataclass(slots=True)
class ActionFrame:
    """The locked battle as an action sees it: its figures and a state to change."""

    battle: Battle
    state: table.state.BattleState
    figures: dict[str, BattleFigure]
    sides: list[BattleSide]
    rng: random.Random
    entered: Sequence[object] | None

    def figure(self, fid: object, where: str) -> tuple[str, BattleFigure, table.figures.Figure]:
        key = str(fid)
        if key not in self.figures:
            raise Invalid("not-found", f"No figure {fid} in this battle.", pointer=where)
        bf = self.figures[key]
        return key, bf, figure_of(bf)

    def side_of(self, fid: str) -> int:
        return self.state["figures"][fid]["side"]

    def dice(self, count: int) -> tuple[list[int], bool]:
        """`count` d12: the server's, or the ones entered at the table (P5)."""
        if self.entered is None:
            return table.dice.roll_dice(count, self.rng), False
        if not self.battle.entered_rolls_allowed:
            raise Invalid(
                "entered-rolls-forbidden",
                "This battle takes the server's dice only.",
                pointer="/dice",
            )
        return table.dice.check_entered(self.entered, count), True


def _lock(battle_id: int) -> Battle:
    return Battle.objects.select_for_update().get(pk=battle_id)


def _require_side(battle: Battle, sides: Sequence[BattleSide], by: AbstractBaseUser) -> None:
    if not any(side.player_id == by.pk for side in sides):
        raise NotAllowed("not-a-side", "Only the battle's players act in it; you may watch.")


def _act(
    battle: Battle,
    by: AbstractBaseUser,
    kind: str,
    do: Callable[[ActionFrame], Outcome],
    *,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    with transaction.atomic():
        locked = _lock(battle.pk)
        sides = list(locked.sides.all())
        _require_side(locked, sides, by)
        if locked.status != Battle.Status.PLAYING:
            raise Conflict("battle-ended", "The battle has ended.")
        if if_match is not None and if_match != locked.version:
            raise PreconditionFailed(
                "precondition-failed",
                f"The battle moved on to version {locked.version}; read it again.",
            )
        figures = {
            str(f.pk): f for f in BattleFigure.objects.filter(side__battle=locked).order_by("pk")
        }
        # The state as read stays as it was, for the log (undo restores it); the action
        # changes a copy. No action writes to `t.battle.state` (undo tests would show it).
        before = locked.state
        t = ActionFrame(
            locked,
            copy.deepcopy(before),
            figures,
            sides,
            rng or _battle_dice(locked),
            dice,
        )
        outcome = do(t)
        last = locked.actions.order_by("-seq").values_list("seq", flat=True).first() or 0
        action = BattleAction.objects.create(
            battle=locked,
            seq=last + 1,
            kind=kind,
            actor=by,
            words=outcome.words + (" (dice entered as rolled)" if outcome.entered else ""),
            detail=outcome.detail,
            dice=outcome.dice,
            dice_drawn=_keep_draws(locked, t.rng),
            entered=outcome.entered,
            events=list(outcome.events),
            state_before=before,
        )
        locked.state = t.state
        locked.version += 1
        locked.save(update_fields=["state", "version", "dice_next", "updated_at"])
        battle.state, battle.version = locked.state, locked.version
        return action


# --- actions ------------------------------------------------------------------------------


def roll_initiative(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    dice: Sequence[Sequence[object]] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """P1: 1d12 a side, +1 for the side with fewer active figures, ties rolled again.
    Entered dice come as rounds: `[[7, 7], [3, 9]]`."""

    def do(t: ActionFrame) -> Outcome:
        active = table.state.active_counts(t.state, len(t.sides))
        if dice is None:
            result = table.turn.roll_initiative(active, t.rng)
            entered = False
        else:
            if not t.battle.entered_rolls_allowed:
                raise Invalid("entered-rolls-forbidden", "Server dice only.", pointer="/dice")
            if not isinstance(dice, list) or not all(isinstance(r, list) for r in dice):
                raise Invalid("invalid", "Rounds of dice, e.g. [[7, 7], [3, 9]].", pointer="/dice")
            rounds = [
                table.dice.check_entered(r, len(r), f"/dice/{i}") for i, r in enumerate(dice)
            ]
            result = table.turn.initiative_from(rounds, table.turn.initiative_bonuses(active))
            entered = True
        table.turn.set_initiative(t.state, result)
        winner = t.sides[result.winner].force_name
        rolls = "; then ".join(", ".join(map(str, r)) for r in result.rolls)
        bonus = [t.sides[i].force_name for i, b in enumerate(result.bonuses) if b]
        return Outcome(
            f"Turn {t.state['turn']} initiative: rolled {rolls}"
            + (f" (+1 for {', '.join(bonus)})" if bonus else "")
            + f"; {winner} activates first.",
            detail={"winner": result.winner, "bonuses": list(result.bonuses)},
            dice=[d for r in result.rolls for d in r],
            entered=entered,
        )

    return _act(battle, by, "initiative", do, rng=rng, if_match=if_match)


@dataclass(frozen=True, slots=True)
class AttackDeclaration:
    attacker: int
    target: int
    kind: table.attacks.AttackKind
    weapon: str | None
    mode: int = 0
    situation: table.attacks.Situation = field(default_factory=table.attacks.Situation)


def plan_attack(battle: Battle, declaration: AttackDeclaration) -> table.attacks.AttackPlan:
    """The attack as declared, before rolling (needed roll, chance, expected damage)."""
    figures = {f.pk: f for f in BattleFigure.objects.filter(side__battle=battle)}
    return _plan(battle.state, figures, declaration)


def _plan(
    state: table.state.BattleState,
    figures: Mapping[int, BattleFigure] | Mapping[str, BattleFigure],
    d: AttackDeclaration,
) -> table.attacks.AttackPlan:
    by_key = {str(k): v for k, v in figures.items()}
    problems: list[Problem] = []
    for where, fid in (("/attacker", d.attacker), ("/target", d.target)):
        if str(fid) not in by_key:
            problems.append(Problem(where, "not-found", f"No figure {fid} in this battle."))
    if problems:
        raise Invalid.of(problems)
    attacker, target = by_key[str(d.attacker)], by_key[str(d.target)]
    if state["figures"][str(d.attacker)]["side"] == state["figures"][str(d.target)]["side"]:
        raise Invalid("same-side", "Attack an enemy figure.", pointer="/target")
    table.state.require_able(state, str(d.attacker), figure_of(attacker), "/attacker")
    if state["figures"][str(d.target)]["status"] == table.figures.OUT_OF_ACTION:
        raise Invalid("figure-not-active", f"{target.name} is Out of Action.", pointer="/target")
    fortified = state["figures"][str(d.target)]["markers"].get("fortify", 0) > 0
    situation = d.situation
    if fortified and not situation.target_fortified:
        situation = dataclasses.replace(situation, target_fortified=True)
    return table.attacks.plan_attack(
        figure_of(attacker),
        figure_of(target),
        d.kind,
        d.weapon,
        situation,
        equipment=get_catalogue().equipment,
        mode=d.mode,
    )


def attack(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    declaration: AttackDeclaration,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """An attack (P2, P3): one die per attack the weapon makes (its rate of fire), each
    resolved against the target in turn; damage, Unconscious, Out of Action."""

    def do(t: ActionFrame) -> Outcome:
        plan = _plan(t.state, t.figures, declaration)
        outcome = _roll_attack(t, plan, str(declaration.attacker), str(declaration.target))
        outcome.detail["declaration"] = _declaration_json(declaration)
        return outcome

    return _act(battle, by, "attack", do, dice=dice, rng=rng, if_match=if_match)


def _roll_attack(
    t: ActionFrame, plan: table.attacks.AttackPlan, attacker_id: str, target_id: str
) -> Outcome:
    """Roll a planned attack: one die per attack (its rate of fire), each resolved against
    the target in turn (P3, the target's wards), then Subdual's or Exploit Weakness's die."""
    checks = 1 if plan.check_die else 0
    rolls, entered = t.dice(plan.rate_of_fire + checks)
    attacker_name = t.figures[attacker_id].name
    target_fig = figure_of(t.figures[target_id])
    events: list[table.state.Event] = []
    results = []
    checked = ""
    warded: list[str] = []
    for roll in rolls[: plan.rate_of_fire]:
        result = table.attacks.resolve_attack(
            plan, roll, dodge_inches=table.attacks.dodge_for_cover_inches(target_fig)
        )
        results.append(result)
        hit = table.damage.apply_hit(t.state, attacker_id, target_id, result)
        events += hit.events
        if said := hit.words(attacker_name):
            warded.append(said)
    if checks:
        checked, more = table.damage.apply_check_die(
            t.state,
            plan,
            figure_of(t.figures[attacker_id]),
            attacker_id,
            target_id,
            results[0],
            rolls[-1],
        )
        events += more
    words = (
        f"{attacker_name} attacks {target_fig.name} ({plan.kind}, {plan.weapon_name}; "
        f"{plan.needed_words()}): "
        + " ".join(f"rolled {r.roll}. {r.words}" for r in results)
        + "".join(f" {said}" for said in warded)
        + (f" {checked}" if checked else "")
        + _status_words(t, events)
    )
    return Outcome(
        words,
        detail={
            "needed": plan.needed,
            "modified_df": plan.modified_df,
            "results": [
                {
                    "roll": r.roll,
                    "success_rating": r.success_rating,
                    "damage": r.damage,
                    "hit": r.hit,
                }
                for r in results
            ],
            "damage": sum(r.damage for r in results),
            "check": {"kind": plan.check_die, "die": rolls[-1]} if checks else None,
            "target": target_id,
            "attacker": attacker_id,
        },
        dice=rolls,
        entered=entered,
        events=events,
    )


def _declaration_json(d: AttackDeclaration) -> dict[str, Any]:
    return {
        "attacker": d.attacker,
        "target": d.target,
        "kind": d.kind,
        "weapon": d.weapon,
        "mode": d.mode,
        "situation": dataclasses.asdict(d.situation),
    }


def _status_words(t: ActionFrame, events: Sequence[table.state.Event]) -> str:
    return "".join(
        f" {t.figures[e['figure']].name} is {table.figures.status_words(e['status'])}."
        for e in events
    )


def transfer_damage(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    transfers: Mapping[int, int],
    if_match: int | None = None,
) -> BattleAction:
    """Friendship (P3): right after an attack that dealt damage, the defender moves some of
    it onto friendly figures (each at most its FR; The True Power of Friendship halves
    what it receives). The attack is resolved again from its state with the same dice."""

    def do(t: ActionFrame) -> Outcome:
        last = _last_effective(t.battle)
        if (
            last is None
            or last.kind not in BattleAction.ATTACK_KINDS
            or not last.detail.get("damage")
        ):
            raise Invalid(
                "nothing-to-transfer",
                "Damage is transferred right after the attack that dealt it.",
                pointer="/transfers",
            )
        detail = last.detail
        target_id = detail["target"]
        attacker_id = detail["attacker"]
        if len(detail["results"]) != 1 or detail.get("check"):
            raise Invalid(
                "nothing-to-transfer",
                "After several attack dice, or a Subdual or Exploit Weakness roll, declare "
                "the transfer as changes to the figures.",
                pointer="/transfers",
            )
        # Replayed from before the attack; a cast's attacks stay as that attack left them.
        pending = t.state.get("spell_attacks")
        t.state = copy.deepcopy(last.state_before)
        t.state.pop("spell_attacks", None)
        if pending is not None:
            t.state["spell_attacks"] = pending
        recipients: list[tuple[str, table.damage.Recipient]] = []
        for i, (fid, amount) in enumerate(transfers.items()):
            key, bf, fig = t.figure(fid, f"/transfers/{i}")
            current = t.state["figures"][key]
            if current["side"] != t.side_of(target_id) or key == target_id:
                raise Invalid(
                    "other-side",
                    f"{bf.name} is not a friend of the target.",
                    pointer=f"/transfers/{i}",
                )
            recipients.append(
                (
                    key,
                    table.damage.Recipient(
                        bf.name,
                        fig.stats["FR"],
                        amount if isinstance(amount, int) and not isinstance(amount, bool) else 0,
                        current["status"],
                        fig.has(table.figures.TRUE_POWER_OF_FRIENDSHIP),
                        current["markers"].get("inspire", 0),
                    ),
                )
            )
        r = detail["results"][0]
        result = table.attacks.AttackResult(
            r["roll"], 0, r["success_rating"], r["hit"], r["damage"], ""
        )
        hit = table.damage.apply_hit(t.state, attacker_id, target_id, result, recipients)
        events = hit.events
        target = t.figures[target_id].name
        warded = hit.words(t.figures[attacker_id].name)
        moved = ", ".join(
            f"{rec.amount} to {rec.name}"
            + (f" (loses {table.damage.received(rec)})" if rec.true_power_of_friendship else "")
            for _, rec in recipients
        )
        return Outcome(
            f"Friendship: {target} transfers {moved}."
            + (f" {warded}" if warded else "")
            + _status_words(t, events),
            detail={"amends": last.seq, "transfers": {str(k): v for k, v in transfers.items()}},
            events=events,
        )

    return _act(battle, by, "transfer", do, if_match=if_match)


def _last_effective(battle: Battle) -> BattleAction | None:
    return (
        battle.actions.filter(undone_at__isnull=True)
        .exclude(kind="start")
        .order_by("-seq")
        .first()
    )


def plan_spell(
    battle: Battle,
    caster: int,
    spell: str,
    *,
    anathema_aura: bool = False,
    empowered: bool = False,
    chosen: int | None = None,
) -> table.spells.SpellPlan:
    """A spell as declared, before rolling: its dice, Difficulty and each tier's chance."""
    bf = BattleFigure.objects.filter(side__battle=battle, pk=caster).first()
    if bf is None:
        raise Invalid("not-found", f"No figure {caster} in this battle.", pointer="/caster")
    spells = get_catalogue().spells
    if spell not in spells:
        raise Invalid("spell-not-known", f"No spell {spell!r}.", pointer="/spell")
    return table.spells.plan_spell(
        figure_of(bf),
        spells[spell],
        anathema_aura=anathema_aura,
        empowered=empowered,
        chosen=chosen,
        forgotten=battle.state["figures"][str(bf.pk)]["forgotten"],
    )


def cast_spell(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    caster: int,
    spell: str,
    target: int | None = None,
    anathema_aura: bool = False,
    empowered: bool = False,
    chosen: int | None = None,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """P4: CA dice against the Difficulty; the outcome tier; its markers on the target,
    Healing Spring's and Reviving Breath's HP, Mana Obliteration's forgetting."""

    def do(t: ActionFrame) -> Outcome:
        caster_id, caster_bf, caster_fig = t.figure(caster, "/caster")
        spells = get_catalogue().spells
        if spell not in spells:
            raise Invalid("spell-not-known", f"No spell {spell!r}.", pointer="/spell")
        table.state.require_able(t.state, caster_id, caster_fig, "/caster")
        current = t.state["figures"][caster_id]
        plan = table.spells.plan_spell(
            caster_fig,
            spells[spell],
            anathema_aura=anathema_aura,
            empowered=empowered,
            chosen=chosen,
            forgotten=current["forgotten"],
        )
        target_id = caster_id if target is None else t.figure(target, "/target")[0]
        target_name = t.figures[target_id].name
        # Healing Spring's d3, entered as rolled, comes after the CA dice (P5).
        d3_entered: object | None = None
        if (
            spell == table.spells.HEALING_SPRING
            and isinstance(t.entered, list)
            and len(t.entered) == plan.dice + 1
        ):
            d3_entered, t.entered = t.entered[-1], t.entered[:-1]
        rolls, entered = t.dice(plan.dice)
        result = table.spells.cast(plan, rolls)
        events: list[table.state.Event] = []
        effects: list[str] = []
        placed = table.spells.spell_markers(spell, plan, result)
        if placed is not None:
            table.state.add_markers(t.state, target_id, *placed)
            effects.append(f"{placed[1]} {table.state.MARKERS[placed[0]]} on {target_name}")
        if result.tier is not None and empowered:
            table.state.add_markers(t.state, target_id, "empowered", 1)
            effects.append(f"Empowered on {target_name}")
        tier_index = plan.outcomes.index(result.tier) if result.tier else None
        target_state = t.state["figures"][target_id]
        d3: int | None = None
        if spell == table.spells.HEALING_SPRING and table.spells.healing_spring_d3(tier_index):
            if not entered:
                d3 = t.rng.randint(1, table.dice.D3)
            elif d3_entered is None:
                raise Invalid(
                    "wrong-dice-count",
                    f"{result.successes} successes heal 1d3 + 2 HP: enter the d3 (1-3) "
                    f"after the {plan.dice} dice.",
                    pointer="/dice",
                )
            else:
                d3 = table.dice.check_d3(d3_entered, f"/dice/{plan.dice}")
        elif d3_entered is not None:
            raise Invalid(
                "wrong-dice-count",
                f"Only 3 or more successes roll Healing Spring's d3; enter {plan.dice} dice.",
                pointer="/dice",
            )
        if spell == table.spells.HEALING_SPRING and tier_index is not None:
            amount = table.spells.healing_spring_hp(tier_index, d3)
            if target_state["status"] == table.figures.ACTIVE:
                table.recovery.heal(t.state, target_id, amount)
                rolled = f" (2 + {d3} on the d3)" if d3 is not None else ""
                effects.append(f"{target_name} recovers {amount} HP{rolled}")
        if spell == table.spells.REVIVING_BREATH and tier_index is not None:
            hp = {0: 1, 1: target_state["max_hp"] // 2}.get(tier_index, target_state["max_hp"])
            events += table.recovery.revive(t.state, target_id, hp)
            if events:
                effects.append(
                    f"{target_name} wakes with {t.state['figures'][target_id]['hp']} HP"
                )
        if spell == table.spells.MANA_OBLITERATION and tier_index is not None and tier_index < 2:
            table.state.forget_spell(t.state, caster_id, spell)
            effects.append(f"{caster_bf.name} forgets {spells[spell].name}")
        at_the_table = table.spells.spell_at_the_table(spell, tier_index)
        # A new cast ends the last one's attacks; a Destruction tier opens its own.
        table.spell_attacks.close_spell_attacks(t.state)
        attacks = (
            None
            if tier_index is None
            else table.spell_attacks.spell_attacks(
                spells[spell], tier_index, result.successes, chosen
            )
        )
        if attacks is not None:
            table.spell_attacks.open_spell_attacks(
                t.state, caster_id, spell, tier_index or 0, result.successes, chosen
            )
            effects.append(f"Its attacks: {attacks.words()}; roll them next, one target at a time")
        if spell == table.spells.DISPEL_MAGIC and tier_index is not None:
            removed = table.spells.dispelled(target_state["markers"], tier_index)
            if removed is None:
                at_the_table = (
                    "Choose the spell effect to remove and take its markers off with "
                    '"Change a figure".'
                )
            for marker in removed or ():
                count = target_state["markers"][marker]
                table.state.add_markers(t.state, target_id, marker, -count)
                effects.append(f"{count} {table.state.MARKERS[marker]} removed from {target_name}")
        return Outcome(
            f"{caster_bf.name} casts {plan.spell_name} (Difficulty {plan.difficulty}, "
            f"{plan.dice} dice)"
            # A spell that attacks names its targets as its attacks are rolled.
            + ("" if table.spell_attacks.attacks_with(spells[spell]) else f" on {target_name}")
            + f". {result.words()}"
            + (" " + "; ".join(effects) + "." if effects else "")
            + (f" At the table: {at_the_table}" if at_the_table else ""),
            detail={
                "caster": caster_id,
                "target": target_id,
                "spell": spell,
                "difficulty": plan.difficulty,
                "successes": result.successes,
                "tier": tier_index,
            },
            dice=rolls + ([d3] if d3 is not None else []),
            entered=entered,
            events=events,
        )

    return _act(battle, by, "spell", do, dice=dice, rng=rng, if_match=if_match)


def _spell_attack_plan(
    state: table.state.BattleState,
    figures: Mapping[str, BattleFigure],
    target: int,
    situation: table.attacks.Situation,
) -> tuple[str, table.spell_attacks.SpellAttacks, table.attacks.AttackPlan]:
    """The waiting cast's attack on one target: (the caster's id, the cast's attacks, the
    plan). Refused when no cast waits, or the target is not one it may attack."""
    pending = table.spell_attacks.pending_spell_attacks(state)
    spell = None if pending is None else get_catalogue().spells.get(pending["spell"])
    attacks = (
        None
        if pending is None or spell is None
        else table.spell_attacks.spell_attacks(
            spell, pending["tier"], pending["successes"], pending["chosen"]
        )
    )
    if pending is None or attacks is None:
        raise Invalid(
            "no-spell-attacks",
            "No spell's attacks are waiting: cast a Destruction spell first.",
            pointer="/type",
        )
    target_id = str(target)
    if target_id not in figures:
        raise Invalid("not-found", f"No figure {target} in this battle.", pointer="/target")
    problems = table.spell_attacks.spell_target_problems(state, target_id, attacks)
    if problems:
        raise Invalid.of(problems)
    caster_id = pending["caster"]
    if state["figures"][target_id]["markers"].get("fortify", 0) > 0:
        situation = dataclasses.replace(situation, target_fortified=True)
    plan = table.spell_attacks.plan_spell_attack(
        figure_of(figures[caster_id]), figure_of(figures[target_id]), attacks, situation
    )
    return caster_id, attacks, plan


def plan_spell_attack(
    battle: Battle, target: int, situation: table.attacks.Situation | None = None
) -> table.attacks.AttackPlan:
    """The waiting cast's attack on `target` as declared, before rolling (its odds)."""
    figures = {str(f.pk): f for f in BattleFigure.objects.filter(side__battle=battle)}
    return _spell_attack_plan(
        battle.state, figures, target, situation or table.attacks.Situation()
    )[2]


def spell_attack(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    target: int,
    situation: table.attacks.Situation | None = None,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """The last cast's attacks on one target: ranged attacks by the caster at the tier's
    ROF and Acc, resolved as any ranged attack (P2, P3, P7; see
    `table.spell_attacks.plan_spell_attack`).
    Each target is attacked once; the cast closes when its targets are used up, when the
    caster's activation ends, or at the next cast or turn."""

    def do(t: ActionFrame) -> Outcome:
        declared = situation or table.attacks.Situation()
        caster_id, attacks, plan = _spell_attack_plan(t.state, t.figures, target, declared)
        target_id = str(target)
        outcome = _roll_attack(t, plan, caster_id, target_id)
        left = table.spell_attacks.spend_spell_attack(t.state, target_id, attacks)
        if left == 0:
            outcome.words += f" {attacks.spell_name}'s attacks are done."
        elif left is not None:
            outcome.words += f" {attacks.spell_name} may attack {left} more."
        outcome.detail["spell"] = attacks.spell
        outcome.detail["situation"] = dataclasses.asdict(declared)
        return outcome

    return _act(battle, by, "spell-attack", do, dice=dice, rng=rng, if_match=if_match)


def heal(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    healer: int,
    target: int,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """Heal (Medical Kit): 1d12 against the target's HP; the excess, up to the healer's FR."""

    def do(t: ActionFrame) -> Outcome:
        healer_id, healer_bf, healer_fig = t.figure(healer, "/healer")
        target_id, target_bf, _ = t.figure(target, "/target")
        table.state.require_able(t.state, healer_id, healer_fig, "/healer")
        table.state.require_active(t.state, target_id, target_bf.name, "/target")
        if not healer_fig.carries(table.figures.MEDICAL_KIT):
            raise Invalid("needs-equipment", "Healing needs a Medical Kit.", pointer="/healer")
        rolls, entered = t.dice(1)
        state = t.state["figures"][target_id]
        fr = healer_fig.stats["FR"]
        amount = table.recovery.heal_amount(rolls[0], state["hp"], state["max_hp"], fr)
        again = ""
        if not entered and table.recovery.rerolls_heal(healer_fig, amount):
            rolls += table.dice.roll_dice(1, t.rng)
            amount = table.recovery.heal_amount(rolls[-1], state["hp"], state["max_hp"], fr)
            again = f", re-rolled {rolls[-1]} (Angelic Healing)"
        table.recovery.heal(t.state, target_id, amount)
        return Outcome(
            f"{healer_bf.name} heals {target_bf.name}: rolled {rolls[0]}{again} against HP "
            f"{state['hp'] - amount}; {target_bf.name} recovers {amount} HP.",
            detail={"healer": healer_id, "target": target_id, "amount": amount},
            dice=rolls,
            entered=entered,
        )

    return _act(battle, by, "heal", do, dice=dice, rng=rng, if_match=if_match)


def revive(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    reviver: int,
    target: int,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """Revive (Medical Kit): 1d12 equal to or under the target's FR wakes it with 1 HP."""

    def do(t: ActionFrame) -> Outcome:
        reviver_id, reviver_bf, reviver_fig = t.figure(reviver, "/reviver")
        target_id, target_bf, target_fig = t.figure(target, "/target")
        table.state.require_able(t.state, reviver_id, reviver_fig, "/reviver")
        if not reviver_fig.carries(table.figures.MEDICAL_KIT):
            raise Invalid("needs-equipment", "Reviving needs a Medical Kit.", pointer="/reviver")
        if t.state["figures"][target_id]["status"] != table.figures.UNCONSCIOUS:
            raise Invalid(
                "figure-not-unconscious",
                f"{target_bf.name} is not Unconscious.",
                pointer="/target",
            )
        rolls, entered = t.dice(1)
        fr = target_fig.stats["FR"]
        revived = table.recovery.revives(rolls[0], fr)
        again = ""
        if not entered and table.recovery.rerolls_revive(reviver_fig, revived):
            rolls += table.dice.roll_dice(1, t.rng)
            revived = table.recovery.revives(rolls[-1], fr)
            again = f", re-rolled {rolls[-1]} (Angelic Healing)"
        events = table.recovery.revive(t.state, target_id, 1) if revived else []
        return Outcome(
            f"{reviver_bf.name} tries to revive {target_bf.name}: rolled {rolls[0]}{again} "
            f"against FR {fr}; " + ("revived with 1 HP." if events else "still Unconscious."),
            detail={"reviver": reviver_id, "target": target_id, "revived": bool(events)},
            dice=rolls,
            entered=entered,
            events=events,
        )

    return _act(battle, by, "revive", do, dice=dice, rng=rng, if_match=if_match)


def jump(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    figure: int,
    distance: int,
    movement: table.figures.Movement = "moved",
    discard_climbing_gear: bool = False,
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """A Jump or Drop check: 1d12 plus modifiers must exceed the distance; a fail costs
    1 HP a point short (and the figure's unspent actions)."""

    def do(t: ActionFrame) -> Outcome:
        fid, bf, fig = t.figure(figure, "/figure")
        table.state.require_able(t.state, fid, fig, "/figure")
        if (
            discard_climbing_gear
            and table.figures.CLIMBING_GEAR in t.state["figures"][fid]["discarded"]
        ):
            raise Invalid("unknown-item", "The Climbing Gear is discarded.", pointer="/item")
        plan = table.movement.plan_jump(fig, distance, movement)
        rolls, entered = t.dice(1)
        damage = plan.damage(rolls[0])
        words = f'{bf.name} jumps {distance}" (needs {plan.needed}+): rolled {rolls[0]}; '
        events: list[table.state.Event] = []
        if damage and discard_climbing_gear:
            table.state.discard_item(t.state, fid, fig, table.figures.CLIMBING_GEAR)
            words += "discards the Climbing Gear to pass."
        elif damage:
            events = table.damage.lose(t.state, fid, damage)
            words += f"fails: {damage} damage and no actions left." + _status_words(t, events)
        else:
            words += "passes."
        return Outcome(
            words,
            detail={"figure": fid, "distance": distance, "needed": plan.needed, "damage": damage},
            dice=rolls,
            entered=entered,
            events=events,
        )

    return _act(battle, by, "jump", do, dice=dice, rng=rng, if_match=if_match)


def roll_d12(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    count: int = 1,
    reason: str = "",
    dice: Sequence[object] | None = None,
    rng: random.Random | None = None,
    if_match: int | None = None,
) -> BattleAction:
    """A plain roll (objectives, a push over a drop, Subdual, Exploit Weakness...)."""

    def do(t: ActionFrame) -> Outcome:
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 12:
            raise Invalid("invalid", "Roll 1 to 12 dice.", pointer="/count")
        label = " ".join(str(reason).split())[:100]
        rolls, entered = t.dice(count)
        return Outcome(
            f"Rolled {', '.join(map(str, rolls))}" + (f" for {label}" if label else "") + ".",
            detail={"reason": label},
            dice=rolls,
            entered=entered,
        )

    return _act(battle, by, "roll", do, dice=dice, rng=rng, if_match=if_match)


@dataclass(frozen=True, slots=True)
class Change:
    """A declared change the site does not roll for (P2): HP, status, markers, items."""

    figure: int
    hp: int | None = None
    status: table.figures.Status | None = None
    markers: Mapping[str, int] = field(default_factory=dict)  # marker -> count to add
    discard: str | None = None
    forget: str | None = None
    activated: bool | None = None
    note: str = ""


def change_figure(
    *, battle: Battle, by: AbstractBaseUser, change: Change, if_match: int | None = None
) -> BattleAction:
    def do(t: ActionFrame) -> Outcome:
        fid, bf, fig = t.figure(change.figure, "/figure")
        state = t.state["figures"][fid]
        said: list[str] = []
        events: list[table.state.Event] = []
        if change.hp is not None:
            if isinstance(change.hp, bool) or not 0 <= change.hp <= state["max_hp"]:
                raise Invalid("invalid", f"HP is 0 to {state['max_hp']}.", pointer="/hp")
            state["hp"] = change.hp
            said.append(f"HP {change.hp} of {state['max_hp']}")
        if change.status is not None:
            if change.status not in (
                table.figures.ACTIVE,
                table.figures.UNCONSCIOUS,
                table.figures.OUT_OF_ACTION,
            ):
                raise Invalid(
                    "invalid", "Status is active, unconscious or out-of-action.", pointer="/status"
                )
            if change.status != state["status"]:
                state["status"] = change.status
                events.append({"figure": fid, "status": change.status, "by": None})
                said.append(table.figures.status_words(change.status))
        for i, (marker, count) in enumerate(change.markers.items()):
            if isinstance(count, bool) or not isinstance(count, int) or not -9 <= count <= 9:
                raise Invalid("invalid", "Add -9 to 9 markers.", pointer=f"/markers/{i}")
            table.state.add_markers(t.state, fid, marker, count)
            said.append(f"{count:+d} {table.state.MARKERS[marker]}")
        at_the_table = ""
        if change.discard:
            table.state.discard_item(t.state, fid, fig, change.discard)
            said.append(f"discards {change.discard.replace('-', ' ')}")
            at_the_table = table.state.ITEM_AT_THE_TABLE.get(change.discard, "")
        if change.forget:
            if change.forget not in fig.spells:
                raise Invalid(
                    "spell-not-known", "Not a spell the figure knows.", pointer="/forget"
                )
            table.state.forget_spell(t.state, fid, change.forget)
            said.append(f"forgets {change.forget.replace('-', ' ')}")
        if change.activated is not None:
            state["activated"] = bool(change.activated)
            said.append("activated" if change.activated else "not yet activated")
        if not said:
            raise Invalid("invalid", "Nothing to change.", pointer="")
        note = " ".join(str(change.note).split())[:200]
        return Outcome(
            f"{bf.name}: "
            + ", ".join(said)
            + (f" ({note})" if note else "")
            + "."
            + (f" At the table: {at_the_table}" if at_the_table else ""),
            detail={"figure": fid},
            events=events,
        )

    return _act(battle, by, "change", do, if_match=if_match)


def end_activation(
    *, battle: Battle, by: AbstractBaseUser, figure: int, if_match: int | None = None
) -> BattleAction:
    """The figure has activated this turn; the markers that last until its next activation
    (or for it) lapse: Clock Up, Inspire, Fortify, Extreme Speed."""

    def do(t: ActionFrame) -> Outcome:
        fid, bf, _ = t.figure(figure, "/figure")
        state = t.state["figures"][fid]
        if state["activated"]:
            raise Invalid("invalid", f"{bf.name} has activated this turn.", pointer="/figure")
        table.turn.activate(t.state, fid)
        lapsed = table.turn.lapse_markers(t.state, fid)
        words = f"{bf.name} has activated."
        if lapsed:
            words += " " + ", ".join(table.state.MARKERS[m] for m in lapsed) + " lapsed."
        return Outcome(words, detail={"figure": fid})

    return _act(battle, by, "activate", do, if_match=if_match)


def next_turn(
    *, battle: Battle, by: AbstractBaseUser, if_match: int | None = None
) -> BattleAction:
    def do(t: ActionFrame) -> Outcome:
        table.turn.next_turn(t.state)
        return Outcome(f"Turn {t.state['turn']} begins: roll for initiative.")

    return _act(battle, by, "turn", do, if_match=if_match)


@transaction.atomic
def undo(*, battle: Battle, by: AbstractBaseUser, if_match: int | None = None) -> BattleAction:
    """Undo the last action not yet undone (last first, P5): its state before comes back."""
    locked = _lock(battle.pk)
    _require_side(locked, list(locked.sides.all()), by)
    if locked.status != Battle.Status.PLAYING:
        raise Conflict("battle-ended", "The battle has ended.")
    if if_match is not None and if_match != locked.version:
        raise PreconditionFailed(
            "precondition-failed", f"The battle moved on to version {locked.version}."
        )
    last = _last_effective(locked)
    if last is None:
        raise Conflict("nothing-to-undo", "There is nothing to undo.")
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
    """The record's events (P6): of every action not undone, the attack a transfer amended
    counting through the transfer's events instead of its own."""
    actions = list(battle.actions.filter(undone_at__isnull=True).order_by("seq"))
    amended = {a.detail.get("amends") for a in actions if a.kind == "transfer"}
    events: list[table.state.Event] = []
    for action in actions:
        if action.seq not in amended:
            events += action.events
    return events


def record_from_log(battle: Battle) -> dict[str, table.record.MemberRecord]:
    return table.record.record_from(battle.state, effective_events(battle))


@transaction.atomic
def end_battle(
    *,
    battle: Battle,
    by: AbstractBaseUser,
    winner: int | None,
    objectives: Mapping[int, int] | None = None,
    played_on: Any = None,
    if_match: int | None = None,
) -> Battle:
    """End the battle: the R14 record from the log (P6) with the players' objectives and
    result (`winner` is a side's position, None a draw). In a campaign it becomes the
    pending battle that another side confirms (R14a), through `campaign.services`."""
    locked = _lock(battle.pk)
    sides = list(locked.sides.all())
    _require_side(locked, sides, by)
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
    BattleAction.objects.create(
        battle=locked,
        seq=last + 1,
        kind="end",
        actor=by,
        words=f"{_name(by)} ended the battle: {result}.",
        state_before=locked.state,
    )
    return locked


def _record_in_campaign(
    battle: Battle,
    by: AbstractBaseUser,
    sides: Sequence[BattleSide],
    figures: Mapping[str, BattleFigure],
    record: Mapping[str, Any],
    played_on: Any,
) -> Any:
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
