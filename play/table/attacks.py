"""Attacks (P2): every printed modifier on a declared situation (the site knows no
positions), the needed roll and its odds, and one die's result."""

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Literal

from dbd_site.errors import Invalid, Problem
from play.table.damage import (
    EXPLOIT_WEAKNESS_CHECK,
    SUBDUAL_CHECK,
    AttackResult,
    apply_attack,
)
from play.table.decisions import open_after_attack, snapshot
from play.table.dice import DIE, Modifier, chance_at_least, chance_at_least_best_of_two
from play.table.figures import (
    ACTIVE,
    AIR_ASSASSINATION,
    ALERT_COMBATANT,
    ATHLETICS,
    BALLISTICS,
    BASICS_OF_CQC,
    DF_MAX,
    EXPLOIT_WEAKNESS,
    FIRE_ON_THE_MOVE,
    FLURRY_OF_BLOWS,
    HAND_WEAPON,
    HEAVY_ARMOUR,
    HEAVY_MACHINE_GUN,
    HEROIC_LEAP,
    HIDDEN_EXPLOSIVES,
    HIT_AND_AWAY,
    LEADERSHIP,
    MARTIAL_ARTS,
    MELEE_DUAL_WIELD,
    MIGHTY_ATTACK,
    OUT_OF_ACTION,
    QUICKDRAW,
    RANGED_DUAL_WIELD,
    REACH_INCHES,
    SEALED_POWER,
    SNIPER_RIFLE,
    SUBDUAL_WEAPON,
    TRADITIONAL_RANGED_WEAPON,
    TWO_ACTION_WEAPONS,
    Figure,
    Movement,
    clamp_active,
)
from play.table.state import (
    DISARMED,
    EAGLE_EYE,
    FORTIFY,
    INVIGORATE,
    LEGS,
    MARKERS,
    BattleState,
    CheckRecord,
    Outcome,
    Table,
    remove_markers,
    require_able,
)
from rules.catalogue import Equipment, FireMode

AttackKind = Literal["melee", "ranged"]


Obscured = Literal["clear", "partial", "significant"]


@dataclass(frozen=True, slots=True)
class Situation:
    """What the player declares about an attack (P2); the site knows no positions."""

    obscured: Obscured = "clear"
    rear_arc: bool = False
    # Ranged: how the attacker moved this activation ("none" earns the aiming bonus).
    movement: Movement = "moved"
    target_in_melee: bool = False
    target_cannot_see_attacker: bool = False  # Traditional Ranged Weapon's bonus
    double_range: bool = False  # Super High School Level Ballistics
    quickdraw: bool = False  # a two-action weapon fired for one action
    # Melee
    charged: bool = False
    non_charge_move: bool = False  # entered melee without charging
    opponents_in_melee: int = 1  # Super High School Level Martial Arts
    mighty_attack: bool = False
    # Either
    dual_wield: bool = False
    best_of_two: bool = False  # a re-roll kept if better (Invigorate, Eagle Eye)
    statistic_penalty: int = 0  # Sudden Fatigue's -1s on the statistic used
    to_hit_bonus: int = 0  # Invigorate's second marker: +1 to hit on the next melee attack
    target_fortified: bool = False  # Fortify: +2 DF until the target next activates
    # Skills that change the roll when the player says they apply (P2).
    air_assassination: bool = False  # a charge from above: the Charge Bonus is +3
    flurry_of_blows: bool = False  # two attacks after a charge with a one-handed weapon
    sealed_power: bool = False  # Terrifying Sealed Power: +1 to the statistic used
    leader: int | None = None  # Leadership: a friend whose statistic the attacker uses
    casting_gun: str | None = None  # Casting Gun: a carried weapon's ACC for a spell's


@dataclass(frozen=True, slots=True)
class Context:
    """What the battle's state adds to a declared attack: markers on both figures (Fortify,
    Invigorate, Eagle Eye, Disarming Shot, Aim for the Legs), the attacker's HP (Terrifying
    Sealed Power), a friendly leader (Leadership), what the attacker has used up. The
    default knows nothing: the print card's odds."""

    attacker_markers: Mapping[str, int] = field(default_factory=dict)
    target_markers: Mapping[str, int] = field(default_factory=dict)
    attacker_hp: int | None = None
    leader: Figure | None = None
    spent: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class AttackPlan:
    """An attack as declared, before the die is rolled: what it needs and its odds."""

    kind: AttackKind
    weapon: str | None  # equipment slug, or None for an attack without a weapon
    weapon_name: str
    statistic: str  # "ME" | "RA"
    statistic_value: int  # after its modifiers, clamped to 0..5
    to_hit: int
    target_df: int  # the target's DF with armour, shields and markers (<= 16)
    modified_df: int  # after the situation's modifiers
    modifiers: tuple[Modifier, ...]
    rate_of_fire: int  # attacks each use of the weapon makes (one die each)
    actions: int  # actions the attack costs
    damage_multiplier: int  # 2 with Mighty Attack
    best_of_two: bool
    notes: tuple[str, ...] = ()
    blast: int | None = None  # the weapon's Blast rating: a push the players make
    # A second die the attack rolls with its own: "subdual" (the target's roll under its
    # remaining HP) or "exploit-weakness" (the attacker's roll under ME on Success Rating 0).
    check_die: str | None = None
    reroll: str = ""  # what gives the re-roll: "Invigorate", "Eagle Eye" (P8), or declared
    max_damage: int | None = None  # Hidden Explosives: at most 2 HP
    spends: tuple[str, ...] = ()  # markers and once-a-battle uses the attack spends

    @property
    def dice_per_attack(self) -> int:
        """A re-roll rolls a second die for each attack (P8): both are logged."""
        return 2 if self.best_of_two else 1

    @property
    def needed(self) -> int:
        """The lowest d12 face that hits (Success Rating 0 or more); may lie outside 1-12."""
        return self.modified_df - self.statistic_value - self.to_hit

    @property
    def chance_to_hit(self) -> Fraction:
        if self.best_of_two:
            return chance_at_least_best_of_two(self.needed)
        return chance_at_least(self.needed)

    @property
    def expected_damage(self) -> Fraction:
        """Expected HP lost from one attack (one die): the Success Rating when above 0 (P3)."""
        # E[max(0, roll - threshold)] = sum over k >= 1 of P(roll >= threshold + k).
        # Hidden Explosives' cap: E[min(cap, SR)] = sum over k = 1..cap of P(SR >= k).
        tail = chance_at_least_best_of_two if self.best_of_two else chance_at_least
        threshold = self.needed
        top = max(0, DIE - threshold)
        if self.max_damage is not None:
            top = min(top, self.max_damage)
        total = sum((tail(threshold + k) for k in range(1, top + 1)), Fraction(0))
        return total * self.damage_multiplier

    @property
    def expected_damage_per_use(self) -> Fraction:
        return self.expected_damage * self.rate_of_fire

    def needed_words(self) -> str:
        if self.needed <= 1:
            return "hits on any roll"
        if self.needed > DIE:
            return f"cannot hit (needs {self.needed})"
        return f"needs {self.needed}+"


def _weapon(
    attacker: Figure,
    kind: AttackKind,
    weapon: Equipment | None,
    mode: int,
    problems: list[Problem],
) -> tuple[int, int]:
    """The weapon's to-hit (melee) or ACC (ranged mode) and its rate of fire."""
    if weapon is None:
        return 0, 1
    if weapon.slug != HIDDEN_EXPLOSIVES and not attacker.carries(weapon.slug):
        problems.append(
            Problem(
                "/weapon",
                "weapon-not-carried",
                f"{attacker.name} does not carry a {weapon.name}.",
            )
        )
    if weapon.kind != kind:
        problems.append(
            Problem(
                "/weapon",
                "weapon-wrong-kind",
                f"A {weapon.name} makes no {kind} attacks.",
            )
        )
        return 0, 1
    if kind == "melee":
        return weapon.to_hit, 1
    if not 0 <= mode < len(weapon.fire_modes):
        problems.append(
            Problem("/mode", "unknown-fire-mode", f"A {weapon.name} has no fire mode {mode}.")
        )
        return 0, 1
    fire_mode = weapon.fire_modes[mode]
    return fire_mode.accuracy, fire_mode.rate_of_fire


def not_applicable(problems: list[Problem], name: str, kind: str) -> None:
    problems.append(
        Problem(
            f"/situation/{name}",
            "situation-not-applicable",
            f"'{name.replace('_', ' ')}' does not apply to a {kind} attack.",
        )
    )


def plan_attack(
    attacker: Figure,
    target: Figure,
    kind: AttackKind,
    weapon_slug: str | None,
    situation: Situation = Situation(),
    *,
    equipment: Mapping[str, Equipment],
    mode: int = 0,
    context: Context = Context(),
) -> AttackPlan:
    """Apply every printed modifier to a declared attack (P2); refuses what cannot be.

    `weapon_slug` None is an attack without a weapon; `equipment` is the catalogue's;
    `context` what the battle's state adds (markers, HP, a leader, uses spent).
    Raises `Invalid` with every problem at once (pointers into the declaration).

    Long because every printed modifier (P2) is applied in one place, in the order the
    rulebook lists them.
    """
    s = situation
    if context.target_markers.get(FORTIFY, 0) > 0 and not s.target_fortified:
        s = replace(s, target_fortified=True)
    problems: list[Problem] = []
    explosives = weapon_slug == HIDDEN_EXPLOSIVES
    weapon = HIDDEN_EXPLOSIVES_PROFILE if explosives else equipment.get(weapon_slug or "")
    if weapon_slug is not None and weapon is None:
        raise Invalid("weapon-not-carried", f"No weapon {weapon_slug!r}.", pointer="/weapon")
    mods: list[Modifier] = []
    notes: list[str] = []
    if explosives:
        _hidden_explosives(attacker, kind, context, notes, problems)
    weapon_to_hit, rate_of_fire = _weapon(attacker, kind, weapon, mode, problems)
    slug = weapon.slug if weapon is not None else None
    if slug is not None and context.attacker_markers.get(DISARMED, 0) > 0:
        problems.append(
            Problem(
                "/weapon",
                "disarmed",
                f"Disarming Shot: {attacker.name} may not use a weapon's benefits in this "
                "activation; attack with no weapon.",
            )
        )
    _movement_allowed(attacker, s, context, problems)
    if s.casting_gun is not None:
        not_applicable(problems, "casting_gun", "weapon")

    ignores_cover = kind == "ranged" and context.attacker_markers.get(EAGLE_EYE, 0) >= 3
    target_df = defence_against(target, kind, s, mods)
    every_attack_modifiers(s, mods, ignores_cover=ignores_cover)

    actions = 1
    check_die: str | None = None
    if kind == "ranged":
        for name in ("charged", "non_charge_move", "mighty_attack"):
            if getattr(s, name):
                not_applicable(problems, name, kind)
        if s.opponents_in_melee != 1:
            not_applicable(problems, "opponents_in_melee", kind)
        if weapon is None:
            mods.append(Modifier("DF", 2, "No Ranged Weapon"))
        ranged_modifiers(attacker, s, slug, mods, notes, problems)
        if s.target_cannot_see_attacker:
            if slug == TRADITIONAL_RANGED_WEAPON:
                mods.append(Modifier("to-hit", 1, "Traditional Ranged Weapon, target unseeing"))
            else:
                not_applicable(problems, "target_cannot_see_attacker", "non-bow")
        if s.double_range:
            if not attacker.has(BALLISTICS):
                problems.append(
                    Problem(
                        "/situation/double_range",
                        "skill-missing",
                        "Doubling a weapon's range needs Super High School Level Ballistics.",
                    )
                )
            mods.append(Modifier("statistic", -1, "Super High School Level Ballistics"))
        if slug in TWO_ACTION_WEAPONS:
            actions = 2
            if s.quickdraw:
                if not attacker.has(QUICKDRAW):
                    problems.append(
                        Problem("/situation/quickdraw", "skill-missing", "Quickdraw is a skill.")
                    )
                actions = 1
                mods.append(Modifier("statistic", -2, "Quickdraw"))
        elif s.quickdraw:
            not_applicable(problems, "quickdraw", "one-action")
    else:
        for name in ("target_in_melee", "target_cannot_see_attacker", "double_range", "quickdraw"):
            if getattr(s, name):
                not_applicable(problems, name, kind)
        if s.movement in ("ran", "dashed") and not s.charged:
            not_applicable(problems, "movement", kind)
        if weapon is None:
            mods.append(Modifier("DF", 2, "No Melee Weapon"))
        if s.charged and s.non_charge_move:
            problems.append(
                Problem(
                    "/situation/non_charge_move",
                    "situation-conflict",
                    "An attacker either charged or entered melee by another move, not both.",
                )
            )
        if s.non_charge_move:
            if attacker.has(ALERT_COMBATANT):
                notes.append("Alert Combatant: no penalty for entering melee without a charge.")
            else:
                mods.append(Modifier("DF", 1, "Non-Charge move into melee"))
        if s.charged and s.air_assassination:
            mods.append(Modifier("DF", -3, "Attacker Charged (Air Assassination)"))
            notes.append(
                "Air Assassination: pass a Drop check (a Jump) for the fall first, or the "
                "attack is forfeit."
            )
        elif s.charged:
            mods.append(Modifier("DF", -1, "Attacker Charged"))
        if s.air_assassination:
            _needs_skill(attacker, AIR_ASSASSINATION, "air_assassination", problems)
            if not s.charged:
                _needs_charge(problems, "air_assassination", "Air Assassination")
        if s.flurry_of_blows:
            _needs_skill(attacker, FLURRY_OF_BLOWS, "flurry_of_blows", problems)
            if not s.charged:
                _needs_charge(problems, "flurry_of_blows", "Flurry of Blows")
            if weapon is None or weapon.hands != 1:
                problems.append(
                    Problem(
                        "/situation/flurry_of_blows",
                        "needs-equipment",
                        "Flurry of Blows needs a one-handed melee weapon.",
                    )
                )
            notes.append(
                "Flurry of Blows: a second attack follows this charge; declare it next, "
                "without the charge (the Charge Bonus is for the first attack)."
            )
        if s.opponents_in_melee < 1:
            problems.append(
                Problem(
                    "/situation/opponents_in_melee",
                    "invalid",
                    "A figure in melee has at least one opponent.",
                )
            )
        elif s.opponents_in_melee > 1 and attacker.has(MARTIAL_ARTS):
            mods.append(
                Modifier(
                    "to-hit",
                    s.opponents_in_melee - 1,
                    "Super High School Level Martial Arts",
                )
            )
        if slug == SUBDUAL_WEAPON:
            if s.rear_arc and attacker.has(BASICS_OF_CQC):
                notes.append("The Basics of CQC: no Subdual penalty from behind.")
            if s.rear_arc or s.charged:
                check_die = SUBDUAL_CHECK
                notes.append(
                    "Subdual: on a hit the target rolls 1d12 under its remaining HP "
                    "or falls Unconscious (a second die)."
                )
        if slug == HAND_WEAPON:
            notes.append("A Hand Weapon may leave the target where it is (no push).")
        if slug is not None and slug in REACH_INCHES:
            notes.append(reach_words(REACH_INCHES[slug]))
        if check_die is None and attacker.has(EXPLOIT_WEAKNESS):
            check_die = EXPLOIT_WEAKNESS_CHECK
            notes.append(
                "Exploit Weakness: on Success Rating 0, a second die under ME deals 1 HP."
            )

    if weapon is not None and weapon_to_hit:
        source = weapon.name if kind == "melee" else f"{weapon.name} ACC"
        if slug == SUBDUAL_WEAPON and s.rear_arc and attacker.has(BASICS_OF_CQC):
            pass
        else:
            mods.append(Modifier("to-hit", weapon_to_hit, source))

    if s.dual_wield:
        skill = MELEE_DUAL_WIELD if kind == "melee" else RANGED_DUAL_WIELD
        one_handed = [
            slug_
            for slug_ in attacker.equipment
            if slug_ in equipment and equipment[slug_].kind == kind and equipment[slug_].hands == 1
        ]
        if not attacker.has(skill):
            problems.append(
                Problem(
                    "/situation/dual_wield", "skill-missing", f"Dual Wield ({kind}) is a skill."
                )
            )
        if weapon is None or weapon.hands != 1 or len(one_handed) < 2:
            problems.append(
                Problem(
                    "/situation/dual_wield",
                    "needs-equipment",
                    f"Dual Wield needs two one-handed {kind} weapons.",
                )
            )
        mods.append(Modifier("statistic", -1, "Dual Wield"))

    damage_multiplier = 1
    if s.mighty_attack:
        if not attacker.has(MIGHTY_ATTACK):
            problems.append(
                Problem("/situation/mighty_attack", "skill-missing", "Mighty Attack is a skill.")
            )
        if weapon is None or weapon.hands != 2:
            problems.append(
                Problem(
                    "/situation/mighty_attack",
                    "needs-equipment",
                    "Mighty Attack needs a two-handed weapon.",
                )
            )
        # Every To Hit bonus is given up to double the damage.
        dropped = [m for m in mods if m.applies_to == "to-hit" and m.amount > 0]
        mods = [m for m in mods if m not in dropped]
        if dropped:
            notes.append("Mighty Attack ignores " + ", ".join(m.source for m in dropped) + ".")
        damage_multiplier = 2

    fatigue_modifier(s, mods, problems)
    if s.to_hit_bonus:
        if kind != "melee":
            not_applicable(problems, "to_hit_bonus", kind)
        mods.append(Modifier("to-hit", s.to_hit_bonus, "Invigorate"))
    extras = context_modifiers(attacker, kind, s, context, mods, notes, problems)
    if problems:
        raise Invalid.of(problems)
    plan = planned(
        attacker,
        s,
        mods,
        kind=kind,
        weapon=slug,
        weapon_name=weapon.name if weapon is not None else "no weapon",
        target_df=target_df,
        rate_of_fire=rate_of_fire,
        actions=actions,
        damage_multiplier=damage_multiplier,
        notes=tuple(notes),
        blast=weapon.blast if weapon is not None and kind == "ranged" else None,
        check_die=check_die,
    )
    return replace(
        plan,
        max_damage=HIDDEN_EXPLOSIVES_MAX_DAMAGE if explosives else None,
        spends=extras.spends + ((HIDDEN_EXPLOSIVES,) if explosives else ()),
        best_of_two=extras.best_of_two,
        reroll=extras.reroll,
    )


@dataclass(frozen=True, slots=True)
class Extras:
    best_of_two: bool
    reroll: str
    spends: tuple[str, ...]


def context_modifiers(
    attacker: Figure,
    kind: AttackKind,
    s: Situation,
    context: Context,
    mods: list[Modifier],
    notes: list[str],
    problems: list[Problem],
    *,
    eagle_eye: int | None = None,
) -> Extras:
    """What the attacker's markers and declared skills add, for any attack: Invigorate on
    its next melee attack and Eagle Eye on its next ranged attack or spell (P8: the re-roll
    rolls a second die, the better stands, the markers go), Terrifying Sealed Power,
    Leadership. `eagle_eye`: the markers a spell's cast spent, for its attacks."""
    statistic = "ME" if kind == "melee" else "RA"
    best_of_two, reroll = s.best_of_two, "re-roll" if s.best_of_two else ""
    spends: tuple[str, ...] = ()
    markers = context.attacker_markers
    if kind == "melee" and markers.get(INVIGORATE, 0) > 0:
        best_of_two, reroll, spends = True, "Invigorate", (INVIGORATE,)
        if markers[INVIGORATE] >= 2 and not s.to_hit_bonus:
            mods.append(Modifier("to-hit", 1, "Invigorate"))
    eyes = markers.get(EAGLE_EYE, 0) if eagle_eye is None else eagle_eye
    if kind == "ranged" and eyes > 0:
        spends = (EAGLE_EYE,) if eagle_eye is None else ()
        notes.append('Eagle Eye: +5" range' + (", ignores Cover." if eyes >= 3 else "."))
        if eyes >= 2:
            best_of_two, reroll = True, "Eagle Eye"
    if s.sealed_power:
        _needs_skill(attacker, SEALED_POWER, "sealed_power", problems)
        if context.attacker_hp is not None and 2 * context.attacker_hp >= attacker.stats["HP"]:
            problems.append(
                Problem(
                    "/situation/sealed_power",
                    "situation-not-applicable",
                    f"Terrifying Sealed Power needs more than half of {attacker.name}'s HP lost.",
                )
            )
        mods.append(Modifier("statistic", 1, "Terrifying Sealed Power"))
    if s.leader is not None:
        leader = context.leader
        if leader is None or not leader.has(LEADERSHIP):
            problems.append(
                Problem(
                    "/situation/leader",
                    "skill-missing",
                    "The leader is a friendly figure with Super High School Level Leadership.",
                )
            )
        else:
            own, theirs = attacker.stats[statistic], leader.stats[statistic]
            mods.append(
                Modifier("statistic", theirs - own, f"Leadership ({leader.name}'s {statistic})")
            )
    return Extras(best_of_two, reroll, spends)


def _needs_skill(attacker: Figure, skill: str, name: str, problems: list[Problem]) -> None:
    if not attacker.has(skill):
        problems.append(
            Problem(f"/situation/{name}", "skill-missing", f"{attacker.name} lacks that skill.")
        )


def _needs_charge(problems: list[Problem], name: str, skill: str) -> None:
    problems.append(
        Problem(f"/situation/{name}", "situation-conflict", f"{skill} follows a charge.")
    )


def _movement_allowed(
    attacker: Figure, s: Situation, context: Context, problems: list[Problem]
) -> None:
    """Heavy Armour may not Dash; Aim for the Legs: no Run or Dash (a charge is a Run)."""
    if s.movement == "dashed" and attacker.carries(HEAVY_ARMOUR):
        problems.append(
            Problem("/situation/movement", "movement-refused", "Heavy Armour may not Dash.")
        )
    if context.attacker_markers.get(LEGS, 0) > 0 and (
        s.movement in ("ran", "dashed") or s.charged
    ):
        problems.append(
            Problem(
                "/situation/movement" if not s.charged else "/situation/charged",
                "movement-refused",
                f"Aim for the Legs: {attacker.name} may not Run, Dash or Charge in this "
                "activation.",
            )
        )


HIDDEN_EXPLOSIVES_MAX_DAMAGE = 2
HIDDEN_EXPLOSIVES_PROFILE = Equipment(
    slug=HIDDEN_EXPLOSIVES,
    name="Hidden Explosives",
    kind="ranged",
    hands=0,
    cost_multiplier=Fraction(0),
    cost_statistic=None,
    cost_constant=0,
    cost_label="",
    range_inches=None,
    fire_modes=(FireMode(rate_of_fire=1, accuracy=0),),
    blast=5,
    to_hit=0,
    df_bonus_melee=0,
    df_bonus_ranged=0,
    summary="Once a battle: a Blast 5 ranged attack at a point; at most 2 HP damage.",
)


def _hidden_explosives(
    attacker: Figure,
    kind: AttackKind,
    context: Context,
    notes: list[str],
    problems: list[Problem],
) -> None:
    if not attacker.has(HIDDEN_EXPLOSIVES):
        problems.append(
            Problem("/weapon", "skill-missing", f"{attacker.name} lacks Hidden Explosives.")
        )
    if HIDDEN_EXPLOSIVES in context.spent:
        problems.append(Problem("/weapon", "used-up", "Hidden Explosives are used once a battle."))
    notes.append("Hidden Explosives: at a point the player declares; at most 2 HP damage.")


def defence_against(target: Figure, kind: AttackKind, s: Situation, mods: list[Modifier]) -> int:
    """The target's DF: armour and shields (R8) and Fortify, never above 16."""
    target_df = target.defence[kind]
    if s.target_fortified:
        target_df = min(DF_MAX, target_df + 2)
        mods.append(Modifier("DF", 2, "Target Fortified"))
    return target_df


def every_attack_modifiers(
    s: Situation, mods: list[Modifier], *, ignores_cover: bool = False
) -> None:
    """The printed modifiers for every attack ("Attack Rolls"); `ignores_cover`: a spell
    that ignores Cover takes no Obscured modifier."""
    if not ignores_cover:
        if s.obscured == "partial":
            mods.append(Modifier("DF", 1, "Target Partially Obscured"))
        elif s.obscured == "significant":
            mods.append(Modifier("DF", 2, "Target Significantly Obscured"))
    if s.rear_arc:
        mods.append(Modifier("DF", -2, "Attacker in target's Rear Arc"))


def ranged_modifiers(
    attacker: Figure,
    s: Situation,
    slug: str | None,
    mods: list[Modifier],
    notes: list[str],
    problems: list[Problem],
) -> None:
    """The ranged attack's own modifiers ("Ranged Combat"): aiming, Fire on the Move, a
    target in melee."""
    if s.movement == "none":
        if slug == HEAVY_MACHINE_GUN:
            notes.append("A Heavy Machine Gun gains no bonus for not moving.")
        else:
            mods.append(Modifier("DF", -1, "Attacker Did Not Move"))
    elif s.movement in ("ran", "dashed"):
        if slug == SNIPER_RIFLE:
            problems.append(
                Problem(
                    "/situation/movement",
                    "cannot-fire-after-moving",
                    'A Sniper Rifle cannot fire after its firer moves more than 1".',
                )
            )
        if not attacker.has(FIRE_ON_THE_MOVE):
            problems.append(
                Problem(
                    "/situation/movement",
                    "skill-missing",
                    "Firing while running or dashing needs Fire on the Move.",
                )
            )
        penalty = -1 if s.movement == "ran" else -2
        mods.append(Modifier("statistic", penalty, f"Fire on the Move ({s.movement})"))
    if s.target_in_melee:
        mods.append(Modifier("DF", 3, "Target in Melee"))


def fatigue_modifier(s: Situation, mods: list[Modifier], problems: list[Problem]) -> None:
    """Sudden Fatigue's -1s on the statistic the attack uses (declared, P2)."""
    if s.statistic_penalty:
        if s.statistic_penalty < 0:
            problems.append(
                Problem("/situation/statistic_penalty", "invalid", "A penalty is 0 or more.")
            )
        mods.append(Modifier("statistic", -s.statistic_penalty, "Sudden Fatigue"))


def planned(
    attacker: Figure,
    s: Situation,
    mods: list[Modifier],
    *,
    kind: AttackKind,
    weapon: str | None,
    weapon_name: str,
    target_df: int,
    rate_of_fire: int,
    actions: int,
    damage_multiplier: int = 1,
    notes: tuple[str, ...] = (),
    blast: int | None = None,
    check_die: str | None = None,
) -> AttackPlan:
    """The plan with its sums: the statistic (clamped to 0..5), the to-hit, the DF."""
    statistic = "ME" if kind == "melee" else "RA"
    df_change = sum(
        m.amount for m in mods if m.applies_to == "DF" and m.source != "Target Fortified"
    )
    return AttackPlan(
        kind=kind,
        weapon=weapon,
        weapon_name=weapon_name,
        statistic=statistic,
        statistic_value=clamp_active(
            attacker.stats[statistic] + sum(m.amount for m in mods if m.applies_to == "statistic")
        ),
        to_hit=sum(m.amount for m in mods if m.applies_to == "to-hit"),
        target_df=target_df,
        modified_df=target_df + df_change,
        modifiers=tuple(mods),
        rate_of_fire=rate_of_fire,
        actions=actions,
        damage_multiplier=damage_multiplier,
        best_of_two=s.best_of_two,
        notes=notes,
        blast=blast,
        check_die=check_die,
    )


def resolve_attack(plan: AttackPlan, roll: int, *, dodge_inches: int = 2) -> AttackResult:
    """One attack die: the Success Rating, damage (P3), and the push or Dodge for Cover."""
    total = roll + plan.statistic_value + plan.to_hit
    rating = total - plan.modified_df
    hit = rating >= 0
    damage = max(0, rating) * plan.damage_multiplier
    if plan.max_damage is not None:
        damage = min(damage, plan.max_damage)
    if not hit:
        words = (
            'Miss: the attacker is Pushed Back 1".'
            if plan.kind == "melee"
            else "Miss: nothing happens."
        )
    elif plan.kind == "melee":
        words = f"Hit, Success Rating {rating}: {damage} damage, the target is Pushed Back " + (
            f'{1 + damage}".'
        )
    else:
        words = (
            f"Hit, Success Rating {rating}: {damage} damage, the target Dodges for Cover "
            f'{dodge_inches}".'
        )
    if plan.blast:
        words += " " + blast_words(plan.blast, hit)
    return AttackResult(roll, total, rating, hit, damage, words)


def dodge_for_cover_inches(target: Figure) -> int:
    """Dodge for Cover is 2" (Heroic Leap 4"; Super High School Level Athletics adds 1")."""
    inches = 4 if target.has(HEROIC_LEAP) else 2
    return inches + (1 if target.has(ATHLETICS) else 0)


def reach_words(inches: int) -> str:
    """Reach (Great Weapon 1", Polearm 2"): the site knows no positions (P2)."""
    return (
        f'Reach {inches}": it may attack a figure up to {inches}" away, and a charge '
        f'succeeds if it ends within {inches}" of the target.'
    )


def blast_words(blast: int, hit: bool) -> str:
    """Blast: every figure within the rating is pushed that far; the firer picks the
    direction on a hit, the defender on a miss (positions are the players', P2)."""
    chooser = "the firer" if hit else "the defender"
    return (
        f'Blast {blast}: push every figure within {blast}" of the target {blast}" '
        f"({chooser} picks the direction)."
    )


@dataclass(frozen=True, slots=True)
class Odds:
    """An attack's odds against a DF, for the print card."""

    df: int
    needed: int
    chance: Fraction
    expected_damage: Fraction


def odds_against(plan: AttackPlan, dfs: Iterable[int]) -> list[Odds]:
    """The same attack against each DF (the print card's DF 6 to 16)."""
    result: list[Odds] = []
    for df in dfs:
        shifted = replace(plan, target_df=df, modified_df=df + plan.modified_df - plan.target_df)
        result.append(Odds(df, shifted.needed, shifted.chance_to_hit, shifted.expected_damage))
    return result


# --- the attack action --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttackDeclaration:
    """An attack as a player declares it: who, whom, with what, in what situation (P2)."""

    attacker: object  # figure ids as sent; checked against the battle
    target: object
    kind: AttackKind
    weapon: str | None
    mode: int = 0
    situation: Situation = Situation()


def context_of(
    state: BattleState,
    figures: Mapping[str, Figure],
    attacker_id: str,
    target_id: str,
    leader: object,
) -> Context:
    """What the battle's state adds to an attack by `attacker_id` on `target_id` (and a
    declared leader, who must be an active friend of the attacker, P2)."""
    attacker = state["figures"][attacker_id]
    found: Figure | None = None
    if leader is not None:
        key = str(leader)
        friend = state["figures"].get(key)
        if (
            friend is not None
            and key in figures
            and key != attacker_id
            and friend["side"] == attacker["side"]
            and friend["status"] == ACTIVE
        ):
            found = figures[key]
    return Context(
        attacker_markers=attacker["markers"],
        target_markers=state["figures"][target_id]["markers"],
        attacker_hp=attacker["hp"],
        leader=found,
        spent=frozenset(attacker["spent"]),
    )


def plan_declared(
    state: BattleState,
    figures: Mapping[str, Figure],
    d: AttackDeclaration,
    equipment: Mapping[str, Equipment],
) -> AttackPlan:
    """The attack as declared in this battle, before rolling: both figures are in it, the
    target is an enemy not Out of Action, the attacker may act; the markers and skills the
    state holds apply (`Context`)."""
    problems: list[Problem] = []
    for where, fid in (("/figure", d.attacker), ("/target", d.target)):
        if str(fid) not in figures or str(fid) not in state["figures"]:
            problems.append(Problem(where, "not-found", f"No figure {fid} in this battle."))
    if problems:
        raise Invalid.of(problems)
    attacker_id, target_id = str(d.attacker), str(d.target)
    attacker, target = figures[attacker_id], figures[target_id]
    if state["figures"][attacker_id]["side"] == state["figures"][target_id]["side"]:
        raise Invalid("same-side", "Attack an enemy figure.", pointer="/target")
    require_able(state, attacker_id, attacker, "/figure")
    if state["figures"][target_id]["status"] == OUT_OF_ACTION:
        raise Invalid("figure-not-active", f"{target.name} is Out of Action.", pointer="/target")
    context = context_of(state, figures, attacker_id, target_id, d.situation.leader)
    return plan_attack(
        attacker,
        target,
        d.kind,
        d.weapon,
        d.situation,
        equipment=equipment,
        mode=d.mode,
        context=context,
    )


def attack(t: Table, d: AttackDeclaration) -> Outcome:
    """An attack (P2, P3): one die per attack the weapon makes (its rate of fire; two with
    a re-roll, P8), each resolved against the target in turn; damage, Unconscious, Out of
    Action; the defender's decisions wait (P9)."""
    t.own(d.attacker, "/figure")
    plan = plan_declared(t.state, t.figures, d, t.catalogue.equipment)
    attacker_id, _ = t.actor(d.attacker, "/figure")
    outcome = roll_attack(t, plan, attacker_id, str(d.target))
    outcome.detail["declaration"] = {
        "attacker": d.attacker,
        "target": d.target,
        "kind": d.kind,
        "weapon": d.weapon,
        "mode": d.mode,
        "situation": asdict(d.situation),
    }
    return outcome


def spend(t: Table, fid: str, plan: AttackPlan) -> str:
    """The markers and once-a-battle uses an attack spends (P8); answers words."""
    current = t.state["figures"][fid]
    said = []
    for used in plan.spends:
        if used in current["markers"]:
            remove_markers(t.state, fid, used)
            said.append(f"{MARKERS[used]} spent.")
        elif used == HIDDEN_EXPLOSIVES:
            current["spent"].append(used)
    return " ".join(said)


def roll_attack(t: Table, plan: AttackPlan, attacker_id: str, target_id: str) -> Outcome:
    """Roll a planned attack: per attack its die (and the re-roll's second die, P8: the
    better stands), then Subdual's or Exploit Weakness's die; the dice on the battle
    (`damage.apply_attack`); the defender's decisions (`decisions.open_after_attack`).

    Long because each attack's dice are rolled and applied in the order the rules give them.
    """
    attacker, target = t.figures[attacker_id], t.figures[target_id]
    spent = spend(t, attacker_id, plan)
    inches = dodge_for_cover_inches(target)
    results: list[AttackResult] = []
    rolled: list[str] = []
    pairs: list[list[int]] = []
    for _ in range(plan.rate_of_fire):
        dice = t.dice.d12(plan.dice_per_attack)
        result = resolve_attack(plan, max(dice), dodge_inches=inches)
        results.append(result)
        pairs.append(dice)
        if len(dice) == 2:
            rolled.append(
                f"rolled {dice[0]}, re-rolled {dice[1]} ({plan.reroll}): {max(dice)} stands. "
                f"{result.words}"
            )
        else:
            rolled.append(f"rolled {dice[0]}. {result.words}")
    check: CheckRecord | None = None
    if plan.check_die:
        check = {"kind": plan.check_die, "die": t.dice.d12(1)[0], "me": attacker.stats["ME"]}
    ranged = plan.kind == "ranged"
    before = {fid: snapshot(t.state, fid) for fid in dict.fromkeys((target_id, attacker_id))}
    effect = apply_attack(t.state, attacker, attacker_id, target_id, results, check, ranged=ranged)
    asked = open_after_attack(
        t,
        attacker_id,
        target_id,
        results,
        check,
        ranged=ranged,
        before=before,
        dodge_inches=inches,
    )
    if ranged and not any(r.hit for r in results) and attacker.has(HIT_AND_AWAY):
        effect.words.append(
            f"Hit and Away: {attacker.name} may Dodge for Cover "
            f'{dodge_for_cover_inches(attacker)}".'
        )
    words = (
        f"{attacker.name} attacks {target.name} ({plan.kind}, {plan.weapon_name}; "
        f"{plan.needed_words()}): "
        + " ".join(rolled)
        + "".join(f" {said}" for said in effect.words)
        + t.status_words(effect.events)
        + (f" {spent}" if spent else "")
        + "".join(f" {said}" for said in asked)
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
                    **({"rolls": dice} if len(dice) == 2 else {}),
                }
                for r, dice in zip(results, pairs, strict=True)
            ],
            "damage": sum(r.damage for r in results),
            "check": {"kind": check["kind"], "die": check["die"]} if check else None,
            "target": target_id,
            "attacker": attacker_id,
        },
        events=effect.events,
    )
