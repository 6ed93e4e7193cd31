"""A figure as the battle copied it (numbers, skills, equipment, spells), the skills and
equipment that change a roll (rules/fixtures/rules.yaml keys), and the statuses (P3)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

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
ANGELIC_HEALING = "support/angelic-healing"
DETERMINATION = "movement/determination"
EXTREME_DETERMINATION = "support/extreme-determination"
AIR_ASSASSINATION = "melee/air-assassination"
FLURRY_OF_BLOWS = "melee/flurry-of-blows"
DISARMING_SHOT = "ranged/disarming-shot"
HIT_AND_AWAY = "ranged/hit-and-away"
AIM_FOR_THE_LEGS = "ranged/aim-for-the-legs"
ENDLESS_POCKETS = "support/endless-pockets"
LEADERSHIP = "support/super-high-school-level-leadership"
SEALED_POWER = "support/terrifying-sealed-power"
HIDDEN_EXPLOSIVES = "technical/hidden-explosives"
CASTING_GUN = "technical/casting-gun"
DEADLY_GAMBLE = "technical/deadly-gamble"

# Equipment (rules/fixtures/rules.yaml slugs).
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

# Reach (the rulebook's Great Weapon and Polearm text): how far away a melee attack reaches.
REACH_INCHES: Mapping[str, int] = {"great-weapon": 1, "polearm": 2}


Movement = Literal["none", "moved", "ran", "dashed"]
Status = Literal["active", "unconscious", "out-of-action"]
ACTIVE: Status = "active"
UNCONSCIOUS: Status = "unconscious"
OUT_OF_ACTION: Status = "out-of-action"


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

    @classmethod
    def from_numbers(cls, name: str, numbers: Mapping[str, Any]) -> "Figure":
        """The one conversion of a figure's stored numbers (`BattleFigure.numbers`: JSON
        copied from its force's evaluation and document when the battle started)."""
        return cls(
            name=name,
            stats=numbers["stats"],
            defence=numbers["defence"],
            skills=frozenset(numbers["skills"]),
            equipment=tuple(numbers["equipment"]),
            spells=tuple(numbers["spells"]),
            spell_focus=bool(numbers["spell_focus"]),
            mastery=numbers["mastery"],
        )

    def has(self, skill: str) -> bool:
        return skill in self.skills

    def carries(self, slug: str) -> bool:
        return slug in self.equipment


def clamp_active(value: int) -> int:
    """Active statistics stay within 0..5 whatever modifies them (the rulebook's rule)."""
    return max(ACTIVE_MIN, min(ACTIVE_MAX, value))


def status_words(status: Status) -> str:
    return {ACTIVE: "active", UNCONSCIOUS: "Unconscious", OUT_OF_ACTION: "Out of Action"}[status]
