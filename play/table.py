"""The table's rules: the one place where DBD's play rules are applied (P1-P6).

Attacks with every printed modifier (the player declares the situation, P2), damage,
Friendship and Unconscious / Out of Action (P3), spellcasting and outcome tiers (P4),
Heal, Revive, Jump and Drop checks, and initiative (P1); with the exact odds of each
(fractions from counting the faces of the dice, never a simulation).

Plain data in, plain data out; no Django. The rules catalogue comes in as
`rules.catalogue` data, a figure's numbers as a `Figure` (copied from its force's stored
evaluation when a battle starts), and dice as an injected `random.Random` (the server
passes `random.SystemRandom()`), or as numbers entered at the table (P5).
"""

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb
from typing import Literal, NotRequired, TypedDict

from dbd_site.errors import Invalid, Problem, declare_codes
from rules.catalogue import Equipment, Spell, SpellOutcome

DIE = 12
FACES = range(1, DIE + 1)
DF_MAX = 16  # the rulebook's cap on a figure's DF (R3, R8)
ACTIVE_MIN, ACTIVE_MAX = 0, 5  # "regardless of modifiers"

# Skills that change a roll or its result (rules/fixtures/rules.yaml keys).
MELEE_DUAL_WIELD = "melee/dual-wield"
RANGED_DUAL_WIELD = "ranged/dual-wield"
BASICS_OF_CQC = "melee/the-basics-of-cqc"
MIGHTY_ATTACK = "melee/mighty-attack"
MARTIAL_ARTS = "melee/super-high-school-level-martial-arts"
ALERT_COMBATANT = "melee/alert-combatant"
FIRE_ON_THE_MOVE = "ranged/fire-on-the-move"
QUICKDRAW = "ranged/quickdraw"
BALLISTICS = "ranged/super-high-school-level-ballistics"
HEROIC_LEAP = "movement/heroic-leap"
ATHLETICS = "movement/super-high-school-level-athletics"
CATFALL = "movement/catfall"
ANATHEMA_AURA = "spellcasting/anathema-aura"
EMPOWERED_BLESSINGS = "spellcasting/empowered-blessings"
TRUE_POWER_OF_FRIENDSHIP = "support/the-true-power-of-friendship"

EXPLOIT_WEAKNESS = "melee/exploit-weakness"
SUBDUAL_CHECK, EXPLOIT_WEAKNESS_CHECK = "subdual", "exploit-weakness"
SUBDUAL_WEAPON = "subdual-weapon"
HAND_WEAPON = "hand-weapon"
HEAVY_MACHINE_GUN = "heavy-machine-gun"
SNIPER_RIFLE = "sniper-rifle"
TRADITIONAL_RANGED_WEAPON = "traditional-ranged-weapon"
LIGHT_ARMOUR, HEAVY_ARMOUR, CLIMBING_GEAR = "light-armour", "heavy-armour", "climbing-gear"
MEDICAL_KIT = "medical-kit"
TWO_ACTION_WEAPONS = frozenset({HEAVY_MACHINE_GUN})
EMPOWERED_SCHOOLS = frozenset({"restoration", "amplification"})
DRAGON_SLAYER = "dragon-slayer"
ANGELIC_HEALING = "support/angelic-healing"
# Reach (the rulebook's Great Weapon and Polearm text): how far away a melee attack reaches.
REACH_INCHES: Mapping[str, int] = {"great-weapon": 1, "polearm": 2}

AttackKind = Literal["melee", "ranged"]
Obscured = Literal["clear", "partial", "significant"]
Movement = Literal["none", "moved", "ran", "dashed"]
Status = Literal["active", "unconscious", "out-of-action"]
ACTIVE: Status = "active"
UNCONSCIOUS: Status = "unconscious"
OUT_OF_ACTION: Status = "out-of-action"

ERROR_CODES = declare_codes(
    {
        "weapon-not-carried": "The attacker does not carry that weapon.",
        "weapon-wrong-kind": "That weapon cannot make this kind of attack.",
        "unknown-fire-mode": "The weapon has no such fire mode.",
        "situation-not-applicable": "A ticked situation does not apply to this kind of attack.",
        "situation-conflict": "Two ticked situations cannot both be true.",
        "skill-missing": "The declared option needs a skill the figure does not have.",
        "needs-equipment": "The declared option needs equipment the figure does not carry.",
        "cannot-fire-after-moving": "That weapon cannot fire after such a move.",
        "invalid-roll": "A die entered as rolled is not a whole number from 1 to 12.",
        "wrong-dice-count": "The number of dice entered is not the number this roll takes.",
        "spell-not-known": "The caster does not know that spell, or has forgotten it.",
        "cannot-cast": "A figure with CA 0 casts no spells.",
        "invalid-chosen-value": "Dragon Slayer's chosen value is a whole number from 1 to 6.",
        "invalid-transfer": "A Friendship transfer is refused.",
        "invalid-distance": "A distance is a whole number of inches from 0 to 36.",
        "already-attacked": "The cast has already attacked that figure (one attack each).",
        "no-spell-attacks": "No cast is waiting for its attacks to be rolled.",
    }
)


# --- figures -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure's numbers as the battle copied them from its force (evaluation + document).

    `stats` are after advancements and before equipment (ME RA CA DF HP FR), `defence`
    the DF in melee and against ranged attacks with armour and shields (R8, capped at 16).
    """

    name: str
    stats: Mapping[str, int]
    defence: Mapping[str, int]
    skills: frozenset[str] = frozenset()
    equipment: tuple[str, ...] = ()
    spells: tuple[str, ...] = ()
    spell_focus: bool = False
    mastery: str | None = None

    def has(self, skill: str) -> bool:
        return skill in self.skills

    def carries(self, slug: str) -> bool:
        return slug in self.equipment


def clamp_active(value: int) -> int:
    """Active statistics stay within 0..5 whatever modifies them (the rulebook's rule)."""
    return max(ACTIVE_MIN, min(ACTIVE_MAX, value))


# --- dice ----------------------------------------------------------------------------------


def roll_dice(count: int, rng: random.Random) -> list[int]:
    return [rng.randint(1, DIE) for _ in range(count)]


def check_entered(dice: Sequence[object], count: int, where: str = "/dice") -> list[int]:
    """Dice entered as rolled at the table (P5): `count` whole numbers from 1 to 12."""
    problems: list[Problem] = []
    if len(dice) != count:
        problems.append(
            Problem(
                where,
                "wrong-dice-count",
                f"This roll takes {count} {'die' if count == 1 else 'dice'}; "
                f"{len(dice)} were entered.",
            )
        )
    for i, die in enumerate(dice):
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= DIE:
            problems.append(
                Problem(f"{where}/{i}", "invalid-roll", f"{die!r} is not a d12 result (1-12).")
            )
    if problems:
        raise Invalid.of(problems)
    return [int(d) for d in dice]  # type: ignore[call-overload]


def chance_at_least(needed: int) -> Fraction:
    """The chance that one d12 shows `needed` or more."""
    return Fraction(min(DIE, max(0, DIE + 1 - needed)), DIE)


def chance_at_least_best_of_two(needed: int) -> Fraction:
    """The chance that the better of two d12 shows `needed` or more (a re-roll kept if better)."""
    miss = 1 - chance_at_least(needed)
    return 1 - miss * miss


# --- attacks (P2) ---------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class Modifier:
    """One printed effect on an attack: on the target's DF, the statistic, or the to-hit."""

    applies_to: Literal["DF", "statistic", "to-hit"]
    amount: int
    source: str

    def words(self) -> str:
        sign = "+" if self.amount >= 0 else ""
        return f"{self.source}: {sign}{self.amount} {self.applies_to}"


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
        tail = chance_at_least_best_of_two if self.best_of_two else chance_at_least
        threshold = self.needed
        total = sum(
            (tail(threshold + k) for k in range(1, max(0, DIE - threshold) + 1)), Fraction(0)
        )
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
    if not attacker.carries(weapon.slug):
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


def _not_applicable(problems: list[Problem], name: str, kind: str) -> None:
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
) -> AttackPlan:
    """Apply every printed modifier to a declared attack (P2); refuses what cannot be.

    `weapon_slug` None is an attack without a weapon; `equipment` is the catalogue's.
    Raises `Invalid` with every problem at once (pointers into the declaration).
    """
    s = situation
    problems: list[Problem] = []
    weapon = None if weapon_slug is None else equipment.get(weapon_slug)
    if weapon_slug is not None and weapon is None:
        raise Invalid("weapon-not-carried", f"No weapon {weapon_slug!r}.", pointer="/weapon")
    mods: list[Modifier] = []
    notes: list[str] = []
    weapon_to_hit, rate_of_fire = _weapon(attacker, kind, weapon, mode, problems)
    slug = weapon.slug if weapon is not None else None

    target_df = _target_df(target, kind, s, mods)
    _every_attack(s, mods)

    actions = 1
    check_die: str | None = None
    if kind == "ranged":
        for name in ("charged", "non_charge_move", "mighty_attack"):
            if getattr(s, name):
                _not_applicable(problems, name, kind)
        if s.opponents_in_melee != 1:
            _not_applicable(problems, "opponents_in_melee", kind)
        if weapon is None:
            mods.append(Modifier("DF", 2, "No Ranged Weapon"))
        _ranged(attacker, s, slug, mods, notes, problems)
        if s.target_cannot_see_attacker:
            if slug == TRADITIONAL_RANGED_WEAPON:
                mods.append(Modifier("to-hit", 1, "Traditional Ranged Weapon, target unseeing"))
            else:
                _not_applicable(problems, "target_cannot_see_attacker", "non-bow")
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
            _not_applicable(problems, "quickdraw", "one-action")
    else:
        for name in ("target_in_melee", "target_cannot_see_attacker", "double_range", "quickdraw"):
            if getattr(s, name):
                _not_applicable(problems, name, kind)
        if s.movement in ("ran", "dashed") and not s.charged:
            _not_applicable(problems, "movement", kind)
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
        if s.charged:
            mods.append(Modifier("DF", -1, "Attacker Charged"))
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

    _fatigue(s, mods, problems)
    if s.to_hit_bonus:
        if kind != "melee":
            _not_applicable(problems, "to_hit_bonus", kind)
        mods.append(Modifier("to-hit", s.to_hit_bonus, "Invigorate"))
    if problems:
        raise Invalid.of(problems)
    return _planned(
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


def _target_df(target: Figure, kind: AttackKind, s: Situation, mods: list[Modifier]) -> int:
    """The target's DF: armour and shields (R8) and Fortify, never above 16."""
    target_df = target.defence[kind]
    if s.target_fortified:
        target_df = min(DF_MAX, target_df + 2)
        mods.append(Modifier("DF", 2, "Target Fortified"))
    return target_df


def _every_attack(s: Situation, mods: list[Modifier], *, ignores_cover: bool = False) -> None:
    """The printed modifiers for every attack ("Attack Rolls"); `ignores_cover`: a spell
    that ignores Cover takes no Obscured modifier."""
    if not ignores_cover:
        if s.obscured == "partial":
            mods.append(Modifier("DF", 1, "Target Partially Obscured"))
        elif s.obscured == "significant":
            mods.append(Modifier("DF", 2, "Target Significantly Obscured"))
    if s.rear_arc:
        mods.append(Modifier("DF", -2, "Attacker in target's Rear Arc"))


def _ranged(
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


def _fatigue(s: Situation, mods: list[Modifier], problems: list[Problem]) -> None:
    """Sudden Fatigue's -1s on the statistic the attack uses (declared, P2)."""
    if s.statistic_penalty:
        if s.statistic_penalty < 0:
            problems.append(
                Problem("/situation/statistic_penalty", "invalid", "A penalty is 0 or more.")
            )
        mods.append(Modifier("statistic", -s.statistic_penalty, "Sudden Fatigue"))


def _planned(
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


@dataclass(frozen=True, slots=True)
class AttackResult:
    roll: int
    total: int
    success_rating: int  # total - modified DF; a hit when 0 or more
    hit: bool
    damage: int
    words: str

    @property
    def push_inches(self) -> int:
        return 0 if not self.hit else 1 + self.damage


def resolve_attack(plan: AttackPlan, roll: int, *, dodge_inches: int = 2) -> AttackResult:
    """One attack die: the Success Rating, damage (P3), and the push or Dodge for Cover."""
    total = roll + plan.statistic_value + plan.to_hit
    rating = total - plan.modified_df
    hit = rating >= 0
    damage = max(0, rating) * plan.damage_multiplier
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


# --- damage and Friendship (P3) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recipient:
    """A friendly figure the defender's player names to take some damage (within 5")."""

    name: str
    fr: int
    amount: int  # damage moved onto this figure
    status: Status = ACTIVE
    true_power_of_friendship: bool = False
    inspire_markers: int = 0  # Inspire: 1 marker twice FR, 2 markers any amount


def transfer_limit(recipient: Recipient) -> int | None:
    """The most damage a figure may be transferred (its FR; Inspire raises it); None: any."""
    if recipient.inspire_markers >= 2:
        return None
    if recipient.inspire_markers == 1:
        return 2 * recipient.fr
    return recipient.fr


def received(recipient: Recipient) -> int:
    """What a recipient loses: The True Power of Friendship halves it, rounded down (R13)."""
    return recipient.amount // 2 if recipient.true_power_of_friendship else recipient.amount


def check_transfers(damage: int, recipients: Sequence[Recipient]) -> int:
    """Validate the transfers of `damage` (P3); returns what the defender keeps."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, r in enumerate(recipients):
        where = f"/transfers/{i}"
        limit = transfer_limit(r)
        if r.name in seen:
            problems.append(Problem(where, "invalid-transfer", f"{r.name} is named twice."))
        seen.add(r.name)
        if r.status != ACTIVE:
            problems.append(
                Problem(where, "invalid-transfer", f"{r.name} is not active and takes no damage.")
            )
        if r.amount < 1:
            problems.append(
                Problem(where, "invalid-transfer", "A transfer moves at least 1 damage.")
            )
        elif limit is not None and r.amount > limit:
            problems.append(
                Problem(
                    where,
                    "invalid-transfer",
                    f"{r.name} may take at most {limit} damage (FR {r.fr}).",
                )
            )
    moved = sum(r.amount for r in recipients)
    if moved > damage:
        problems.append(
            Problem(
                "/transfers",
                "invalid-transfer",
                f"{moved} damage transferred, but only {damage} was dealt.",
            )
        )
    if problems:
        raise Invalid.of(problems)
    return damage - moved


def take_damage(hp: int, status: Status, damage: int, success_rating: int) -> tuple[int, Status]:
    """A hit's effect on a figure (P3): HP falls (not below 0); at 0 HP it is Unconscious;
    an Unconscious figure hit with a Success Rating of 1 or more is Out of Action."""
    if status == OUT_OF_ACTION:
        return hp, status
    if status == UNCONSCIOUS:
        return hp, OUT_OF_ACTION if success_rating >= 1 else UNCONSCIOUS
    hp = max(0, hp - damage)
    return hp, UNCONSCIOUS if hp == 0 else ACTIVE


def lose_hp(hp: int, status: Status, amount: int) -> tuple[int, Status]:
    """HP lost outside an attack (a transfer, a fall, terrain): Unconscious at 0, never OOA."""
    if status != ACTIVE or amount <= 0:
        return hp, status
    hp = max(0, hp - amount)
    return hp, UNCONSCIOUS if hp == 0 else ACTIVE


def apply_check_die(
    state: "BattleState",
    plan: AttackPlan,
    attacker: Figure,
    attacker_id: str,
    target_id: str,
    result: AttackResult,
    die: int,
) -> tuple[str, list["Event"]]:
    """The attack's second die, after its hit is applied: Subdual's knock-out roll (the
    target must roll under its remaining HP) or Exploit Weakness (on Success Rating 0, a
    roll at or under ME deals 1 HP). Returns words and events."""
    target = state["figures"][target_id]
    if plan.check_die == SUBDUAL_CHECK and result.hit and target["status"] == ACTIVE:
        if subdual_knocks_out(die, target["hp"]):
            target["status"] = UNCONSCIOUS
            return (
                f"Subdual: the target rolled {die}, not under its {target['hp']} HP.",
                [{"figure": target_id, "status": UNCONSCIOUS, "by": attacker_id}],
            )
        return f"Subdual: the target rolled {die}, under its {target['hp']} HP.", []
    if (
        plan.check_die == EXPLOIT_WEAKNESS_CHECK
        and result.hit
        and result.success_rating == 0
        and target["status"] == ACTIVE
    ):
        if die <= attacker.stats["ME"]:
            before = target["status"]
            target["hp"], target["status"] = lose_hp(target["hp"], before, 1)
            events: list[Event] = (
                [{"figure": target_id, "status": target["status"], "by": attacker_id}]
                if target["status"] != before
                else []
            )
            return f"Exploit Weakness: rolled {die}, at or under ME: 1 damage.", events
        return f"Exploit Weakness: rolled {die}, over ME.", []
    return "", []


def subdual_knocks_out(roll: int, hp: int) -> bool:
    """Subdual Weapon: the target must roll below its remaining HP or fall Unconscious."""
    return roll >= hp


# --- spellcasting (P4) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpellPlan:
    spell: str
    spell_name: str
    dice: int  # CA dice
    difficulty: int
    bonus_successes: int  # Supreme Spell Mastery
    modifiers: tuple[Modifier, ...]
    outcomes: tuple[SpellOutcome, ...]
    actions: int = 1

    @property
    def chance_per_die(self) -> Fraction:
        return chance_at_least(self.difficulty)

    def chance_of_successes(self, successes: int) -> Fraction:
        """Exact: the dice that succeed are binomial; Mastery adds a fixed success."""
        k = successes - self.bonus_successes
        if not 0 <= k <= self.dice:
            return Fraction(0)
        p = self.chance_per_die
        return comb(self.dice, k) * p**k * (1 - p) ** (self.dice - k)

    def tier_for(self, successes: int) -> SpellOutcome | None:
        return tier_for(self.outcomes, successes)

    def tier_odds(self) -> list[tuple[SpellOutcome | None, Fraction]]:
        """Each outcome tier with its chance, and None (no effect) first."""
        odds: dict[int | None, Fraction] = {}
        for n in range(self.bonus_successes, self.dice + self.bonus_successes + 1):
            tier = self.tier_for(n)
            key = None if tier is None else self.outcomes.index(tier)
            odds[key] = odds.get(key, Fraction(0)) + self.chance_of_successes(n)
        result: list[tuple[SpellOutcome | None, Fraction]] = [(None, odds.get(None, Fraction(0)))]
        result += [(o, odds.get(i, Fraction(0))) for i, o in enumerate(self.outcomes)]
        return result


def tier_for(outcomes: Sequence[SpellOutcome], successes: int) -> SpellOutcome | None:
    """The tier for a number of successes; above the top tier, the top tier; None: no effect."""
    for outcome in outcomes:
        top = outcome.max_successes
        if successes >= outcome.min_successes and (top is None or successes <= top):
            return outcome
    if outcomes and successes > max(o.max_successes or 0 for o in outcomes):
        best = max(outcomes, key=lambda o: o.min_successes)
        if successes >= best.min_successes:
            return best
    return None


def plan_spell(
    caster: Figure,
    spell: Spell,
    *,
    anathema_aura: bool = False,
    empowered: bool = False,
    chosen: int | None = None,
    statistic_penalty: int = 0,
    forgotten: Iterable[str] = (),
) -> SpellPlan:
    """P4: CA dice against the Difficulty (Spell Focus -1, Anathema Aura +1, Empowered
    Blessings +1), Supreme Spell Mastery +1 success."""
    problems: list[Problem] = []
    known = set(caster.spells) - set(forgotten)
    if spell.slug not in known:
        problems.append(
            Problem("/spell", "spell-not-known", f"{caster.name} cannot cast {spell.name}.")
        )
    mods: list[Modifier] = []
    actions = 1
    if spell.slug == DRAGON_SLAYER:
        actions = 2
        if chosen is None or isinstance(chosen, bool) or not 1 <= chosen <= 6:
            problems.append(
                Problem("/chosen", "invalid-chosen-value", "Choose a value from 1 to 6.")
            )
            difficulty = 12
        else:
            difficulty = chosen + 6
    else:
        if chosen is not None:
            problems.append(
                Problem("/chosen", "invalid-chosen-value", "Only Dragon Slayer takes a value.")
            )
        difficulty = spell.difficulty if spell.difficulty is not None else DIE
    if caster.spell_focus:
        mods.append(Modifier("DF", -1, "Spell Focus"))
    if anathema_aura:
        mods.append(Modifier("DF", 1, "Anathema Aura"))
    if empowered:
        if not caster.has(EMPOWERED_BLESSINGS):
            problems.append(
                Problem("/empowered", "skill-missing", "Empowered Blessings is a skill.")
            )
        if spell.school not in EMPOWERED_SCHOOLS:
            problems.append(
                Problem(
                    "/empowered",
                    "situation-not-applicable",
                    "Empowered Blessings works on Restoration and Amplification spells.",
                )
            )
        mods.append(Modifier("DF", 1, "Empowered Blessings"))
    bonus = 1 if caster.mastery == spell.slug else 0
    if bonus:
        mods.append(Modifier("statistic", 1, "Supreme Spell Mastery (+1 success)"))
    if statistic_penalty:
        mods.append(Modifier("statistic", -statistic_penalty, "Sudden Fatigue"))
    dice = clamp_active(caster.stats["CA"] - statistic_penalty)
    if dice < 1:
        problems.append(Problem("/caster", "cannot-cast", f"{caster.name} has CA 0."))
    if problems:
        raise Invalid.of(problems)
    # Difficulty: the text's "Difficulty" modifiers are carried as "DF" lines, as numbers.
    difficulty += sum(m.amount for m in mods if m.applies_to == "DF")
    return SpellPlan(
        spell=spell.slug,
        spell_name=spell.name,
        dice=dice,
        difficulty=difficulty,
        bonus_successes=bonus,
        modifiers=tuple(mods),
        outcomes=spell.outcomes,
        actions=actions,
    )


@dataclass(frozen=True, slots=True)
class SpellResult:
    dice: tuple[int, ...]
    successes: int
    tier: SpellOutcome | None

    def words(self) -> str:
        s = "success" if self.successes == 1 else "successes"
        effect = self.tier.effect if self.tier else "The spell has no effect."
        return f"Rolled {', '.join(map(str, self.dice))}: {self.successes} {s}. {effect}"


def cast(plan: SpellPlan, dice: Sequence[int]) -> SpellResult:
    """Successes are the dice at or above the Difficulty, plus Mastery's (P4)."""
    successes = sum(1 for d in dice if d >= plan.difficulty) + plan.bonus_successes
    return SpellResult(tuple(dice), successes, plan.tier_for(successes))


# --- spell attacks (Destruction, Dragon Slayer) ---------------------------------------------
#
# The Destruction outcomes say the target "suffers a ranged attack" with a profile (ROF,
# Acc, Blast). "Attack Rolls" has an attack roll RA or ME against the target's DF, and
# "Combat Resolution" has a ranged attack roll 1d12 + RA. The rulings say nothing more, so
# the site resolves a spell's attack as any ranged attack by its caster (P2, P3): RA, the
# tier's Acc as the to-hit bonus (as a weapon's ACC), the printed modifiers, damage, Dodge
# for Cover. The spell is the weapon: "No Ranged Weapon" never applies to it.


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


class SpellAttackState(TypedDict):
    """A cast whose attacks are still to be rolled, and the targets it has attacked."""

    caster: str
    spell: str
    tier: int
    successes: int
    chosen: int | None
    attacked: list[str]


def open_spell_attacks(
    state: "BattleState",
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


def pending_spell_attacks(state: "BattleState") -> SpellAttackState | None:
    return state.get("spell_attacks")


def close_spell_attacks(state: "BattleState") -> None:
    """The cast's attacks lapse: when the caster's activation ends, the turn ends, or
    another spell is cast."""
    state.pop("spell_attacks", None)


def spell_target_problems(
    state: "BattleState", target_id: str, attacks: SpellAttacks
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


def spend_spell_attack(state: "BattleState", target_id: str, attacks: SpellAttacks) -> int | None:
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
) -> AttackPlan:
    """One target's share of a cast's attacks, as a ranged attack by the caster (RA, the
    tier's Acc) with the printed modifiers (P2). Raises `Invalid` with every problem."""
    s = situation
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
            _not_applicable(problems, name, "spell's")
    if s.opponents_in_melee != 1:
        _not_applicable(problems, "opponents_in_melee", "spell's")
    if s.to_hit_bonus:
        _not_applicable(problems, "to_hit_bonus", "spell's")
    mods: list[Modifier] = []
    notes: list[str] = [f"{attacks.spell_name}: {attacks.words()}."]
    target_df = _target_df(target, "ranged", s, mods)
    _every_attack(s, mods, ignores_cover=attacks.ignores_cover)
    if attacks.ignores_cover and s.obscured != "clear":
        notes.append(f"{attacks.spell_name} ignores Cover: no Obscured modifier.")
    _ranged(caster, s, None, mods, notes, problems)
    if attacks.accuracy:
        mods.append(Modifier("to-hit", attacks.accuracy, f"{attacks.spell_name} Acc"))
    _fatigue(s, mods, problems)
    if problems:
        raise Invalid.of(problems)
    return _planned(
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


# --- other actions ------------------------------------------------------------------------


def heal_amount(roll: int, target_hp: int, target_max_hp: int, healer_fr: int) -> int:
    """Heal: 1 HP per point the roll beats the target's HP, up to the healer's FR (and the
    target's maximum HP)."""
    return max(0, min(roll - target_hp, healer_fr, target_max_hp - target_hp))


def heal_odds(
    target_hp: int, target_max_hp: int, healer_fr: int, *, reroll: bool = False
) -> dict[int, Fraction]:
    """The chance of each amount healed, exactly; `reroll`: Angelic Healing rolls again
    when the first die heals nothing (`rerolls_heal`)."""
    odds: dict[int, Fraction] = {}
    for amount in range(0, max(0, min(healer_fr, target_max_hp - target_hp)) + 1):
        odds[amount] = Fraction(0)
    for face in FACES:
        amount = heal_amount(face, target_hp, target_max_hp, healer_fr)
        odds[amount] += Fraction(1, DIE)
    if reroll:
        nothing = odds[0]
        odds = {a: (c * nothing if a == 0 else c + nothing * c) for a, c in odds.items()}
    return odds


def revives(roll: int, target_fr: int) -> bool:
    """Revive: a roll equal to or below the target's FR wakes it with 1 HP."""
    return roll <= target_fr


def revive_chance(target_fr: int, *, reroll: bool = False) -> Fraction:
    """`reroll`: Angelic Healing rolls again after a failed Revive (`rerolls_revive`)."""
    once = Fraction(max(0, min(DIE, target_fr)), DIE)
    return 1 - (1 - once) ** 2 if reroll else once


def rerolls_heal(healer: Figure, amount: int) -> bool:
    """Angelic Healing ("may re-roll Healing and Revive rolls"): the site re-rolls a Heal
    that heals nothing; the second die stands. A Heal that heals something is kept."""
    return healer.has(ANGELIC_HEALING) and amount == 0


def rerolls_revive(reviver: Figure, revived: bool) -> bool:
    """Angelic Healing: the site re-rolls a failed Revive; the second die stands."""
    return reviver.has(ANGELIC_HEALING) and not revived


# --- outcomes the players carry out at the table ----------------------------------------------


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


def jump_modifiers(figure: Figure, movement: Movement) -> tuple[Modifier, ...]:
    """Jump and Drop checks: Light Armour -2, Heavy Armour -3, Climbing Gear +1,
    running +1, dashing +2."""
    mods: list[Modifier] = []
    if figure.carries(LIGHT_ARMOUR):
        mods.append(Modifier("statistic", -2, "Light Armour"))
    if figure.carries(HEAVY_ARMOUR):
        mods.append(Modifier("statistic", -3, "Heavy Armour"))
    if figure.carries(CLIMBING_GEAR):
        mods.append(Modifier("statistic", 1, "Climbing Gear"))
    if movement == "ran":
        mods.append(Modifier("statistic", 1, "Running"))
    elif movement == "dashed":
        mods.append(Modifier("statistic", 2, "Dashing"))
    return tuple(mods)


@dataclass(frozen=True, slots=True)
class JumpPlan:
    distance: int
    modifiers: tuple[Modifier, ...]
    catfall: bool

    @property
    def bonus(self) -> int:
        return sum(m.amount for m in self.modifiers)

    @property
    def needed(self) -> int:
        """The check passes when the roll plus modifiers exceeds the distance."""
        return self.distance + 1 - self.bonus

    @property
    def chance(self) -> Fraction:
        return chance_at_least(self.needed)

    def damage(self, roll: int) -> int:
        """On a fail, 1 HP per point short of passing (Catfall halves it, R13)."""
        short = max(0, self.needed - roll)
        return short // 2 if self.catfall else short


def plan_jump(figure: Figure, distance: int, movement: Movement = "moved") -> JumpPlan:
    if isinstance(distance, bool) or not isinstance(distance, int) or not 0 <= distance <= 36:
        raise Invalid("invalid-distance", "The distance is 0 to 36 inches.", pointer="/distance")
    if movement == "dashed" and figure.carries(HEAVY_ARMOUR):
        raise Invalid(
            "cannot-fire-after-moving",
            "A figure in Heavy Armour may not Dash.",
            pointer="/movement",
        )
    return JumpPlan(distance, jump_modifiers(figure, movement), figure.has(CATFALL))


# --- initiative (P1) ------------------------------------------------------------------------


def initiative_bonuses(active: Sequence[int]) -> list[int]:
    """+1 for the side (or sides) with the fewest active figures, when not all are equal."""
    fewest = min(active)
    if all(a == fewest for a in active):
        return [0 for _ in active]
    return [1 if a == fewest else 0 for a in active]


@dataclass(frozen=True, slots=True)
class Initiative:
    rolls: tuple[tuple[int, ...], ...]  # each round: one die per side still tied
    bonuses: tuple[int, ...]
    winner: int  # index of the side that activates first


def _leaders(contenders: Sequence[int], dice: Sequence[int], bonuses: Sequence[int]) -> list[int]:
    totals = {side: die + bonuses[side] for side, die in zip(contenders, dice, strict=True)}
    best = max(totals.values())
    return [side for side in contenders if totals[side] == best]


def initiative_from(rounds: Sequence[Sequence[int]], bonuses: Sequence[int]) -> Initiative:
    """Settle initiative from rounds of dice (P1): the highest total wins; the sides tied
    for it roll again (the next round has one die per tied side)."""
    contenders = list(range(len(bonuses)))
    for i, dice in enumerate(rounds):
        if len(dice) != len(contenders):
            raise Invalid(
                "wrong-dice-count",
                f"Round {i + 1} of initiative takes {len(contenders)} dice.",
                pointer=f"/dice/{i}",
            )
        contenders = _leaders(contenders, dice, bonuses)
        if len(contenders) == 1:
            if i != len(rounds) - 1:
                raise Invalid(
                    "wrong-dice-count",
                    "Initiative was settled before the last round.",
                    pointer=f"/dice/{i + 1}",
                )
            return Initiative(tuple(tuple(r) for r in rounds), tuple(bonuses), contenders[0])
    raise Invalid("wrong-dice-count", "Initiative is still tied: roll again.", pointer="/dice")


def roll_initiative(active: Sequence[int], rng: random.Random) -> Initiative:
    """P1: each side rolls 1d12, +1 for the side with fewer active figures; ties again."""
    bonuses = initiative_bonuses(active)
    rounds: list[tuple[int, ...]] = []
    contenders = list(range(len(active)))
    while True:
        dice = tuple(roll_dice(len(contenders), rng))
        rounds.append(dice)
        contenders = _leaders(contenders, dice, bonuses)
        if len(contenders) == 1:
            return Initiative(tuple(rounds), tuple(bonuses), contenders[0])


def initiative_chance(active_first: int, active_second: int) -> Fraction:
    """The chance the first of two sides wins initiative (ties rolled again), exactly."""
    first, second = initiative_bonuses([active_first, active_second])
    wins = sum(1 for a in FACES for b in FACES if a + first > b + second)
    ties = sum(1 for a in FACES for b in FACES if a + first == b + second)
    return Fraction(wins, DIE * DIE - ties)


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


# --- the battle's state --------------------------------------------------------------------
#
# What changes during a battle, as JSON-ready plain data: each figure's HP, status,
# activation, markers, discarded items and forgotten spells; the turn, initiative and whose
# activation it is. Every change below returns the events the battle record is filled from
# (P6): who went Unconscious or Out of Action, and by whose hand.

MARKERS: Mapping[str, str] = {
    "wall": "Wall",
    "earth-ward": "Earth Ward",
    "soul-bond": "Soul Bond",
    "clock-down": "Clock Down",
    "clock-up": "Clock Up",
    "bad-luck": "Bad Luck",
    "invigorate": "Invigorate",
    "inspire": "Inspire",
    "fortify": "Fortify",
    "eagle-eye": "Eagle Eye",
    "extreme-speed": "Extreme Speed",
    "empowered": "Empowered",
    "sudden-fatigue": "Sudden Fatigue (-1)",
}
ONE_USE_ITEMS = ("escape-kit", "climbing-gear", "smoke-grenade", "tool-kit")
# The markers a spell places on its target, per outcome tier (in the catalogue's tier
# order); "X" spells place one per success.
SPELL_MARKERS: Mapping[str, tuple[str, tuple[int, ...] | None]] = {
    "protective-wall": ("wall", (1, 2, 3)),
    "soul-bond": ("soul-bond", (1, 1)),
    "earth-ward": ("earth-ward", (1, 2)),
    "clock-down": ("clock-down", (1, 2, 3)),
    "sudden-fatigue": ("sudden-fatigue", (1, 2, 3)),
    "ultimate-bad-luck": ("bad-luck", (1, 2, 3)),
    "clock-up": ("clock-up", (1, 1)),
    "invigorate": ("invigorate", (1, 2, 2)),
    "inspire": ("inspire", (1, 2)),
    "fortify": ("fortify", (1, 1)),
    "eagle-eye": ("eagle-eye", (1, 2, 3)),
    "extreme-speed": ("extreme-speed", None),
}
HEALING_SPRING, REVIVING_BREATH, MANA_OBLITERATION = (
    "healing-spring",
    "reviving-breath",
    "mana-obliteration",
)
D3 = 3  # Healing Spring's 1d3 at 3+ successes


def healing_spring_d3(tier_index: int | None) -> bool:
    """Whether the cast's tier rolls Healing Spring's 1d3 (3+ successes: 1d3 + 2 HP)."""
    return tier_index is not None and tier_index >= 1


def healing_spring_hp(tier_index: int, d3: int | None) -> int:
    """HP Healing Spring restores: 2 at 1-2 successes, 1d3 + 2 at 3+."""
    return 2 + (d3 or 0) if healing_spring_d3(tier_index) else 2


def check_d3(die: object, where: str) -> int:
    """A d3 entered as rolled at the table (P5): a whole number from 1 to 3."""
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= D3:
        raise Invalid("invalid-roll", f"{die!r} is not a d3 result (1-3).", pointer=where)
    return die


declare_codes(
    {
        "figure-not-active": "The figure is Unconscious or Out of Action and cannot do this.",
        "figure-not-unconscious": "Only an Unconscious figure is revived.",
        "same-side": "An attack's target is an enemy figure.",
        "other-side": "Friendship moves damage onto friendly figures only.",
        "unknown-marker": "No marker has that name.",
        "unknown-item": "The figure carries no such one-use item, or discarded it already.",
        "nothing-to-transfer": "Damage is transferred right after the attack that dealt it.",
    }
)


class FigureState(TypedDict):
    side: int
    hp: int
    max_hp: int
    status: Status
    activated: bool
    markers: dict[str, int]
    discarded: list[str]
    forgotten: list[str]


class InitiativeState(TypedDict):
    rolls: list[list[int]]
    bonuses: list[int]
    winner: int


class BattleState(TypedDict):
    turn: int
    initiative: InitiativeState | None
    figures: dict[str, FigureState]
    spell_attacks: NotRequired[SpellAttackState]  # a cast's attacks still to be rolled


class Event(TypedDict):
    """A change of status the record is filled from (P6)."""

    figure: str
    status: Status
    by: str | None  # the figure whose attack did it, if any


def new_state(figures: Mapping[str, tuple[int, Figure]]) -> BattleState:
    """The state at the start: every figure active at full HP; turn 1, no initiative yet."""
    return {
        "turn": 1,
        "initiative": None,
        "figures": {
            fid: {
                "side": side,
                "hp": figure.stats["HP"],
                "max_hp": figure.stats["HP"],
                "status": ACTIVE,
                "activated": False,
                "markers": {},
                "discarded": [],
                "forgotten": [],
            }
            for fid, (side, figure) in figures.items()
        },
    }


def active_counts(state: BattleState, sides: int) -> list[int]:
    counts = [0] * sides
    for figure in state["figures"].values():
        if figure["status"] == ACTIVE:
            counts[figure["side"]] += 1
    return counts


def set_initiative(state: BattleState, initiative: Initiative) -> None:
    state["initiative"] = {
        "rolls": [list(r) for r in initiative.rolls],
        "bonuses": list(initiative.bonuses),
        "winner": initiative.winner,
    }


def acting_side(state: BattleState, sides: int) -> int | None:
    """Whose activation it is: sides alternate from the initiative winner; a side with no
    figure left to activate is skipped (it activates the rest at the end, as printed)."""
    initiative = state["initiative"]
    if initiative is None:
        return None
    waiting = [0] * sides
    done = [0] * sides
    for figure in state["figures"].values():
        if figure["activated"]:
            done[figure["side"]] += 1
        elif figure["status"] == ACTIVE:
            waiting[figure["side"]] += 1
    if not any(waiting):
        return None
    order = [(initiative["winner"] + i) % sides for i in range(sides)]
    # The side whose turn it is has activated the fewest, the winner first among equals.
    candidates = [side for side in order if waiting[side]]
    return min(candidates, key=lambda side: (done[side], order.index(side)))


def _figure(state: BattleState, fid: str, where: str) -> FigureState:
    try:
        return state["figures"][fid]
    except KeyError:
        raise Invalid("not-found", f"No figure {fid} in this battle.", pointer=where) from None


def require_active(state: BattleState, fid: str, name: str, where: str) -> FigureState:
    figure = _figure(state, fid, where)
    if figure["status"] != ACTIVE:
        raise Invalid(
            "figure-not-active", f"{name} is {status_words(figure['status'])}.", pointer=where
        )
    return figure


DETERMINATION = "movement/determination"
EXTREME_DETERMINATION = "support/extreme-determination"


def can_act(current: FigureState, figure: Figure) -> bool:
    """Active figures act; an Unconscious one acts with Extreme Determination, or with
    Determination if it has not activated this turn (its last activation)."""
    if current["status"] == ACTIVE:
        return True
    if current["status"] != UNCONSCIOUS:
        return False
    return figure.has(EXTREME_DETERMINATION) or (
        figure.has(DETERMINATION) and not current["activated"]
    )


def require_able(state: BattleState, fid: str, figure: Figure, where: str) -> FigureState:
    """The figure acting: refused unless `can_act`."""
    current = _figure(state, fid, where)
    if not can_act(current, figure):
        raise Invalid(
            "figure-not-active",
            f"{figure.name} is {status_words(current['status'])} and cannot act.",
            pointer=where,
        )
    return current


def status_words(status: Status) -> str:
    return {ACTIVE: "active", UNCONSCIOUS: "Unconscious", OUT_OF_ACTION: "Out of Action"}[status]


WALL, EARTH_WARD, EMPOWERED = "wall", "earth-ward", "empowered"
DISPEL_MAGIC = "dispel-magic"


@dataclass(frozen=True, slots=True)
class Wards:
    """Protective Wall and Earth Ward, the next time a figure sustains damage."""

    damage: int  # what the figure loses: halved (rounded down) by an Earth Ward marker
    earth_ward: bool  # one Earth Ward marker is discarded
    reflected: int  # Wall markers discarded: the attacker suffers that much damage

    def words(self, before: int, attacker: str) -> str:
        said = []
        if self.earth_ward:
            said.append(f"Earth Ward halves {before} damage to {self.damage}.")
        if self.reflected:
            marker = "marker" if self.reflected == 1 else "markers"
            said.append(
                f"Wall: {self.reflected} {marker} discarded; {attacker} suffers "
                f"{self.reflected} damage."
            )
        return " ".join(said)


def wards(damage: int, markers: Mapping[str, int]) -> Wards:
    """What the target's wards do to `damage` it would sustain (1 or more; 0 is no damage
    and spends nothing). Earth Ward: discard one marker to halve it (rounded down, as P3
    halves). Protective Wall: "discard any number of markers": the site discards them all,
    so the attacker suffers one damage per marker."""
    if damage <= 0:
        return Wards(max(0, damage), False, 0)
    earth_ward = markers.get(EARTH_WARD, 0) > 0
    return Wards(damage // 2 if earth_ward else damage, earth_ward, markers.get(WALL, 0))


def dispelled(markers: Mapping[str, int], tier_index: int) -> list[str] | None:
    """Dispel Magic's markers removed from the target: every spell effect at 3+ successes
    (tier 1); at 1-2 (tier 0) one effect: the only kind of marker it has, or None when the
    players must choose among several (declared as a change)."""
    kinds = sorted(markers)
    if tier_index >= 1 or len(kinds) <= 1:
        return kinds
    return None


@dataclass(frozen=True, slots=True)
class Hit:
    """What an attack's hit did to the battle: record events, and the target's wards."""

    events: list[Event]
    warded: Wards | None = None
    sustained: int = 0  # the damage the target would have lost before its wards

    def words(self, attacker: str) -> str:
        return "" if self.warded is None else self.warded.words(self.sustained, attacker)


def apply_hit(
    state: BattleState,
    attacker_id: str,
    target_id: str,
    result: AttackResult,
    transfers: Sequence[tuple[str, Recipient]] = (),
) -> Hit:
    """An attack's result on the battle (P3): damage less what Friendship moves away, then
    the target's Earth Ward and Protective Wall (`wards`), the recipients' losses,
    Unconscious at 0 HP, Out of Action for an Unconscious figure hit."""
    events: list[Event] = []
    target = _figure(state, target_id, "/target")
    if not result.hit:
        return Hit(events)
    kept = result.damage
    if transfers:
        if target["status"] != ACTIVE:
            raise Invalid(
                "nothing-to-transfer",
                "Only an active figure that takes damage transfers it.",
                pointer="/transfers",
            )
        kept = check_transfers(result.damage, [r for _, r in transfers])
    sustained = kept
    warded: Wards | None = None
    if target["status"] == ACTIVE and kept > 0:
        warded = wards(kept, target["markers"])
        kept = warded.damage
        if warded.earth_ward:
            add_markers(state, target_id, EARTH_WARD, -1)
        if warded.reflected:
            add_markers(state, target_id, WALL, -warded.reflected)
            events += lose(state, attacker_id, warded.reflected)
        if not warded.earth_ward and not warded.reflected:
            warded = None
    before = target["status"]
    target["hp"], target["status"] = take_damage(
        target["hp"], target["status"], kept, result.success_rating
    )
    if target["status"] != before:
        events.append({"figure": target_id, "status": target["status"], "by": attacker_id})
    for fid, recipient in transfers:
        friend = _figure(state, fid, "/transfers")
        if friend["side"] != target["side"] or fid == target_id:
            raise Invalid(
                "other-side",
                f"{recipient.name} is not a friend of the target.",
                pointer="/transfers",
            )
        was = friend["status"]
        friend["hp"], friend["status"] = lose_hp(friend["hp"], was, received(recipient))
        if friend["status"] != was:
            events.append({"figure": fid, "status": friend["status"], "by": None})
    return Hit(events, warded, sustained)


def lose(state: BattleState, fid: str, amount: int) -> list[Event]:
    """HP lost outside an attack (a fall, a failed jump, terrain)."""
    figure = _figure(state, fid, "/figure")
    was = figure["status"]
    figure["hp"], figure["status"] = lose_hp(figure["hp"], was, amount)
    return (
        [{"figure": fid, "status": figure["status"], "by": None}]
        if figure["status"] != was
        else []
    )


def heal(state: BattleState, fid: str, amount: int) -> None:
    figure = _figure(state, fid, "/target")
    figure["hp"] = min(figure["max_hp"], figure["hp"] + max(0, amount))


def revive(state: BattleState, fid: str, hp: int) -> list[Event]:
    """An Unconscious figure wakes with `hp` (at least 1, at most its maximum)."""
    figure = _figure(state, fid, "/target")
    if figure["status"] != UNCONSCIOUS:
        return []
    figure["hp"] = max(1, min(figure["max_hp"], hp))
    figure["status"] = ACTIVE
    return [{"figure": fid, "status": ACTIVE, "by": None}]


def add_markers(state: BattleState, fid: str, marker: str, count: int) -> None:
    if marker not in MARKERS:
        raise Invalid("unknown-marker", f"No marker {marker!r}.", pointer="/marker")
    figure = _figure(state, fid, "/target")
    total = figure["markers"].get(marker, 0) + count
    if total > 0:
        figure["markers"][marker] = total
    else:
        figure["markers"].pop(marker, None)


def spell_markers(spell: str, plan: SpellPlan, result: SpellResult) -> tuple[str, int] | None:
    """The markers a cast places on its target (P4), or None."""
    if result.tier is None or spell not in SPELL_MARKERS:
        return None
    marker, per_tier = SPELL_MARKERS[spell]
    if per_tier is None:
        return marker, result.successes
    return marker, per_tier[plan.outcomes.index(result.tier)]


# What the players do at the table after a spell (the site knows no positions, P2, and
# makes no choice the rulebook leaves to a player), by outcome tier index; "*" for any tier.
SPELL_AT_THE_TABLE: Mapping[str, Mapping[int | str, str]] = {
    "protective-wall": {2: "The three Wall markers may be shared among any number of targets."},
    "soul-bond": {
        "*": "The target may transfer damage to the caster at any distance (Friendship).",
        1: "Choose an additional target and give it a Soul Bond marker.",
    },
    "dispel-magic": {},
    "savage-exile": {"*": 'Push every figure within 5" X" directly away from the caster.'},
    "uncanny-avenue": {"*": 'Place the caster within 10", out of sight of every enemy.'},
    "clock-down": {"*": "At its next activation the target spends one action per marker."},
    "sudden-fatigue": {
        "*": "Choose the statistics at -1; declare the penalty on its rolls (one marker each)."
    },
    "ultimate-bad-luck": {"*": "Remove a marker at any time to force the figure to re-roll."},
    "mana-obliteration": {
        1: 'The target forgets one spell of the caster\'s choice: "Change a figure", Forget.',
        2: 'The target forgets one spell of the caster\'s choice: "Change a figure", Forget.',
    },
    # The Destruction spells' attacks are rolled by the site (`spell_attacks`); where they
    # fall (range, radius, Blast's push) is the players' to say, in the profile's words.
    DRAGON_SLAYER: {"*": "With no enemy in range, friendly figures must be its targets."},
    "clock-up": {"*": "The target has three actions at its next activation."},
    "invigorate": {
        "*": "Its next melee attack re-rolls and keeps the better (tick it on the attack).",
        2: "The spell may affect one more target: give it the markers too.",
    },
    "extreme-speed": {"*": '+1" on all its movement next activation per marker.'},
    "eagle-eye": {
        "*": 'Its next spell or ranged attack gains +5" range (re-roll to hit from 2 markers, '
        "ignores cover with 3); then remove the markers."
    },
}

# What the players do at the table when an item is discarded.
ITEM_AT_THE_TABLE: Mapping[str, str] = {
    "escape-kit": "It leaves the melee before the dice are rolled: push it 5\", its player's way.",
    "climbing-gear": "The Jump or Drop check is passed.",
    "smoke-grenade": 'Place a 5" smoke template; it blocks line of sight until the turn ends.',
    "tool-kit": "The objective roll passes with a Success Rating of 3.",
}


def spell_at_the_table(spell: str, tier_index: int | None) -> str:
    """The players' part of a spell's outcome, in words ("" when the site applies it all)."""
    if tier_index is None:
        return ""
    words = SPELL_AT_THE_TABLE.get(spell, {})
    return " ".join(w for key in ("*", tier_index) if (w := words.get(key, "")))


def discard_item(state: BattleState, fid: str, figure: Figure, item: str) -> None:
    current = _figure(state, fid, "/figure")
    if item not in ONE_USE_ITEMS or not figure.carries(item) or item in current["discarded"]:
        raise Invalid("unknown-item", f"{figure.name} has no {item} to discard.", pointer="/item")
    current["discarded"].append(item)


def forget_spell(state: BattleState, fid: str, spell: str) -> None:
    current = _figure(state, fid, "/figure")
    if spell not in current["forgotten"]:
        current["forgotten"].append(spell)


def activate(state: BattleState, fid: str) -> None:
    """The figure's activation ends; a cast's attacks not rolled by then lapse."""
    _figure(state, fid, "/figure")["activated"] = True
    close_spell_attacks(state)


# Markers that last until the figure's next activation, or for that activation only.
LAPSE_ON_ACTIVATION = ("clock-up", "inspire", "fortify", "extreme-speed")


def lapse_markers(state: BattleState, fid: str) -> list[str]:
    """Remove the markers an activation uses up; returns the ones removed."""
    markers = _figure(state, fid, "/figure")["markers"]
    lapsed = [m for m in LAPSE_ON_ACTIVATION if m in markers]
    for marker in lapsed:
        del markers[marker]
    return lapsed


def next_turn(state: BattleState) -> None:
    """A new turn: nobody has activated yet, and initiative is rolled again (P1)."""
    state["turn"] += 1
    state["initiative"] = None
    close_spell_attacks(state)
    for figure in state["figures"].values():
        figure["activated"] = False


@dataclass(frozen=True, slots=True)
class MemberRecord:
    """One figure's line of the R14 record, filled from the log (P6)."""

    figure: str
    unconscious: bool
    out_of_action: bool
    enemies_out_of_action: int


def record_from(state: BattleState, events: Iterable[Event]) -> dict[str, MemberRecord]:
    """P6: every figure took part; who went Unconscious or Out of Action; who took whom Out
    of Action (the attacker whose hit did it, when it was an enemy)."""
    unconscious: set[str] = set()
    out: set[str] = set()
    taken: dict[str, int] = {}
    figures = state["figures"]
    for event in events:
        if event["status"] == UNCONSCIOUS:
            unconscious.add(event["figure"])
        elif event["status"] == OUT_OF_ACTION:
            if event["figure"] in out:
                continue  # put back by a declared change and taken out again: credit once
            out.add(event["figure"])
            by = event["by"]
            if by is not None and figures[by]["side"] != figures[event["figure"]]["side"]:
                taken[by] = taken.get(by, 0) + 1
    return {
        fid: MemberRecord(fid, fid in unconscious, fid in out, taken.get(fid, 0))
        for fid in figures
    }
