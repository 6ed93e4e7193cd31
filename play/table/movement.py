"""Movement: Jump and Drop checks and their modifiers."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dbd_site.errors import Invalid
from play.table.damage import lose
from play.table.dice import Modifier, chance_at_least
from play.table.figures import (
    ATHLETICS,
    CATFALL,
    CLIMBING_GEAR,
    HEAVY_ARMOUR,
    LIGHT_ARMOUR,
    Figure,
    Movement,
)
from play.table.state import LEGS, Event, Outcome, Table, discard_item


def jump_modifiers(
    figure: Figure, movement: Movement, discarded: Sequence[str] = ()
) -> tuple[Modifier, ...]:
    """Jump and Drop checks: Light Armour -2, Heavy Armour -3, Climbing Gear +1 (not once
    discarded to pass a check, P8), running +1, dashing +2."""
    mods: list[Modifier] = []
    if figure.carries(LIGHT_ARMOUR):
        mods.append(Modifier("statistic", -2, "Light Armour"))
    if figure.carries(HEAVY_ARMOUR):
        mods.append(Modifier("statistic", -3, "Heavy Armour"))
    if figure.carries(CLIMBING_GEAR) and CLIMBING_GEAR not in discarded:
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


def plan_jump(
    figure: Figure,
    distance: int,
    movement: Movement = "moved",
    *,
    discarded: Sequence[str] = (),
    markers: Mapping[str, int] | None = None,
) -> JumpPlan:
    """A Jump or Drop check as declared: the distance, how the figure moved (Heavy Armour
    may not Dash; Aim for the Legs: no Run or Dash), its items and skills."""
    if isinstance(distance, bool) or not isinstance(distance, int) or not 0 <= distance <= 36:
        raise Invalid("invalid-distance", "The distance is 0 to 36 inches.", pointer="/distance")
    if movement == "dashed" and figure.carries(HEAVY_ARMOUR):
        raise Invalid(
            "movement-refused", "A figure in Heavy Armour may not Dash.", pointer="/movement"
        )
    if movement in ("ran", "dashed") and (markers or {}).get(LEGS, 0) > 0:
        raise Invalid(
            "movement-refused",
            f"Aim for the Legs: {figure.name} may not Run or Dash in this activation.",
            pointer="/movement",
        )
    return JumpPlan(distance, jump_modifiers(figure, movement, discarded), figure.has(CATFALL))


# --- the action -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Jump:
    figure: object  # its id as sent
    distance: int
    movement: Movement = "moved"
    discard_climbing_gear: bool = False


def jump(t: Table, d: Jump) -> Outcome:
    """A Jump or Drop check: 1d12 plus modifiers must exceed the distance; a fail costs
    1 HP a point short (and the figure's unspent actions). Super High School Level
    Athletics re-rolls a failed check (the server's dice; the second die stands);
    Climbing Gear may be discarded to pass it (Endless Pockets may keep it)."""
    fid, figure = t.actor(d.figure, "/figure")
    current = t.state["figures"][fid]
    if d.discard_climbing_gear and (
        not figure.carries(CLIMBING_GEAR) or CLIMBING_GEAR in current["discarded"]
    ):
        raise Invalid(
            "unknown-item",
            f"{figure.name} has no Climbing Gear.",
            pointer="/discard_climbing_gear",
        )
    plan = plan_jump(
        figure, d.distance, d.movement, discarded=current["discarded"], markers=current["markers"]
    )
    rolls = t.dice.d12(1)
    damage = plan.damage(rolls[0])
    again = ""
    if damage and figure.has(ATHLETICS) and not t.dice.were_entered:
        rolls += t.dice.d12(1)
        damage = plan.damage(rolls[-1])
        again = f", re-rolled {rolls[-1]} (Super High School Level Athletics)"
    words = f'{figure.name} jumps {d.distance}" (needs {plan.needed}+): rolled {rolls[0]}{again}; '
    events: list[Event] = []
    if damage and d.discard_climbing_gear:
        _, pockets = discard_item(t.state, fid, figure, CLIMBING_GEAR, t.dice)
        words += "discards the Climbing Gear to pass." + (f" {pockets}" if pockets else "")
    elif damage:
        events = lose(t.state, fid, damage)
        words += f"fails: {damage} damage and no actions left." + t.status_words(events)
    else:
        words += "passes."
    return Outcome(
        words,
        detail={"figure": fid, "distance": d.distance, "needed": plan.needed, "damage": damage},
        events=events,
    )
