"""Spell attacks (P7): the attacks a Destruction spell's (or Dragon Slayer's) outcome tier
makes, rolled as ranged attacks by the caster, one target at a time.

The Destruction outcomes say the target "suffers a ranged attack" with a profile (ROF,
Acc, Blast). The site resolves a spell's attack as any ranged attack by its caster (P2,
P3, P7): RA, the tier's Acc as the to-hit bonus (as a weapon's ACC), the printed
modifiers, damage, Dodge for Cover. The spell is the weapon: "No Ranged Weapon" never
applies to it."""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace

from dbd_site.errors import Invalid, Problem
from play.table.attacks import (
    AttackPlan,
    Context,
    Situation,
    context_modifiers,
    context_of,
    defence_against,
    every_attack_modifiers,
    fatigue_modifier,
    not_applicable,
    planned,
    ranged_modifiers,
    roll_attack,
)
from play.table.dice import Modifier
from play.table.figures import CASTING_GUN, OUT_OF_ACTION, Figure
from play.table.state import (
    FORTIFY,
    BattleState,
    Outcome,
    SpellAttackState,
    Table,
    close_spell_attacks,
)
from rules.catalogue import Catalogue, Equipment, Spell


@dataclass(frozen=True, slots=True)
class SpellAttacks:
    """The attacks one cast's outcome tier makes, as its profile reads."""

    spell: str
    spell_name: str
    rate_of_fire: int  # attack dice against each target
    accuracy: int  # the to-hit bonus of each attack
    targets: int | None  # how many targets; None: every figure in the radius
    reach: str  # the range or radius, in words (positions are the players', P2)
    blast: int | None = None
    ignores_cover: bool = False
    needs_line_of_sight: bool = True
    friends_too: bool = False  # friendly figures may be its targets
    caster_too: bool = False  # the caster is one of its targets

    def words(self) -> str:
        if self.targets is None:
            who = f"one attack on {self.reach}"
        elif self.targets == 1:
            who = f"one target, {self.reach}"
        else:
            who = f"up to {self.targets} targets, {self.reach}"
        said = [f"ROF {self.rate_of_fire}", f"Acc {self.accuracy:+d}"]
        if self.blast:
            said.append(f"Blast {self.blast}")
        if self.ignores_cover:
            said.append("ignores Cover")
        if not self.needs_line_of_sight:
            said.append("needs no Line of Sight")
        if self.friends_too:
            said.append("friends may be hit")
        return f"{who}: " + ", ".join(said)


def spell_attacks(
    spell: Spell, tier_index: int, successes: int, chosen: int | None = None
) -> SpellAttacks | None:
    """The attacks a cast makes at its outcome tier (X is the number of successes), or
    None for a spell that makes no attack. `chosen` is Dragon Slayer's value."""
    x, tier = successes, tier_index
    inches = f'range {spell.range_inches}"'
    one = SpellAttacks(spell.slug, spell.name, rate_of_fire=1, accuracy=0, targets=1, reach=inches)
    match spell.slug:
        case "seraphic-bolt":  # 1: ROF 1 Acc +0; 2: range 15"; 3: ROF 2; 4+: Acc +1
            return replace(
                one,
                rate_of_fire=2 if tier >= 2 else 1,
                accuracy=1 if tier >= 3 else 0,
                reach='range 15"' if tier >= 1 else inches,
            )
        case "infernal-orb":  # 1-2: ROF 1 Blast 3; 3: ROF 2 Blast 3; 4+: ROF 2 Blast 5
            return replace(one, rate_of_fire=1 if tier == 0 else 2, blast=5 if tier >= 2 else 3)
        case "unlimited-sword-rain":  # X: ROF X, Acc +0; X of 3 or more ignores Cover
            return replace(one, rate_of_fire=x, ignores_cover=x >= 3)
        case "unerring-fates-arrow":  # 1-2: ROF 1 Acc +1; 3+: no Line of Sight, no Cover
            return replace(one, accuracy=1, ignores_cover=tier >= 1, needs_line_of_sight=tier == 0)
        case "thunder-gods-bolt":  # X targets, each within 2" of another: Acc +0 each
            return replace(one, targets=x, reach=inches + ', each within 2" of the next')
        case "god-or-demon-attack":  # 1-2: all within 5", caster too; 3: enemies; 4+: 10"
            who = "every figure, the caster too," if tier == 0 else "every enemy"
            return replace(
                one,
                accuracy=1,
                targets=None,
                reach=f'{who} within {10 if tier >= 2 else 5}" of the caster',
                friends_too=tier == 0,
                caster_too=tier == 0,
            )
        case "dragon-slayer":  # X: ROF X, Acc + the chosen value, Blast the chosen value
            value = chosen or 0
            return replace(
                one, rate_of_fire=x, accuracy=value, blast=value or None, friends_too=True
            )
    return None


def attacks_with(spell: Spell) -> bool:
    """Whether the spell's outcomes are attacks (its targets are named as they are rolled)."""
    return spell_attacks(spell, 0, 1, 1) is not None


def open_spell_attacks(
    state: BattleState,
    caster_id: str,
    spell: str,
    tier: int,
    successes: int,
    chosen: int | None,
) -> None:
    state["spell_attacks"] = {
        "caster": caster_id,
        "spell": spell,
        "tier": tier,
        "successes": successes,
        "chosen": chosen,
        "attacked": [],
    }


def pending_spell_attacks(state: BattleState) -> SpellAttackState | None:
    return state.get("spell_attacks")


def spell_target_problems(
    state: BattleState, target_id: str, attacks: SpellAttacks
) -> list[Problem]:
    """Whether the cast may attack this figure: once each, enemies only unless the profile
    says friends (or the caster) too, never a figure Out of Action."""
    pending = pending_spell_attacks(state)
    figures = state["figures"]
    if pending is None or target_id not in figures:
        return [Problem("/target", "not-found", "No such figure in this battle.")]
    caster = pending["caster"]
    problems: list[Problem] = []
    if target_id in pending["attacked"]:
        problems.append(
            Problem("/target", "already-attacked", "This cast has already attacked that figure.")
        )
    if target_id == caster and not attacks.caster_too:
        problems.append(Problem("/target", "same-side", "The caster is not its own target."))
    elif figures[target_id]["side"] == figures[caster]["side"] and not attacks.friends_too:
        problems.append(Problem("/target", "same-side", f"{attacks.spell_name} hits enemies."))
    if figures[target_id]["status"] == OUT_OF_ACTION:
        problems.append(Problem("/target", "figure-not-active", "That figure is Out of Action."))
    return problems


def spend_spell_attack(state: BattleState, target_id: str, attacks: SpellAttacks) -> int | None:
    """Mark the target attacked; the cast's attacks close when no target is left. Answers
    the targets left (None: any number, until the activation ends)."""
    pending = pending_spell_attacks(state)
    if pending is None:
        return 0
    pending["attacked"].append(target_id)
    if attacks.targets is None:
        return None
    left = attacks.targets - len(pending["attacked"])
    if left <= 0:
        close_spell_attacks(state)
    return max(0, left)


def plan_spell_attack(
    caster: Figure,
    target: Figure,
    attacks: SpellAttacks,
    situation: Situation = Situation(),
    *,
    context: Context = Context(),
    eagle_eye: int = 0,
    equipment: Mapping[str, Equipment] | None = None,
) -> AttackPlan:
    """One target's share of a cast's attacks, as a ranged attack by the caster (RA, the
    tier's Acc) with the printed modifiers (P2, P7); the Eagle Eye markers its cast spent
    (P8); Casting Gun: a carried ranged weapon's ACC in place of the spell's. Raises
    `Invalid` with every problem.

    Long because each printed modifier (P2, P7) is applied in one place, side by side.
    """
    s = situation
    if context.target_markers.get(FORTIFY, 0) > 0 and not s.target_fortified:
        s = replace(s, target_fortified=True)
    problems: list[Problem] = []
    for name in (
        "charged",
        "non_charge_move",
        "mighty_attack",
        "target_cannot_see_attacker",
        "double_range",
        "quickdraw",
        "dual_wield",
    ):
        if getattr(s, name):
            not_applicable(problems, name, "spell's")
    if s.opponents_in_melee != 1:
        not_applicable(problems, "opponents_in_melee", "spell's")
    if s.to_hit_bonus:
        not_applicable(problems, "to_hit_bonus", "spell's")
    mods: list[Modifier] = []
    notes: list[str] = [f"{attacks.spell_name}: {attacks.words()}."]
    target_df = defence_against(target, "ranged", s, mods)
    ignores_cover = attacks.ignores_cover or eagle_eye >= 3
    every_attack_modifiers(s, mods, ignores_cover=ignores_cover)
    if attacks.ignores_cover and s.obscured != "clear":
        notes.append(f"{attacks.spell_name} ignores Cover: no Obscured modifier.")
    ranged_modifiers(caster, s, None, mods, notes, problems)
    accuracy, source = attacks.accuracy, f"{attacks.spell_name} Acc"
    if s.casting_gun is not None:
        gun = (equipment or {}).get(s.casting_gun)
        if not caster.has(CASTING_GUN):
            problems.append(
                Problem("/situation/casting_gun", "skill-missing", "Casting Gun is a skill.")
            )
        if gun is None or gun.kind != "ranged" or not caster.carries(gun.slug):
            problems.append(
                Problem(
                    "/situation/casting_gun",
                    "weapon-not-carried",
                    f"{caster.name} carries no such ranged weapon.",
                )
            )
        else:
            accuracy = max(mode.accuracy for mode in gun.fire_modes)
            source = f"Casting Gun ({gun.name} ACC)"
            notes.append(f"Casting Gun: the {gun.name}'s range may be used as well.")
    if accuracy:
        mods.append(Modifier("to-hit", accuracy, source))
    fatigue_modifier(s, mods, problems)
    extras = context_modifiers(
        caster, "ranged", s, context, mods, notes, problems, eagle_eye=eagle_eye
    )
    if problems:
        raise Invalid.of(problems)
    plan = planned(
        caster,
        s,
        mods,
        kind="ranged",
        weapon=attacks.spell,
        weapon_name=attacks.spell_name,
        target_df=target_df,
        rate_of_fire=attacks.rate_of_fire,
        actions=0,  # the cast paid for them
        notes=tuple(notes),
        blast=attacks.blast,
    )
    return replace(plan, best_of_two=extras.best_of_two, reroll=extras.reroll)


# --- the action -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpellAttack:
    """The waiting cast's attacks on one target, with the situation declared (P2)."""

    target: object  # its id as sent
    situation: Situation = Situation()


def waiting(
    state: BattleState, spells: Mapping[str, Spell]
) -> tuple[SpellAttackState, SpellAttacks] | None:
    """The cast whose attacks wait to be rolled, with its profile; None when none waits."""
    pending = pending_spell_attacks(state)
    spell = None if pending is None else spells.get(pending["spell"])
    if pending is None or spell is None:
        return None
    attacks = spell_attacks(spell, pending["tier"], pending["successes"], pending["chosen"])
    return None if attacks is None else (pending, attacks)


def plan_declared(
    state: BattleState,
    figures: Mapping[str, Figure],
    d: SpellAttack,
    catalogue: Catalogue,
) -> tuple[str, SpellAttacks, AttackPlan]:
    """The waiting cast's attack on one target: (the caster's id, the cast's attacks, the
    plan). Refused when no cast waits, or the target is not one it may attack."""
    found = waiting(state, catalogue.spells)
    if found is None:
        raise Invalid(
            "no-spell-attacks",
            "No spell's attacks are waiting: cast a Destruction spell first.",
            pointer="/type",
        )
    pending, attacks = found
    target_id = str(d.target)
    if target_id not in figures:
        raise Invalid("not-found", f"No figure {d.target} in this battle.", pointer="/target")
    problems = spell_target_problems(state, target_id, attacks)
    if problems:
        raise Invalid.of(problems)
    caster_id = pending["caster"]
    plan = plan_spell_attack(
        figures[caster_id],
        figures[target_id],
        attacks,
        d.situation,
        context=context_of(state, figures, caster_id, target_id, d.situation.leader),
        eagle_eye=pending.get("eagle_eye", 0),
        equipment=catalogue.equipment,
    )
    return caster_id, attacks, plan


def spell_attack(t: Table, d: SpellAttack) -> Outcome:
    """The last cast's attacks on one target: ranged attacks by the caster at the tier's
    ROF and Acc, resolved as any ranged attack (P2, P3, P7; see `plan_spell_attack`).
    Each target is attacked once; the cast closes when its targets are used up, when the
    caster's activation ends, or at the next cast or turn."""
    caster_id, attacks, plan = plan_declared(t.state, t.figures, d, t.catalogue)
    t.actor(caster_id, "")
    target_id = str(d.target)
    outcome = roll_attack(t, plan, caster_id, target_id)
    left = spend_spell_attack(t.state, target_id, attacks)
    if left == 0:
        outcome.words += f" {attacks.spell_name}'s attacks are done."
    elif left is not None:
        outcome.words += f" {attacks.spell_name} may attack {left} more."
    outcome.detail["spell"] = attacks.spell
    outcome.detail["situation"] = asdict(d.situation)
    return outcome
