"""Recovery: Heal and Revive (Medical Kit), Angelic Healing's re-roll, and their odds."""

from dataclasses import dataclass
from fractions import Fraction

from dbd_site.errors import Invalid
from play.table.dice import DIE, FACES
from play.table.figures import ACTIVE, ANGELIC_HEALING, MEDICAL_KIT, UNCONSCIOUS, Figure
from play.table.state import (
    BattleState,
    Event,
    Outcome,
    Table,
    figure_state,
    require_able,
    require_active,
)


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


def restore_hp(state: BattleState, fid: str, amount: int) -> None:
    """HP back, never above the figure's maximum."""
    figure = figure_state(state, fid, "/target")
    figure["hp"] = min(figure["max_hp"], figure["hp"] + max(0, amount))


def wake(state: BattleState, fid: str, hp: int) -> list[Event]:
    """An Unconscious figure wakes with `hp` (at least 1, at most its maximum)."""
    figure = figure_state(state, fid, "/target")
    if figure["status"] != UNCONSCIOUS:
        return []
    figure["hp"] = max(1, min(figure["max_hp"], hp))
    figure["status"] = ACTIVE
    return [{"figure": fid, "status": ACTIVE, "by": None}]


# --- the actions ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recovery:
    """A Heal or Revive: the figure with the Medical Kit and the figure it tends."""

    figure: object  # ids as sent
    target: object


def heal(t: Table, d: Recovery) -> Outcome:
    """Heal (Medical Kit): 1d12 against the target's HP; the excess, up to the healer's FR."""
    healer_id, healer = t.own(d.figure, "/figure")
    target_id, target = t.figure(d.target, "/target")
    require_able(t.state, healer_id, healer, "/figure")
    require_active(t.state, target_id, target.name, "/target")
    if not healer.carries(MEDICAL_KIT):
        raise Invalid("needs-equipment", "Healing needs a Medical Kit.", pointer="/figure")
    t.actor(d.figure, "/figure")
    rolls = t.dice.d12(1)
    state = t.state["figures"][target_id]
    fr = healer.stats["FR"]
    amount = heal_amount(rolls[0], state["hp"], state["max_hp"], fr)
    again = ""
    if not t.dice.were_entered and rerolls_heal(healer, amount):
        rolls += t.dice.d12(1)
        amount = heal_amount(rolls[-1], state["hp"], state["max_hp"], fr)
        again = f", re-rolled {rolls[-1]} (Angelic Healing)"
    restore_hp(t.state, target_id, amount)
    return Outcome(
        f"{healer.name} heals {target.name}: rolled {rolls[0]}{again} against HP "
        f"{state['hp'] - amount}; {target.name} recovers {amount} HP.",
        detail={"healer": healer_id, "target": target_id, "amount": amount},
    )


def revive(t: Table, d: Recovery) -> Outcome:
    """Revive (Medical Kit): 1d12 equal to or under the target's FR wakes it with 1 HP."""
    reviver_id, reviver = t.own(d.figure, "/figure")
    target_id, target = t.figure(d.target, "/target")
    require_able(t.state, reviver_id, reviver, "/figure")
    if not reviver.carries(MEDICAL_KIT):
        raise Invalid("needs-equipment", "Reviving needs a Medical Kit.", pointer="/figure")
    if t.state["figures"][target_id]["status"] != UNCONSCIOUS:
        raise Invalid(
            "figure-not-unconscious", f"{target.name} is not Unconscious.", pointer="/target"
        )
    t.actor(d.figure, "/figure")
    rolls = t.dice.d12(1)
    fr = target.stats["FR"]
    revived = revives(rolls[0], fr)
    again = ""
    if not t.dice.were_entered and rerolls_revive(reviver, revived):
        rolls += t.dice.d12(1)
        revived = revives(rolls[-1], fr)
        again = f", re-rolled {rolls[-1]} (Angelic Healing)"
    events = wake(t.state, target_id, 1) if revived else []
    return Outcome(
        f"{reviver.name} tries to revive {target.name}: rolled {rolls[0]}{again} "
        f"against FR {fr}; " + ("revived with 1 HP." if events else "still Unconscious."),
        detail={"reviver": reviver_id, "target": target_id, "revived": bool(events)},
        events=events,
    )
