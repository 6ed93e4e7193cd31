"""Recovery: Heal and Revive (Medical Kit), Angelic Healing's re-roll, and their odds."""

from fractions import Fraction

from play.table.dice import DIE, FACES
from play.table.figures import ACTIVE, ANGELIC_HEALING, UNCONSCIOUS, Figure
from play.table.state import BattleState, Event, figure_state


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


def heal(state: BattleState, fid: str, amount: int) -> None:
    figure = figure_state(state, fid, "/target")
    figure["hp"] = min(figure["max_hp"], figure["hp"] + max(0, amount))


def revive(state: BattleState, fid: str, hp: int) -> list[Event]:
    """An Unconscious figure wakes with `hp` (at least 1, at most its maximum)."""
    figure = figure_state(state, fid, "/target")
    if figure["status"] != UNCONSCIOUS:
        return []
    figure["hp"] = max(1, min(figure["max_hp"], hp))
    figure["status"] = ACTIVE
    return [{"figure": fid, "status": ACTIVE, "by": None}]
