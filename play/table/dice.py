"""Dice and odds: the d12 (and Healing Spring's d3), dice entered as rolled at the table
(P5), exact chances by counting faces, and the modifiers a roll carries."""

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from dbd_site.errors import Invalid, Problem

DIE = 12


FACES = range(1, DIE + 1)


D3 = 3  # Healing Spring's 1d3 at 3+ successes


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


def check_d3(die: object, where: str) -> int:
    """A d3 entered as rolled at the table (P5): a whole number from 1 to 3."""
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= D3:
        raise Invalid("invalid-roll", f"{die!r} is not a d3 result (1-3).", pointer=where)
    return die


def chance_at_least(needed: int) -> Fraction:
    """The chance that one d12 shows `needed` or more."""
    return Fraction(min(DIE, max(0, DIE + 1 - needed)), DIE)


def chance_at_least_best_of_two(needed: int) -> Fraction:
    """The chance that the better of two d12 shows `needed` or more (a re-roll kept if better)."""
    miss = 1 - chance_at_least(needed)
    return 1 - miss * miss


@dataclass(frozen=True, slots=True)
class Modifier:
    """One printed effect on an attack: on the target's DF, the statistic, or the to-hit."""

    applies_to: Literal["DF", "statistic", "to-hit"]
    amount: int
    source: str

    def words(self) -> str:
        sign = "+" if self.amount >= 0 else ""
        return f"{self.source}: {sign}{self.amount} {self.applies_to}"
