"""Movement: Jump and Drop checks and their modifiers."""

from dataclasses import dataclass
from fractions import Fraction

from dbd_site.errors import Invalid
from play.table.damage import lose
from play.table.dice import Modifier, chance_at_least
from play.table.figures import CATFALL, CLIMBING_GEAR, HEAVY_ARMOUR, LIGHT_ARMOUR, Figure, Movement
from play.table.state import Event, Outcome, Table, discard_item, require_able


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


# --- the action -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Jump:
    figure: object  # its id as sent
    distance: int
    movement: Movement = "moved"
    discard_climbing_gear: bool = False


def jump(t: Table, d: Jump) -> Outcome:
    """A Jump or Drop check: 1d12 plus modifiers must exceed the distance; a fail costs
    1 HP a point short (and the figure's unspent actions)."""
    fid, figure = t.figure(d.figure, "/figure")
    require_able(t.state, fid, figure, "/figure")
    if d.discard_climbing_gear and CLIMBING_GEAR in t.state["figures"][fid]["discarded"]:
        raise Invalid("unknown-item", "The Climbing Gear is discarded.", pointer="/item")
    plan = plan_jump(figure, d.distance, d.movement)
    rolls = t.dice.d12(1)
    damage = plan.damage(rolls[0])
    words = f'{figure.name} jumps {d.distance}" (needs {plan.needed}+): rolled {rolls[0]}; '
    events: list[Event] = []
    if damage and d.discard_climbing_gear:
        discard_item(t.state, fid, figure, CLIMBING_GEAR)
        words += "discards the Climbing Gear to pass."
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
