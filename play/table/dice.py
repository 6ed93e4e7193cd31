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
                f"{_entered(len(dice))}.",
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


class Dice:
    """One action's dice (P5), drawn as its rule needs them: from the server's
    `random.Random` (`random.SystemRandom()`, or a test's), or taken in order from the
    dice the players entered as rolled at the table. `rolled` keeps every die drawn, in
    order, for the log; `finish` refuses entered dice the action did not use.

    A battle that takes the server's dice only refuses entered dice at once."""

    def __init__(
        self, rng: random.Random, entered: object = None, *, allowed: bool = True
    ) -> None:
        if entered is not None and not allowed:
            raise Invalid(
                "entered-rolls-forbidden",
                "This battle takes the server's dice only.",
                pointer="/dice",
            )
        if entered is not None and not isinstance(entered, list):
            raise Invalid("invalid", "Dice are a list of d12 results.", pointer="/dice")
        self.rng = rng
        self.entered: list[object] | None = entered
        self.rolled: list[int] = []
        self._whole = False  # initiative's rounds take the entered dice whole

    @property
    def were_entered(self) -> bool:
        return self.entered is not None

    def left(self) -> int | None:
        """Entered dice not yet used; None for the server's dice."""
        return None if self.entered is None else len(self.entered) - len(self.rolled)

    def d12(self, count: int = 1) -> list[int]:
        """`count` d12, the server's or the next ones entered."""
        if self.entered is None:
            dice = roll_dice(count, self.rng)
        else:
            start = len(self.rolled)
            taken = self.entered[start : start + count]
            problems = _faces(taken, DIE, start)
            if len(taken) < count:
                problems.insert(0, _count_problem(start + count, len(self.entered)))
            if problems:
                raise Invalid.of(problems)
            dice = [int(d) for d in taken]  # type: ignore[call-overload]
        self.rolled += dice
        return dice

    def d3(self) -> int:
        """One d3 (Healing Spring), the server's or the next one entered."""
        if self.entered is None:
            die = self.rng.randint(1, D3)
        else:
            start = len(self.rolled)
            if start >= len(self.entered):
                raise Invalid.of([_count_problem(start + 1, len(self.entered))])
            die = check_d3(self.entered[start], f"/dice/{start}")
        self.rolled.append(die)
        return die

    def rounds(self) -> list[list[int]]:
        """Initiative's entered dice: rounds of one die for each side still tied
        (`[[7, 7], [3, 9]]`), each a whole number from 1 to 12."""
        entered = self.entered
        if not isinstance(entered, list) or not all(isinstance(r, list) for r in entered):
            raise Invalid("invalid", "Rounds of dice, e.g. [[7, 7], [3, 9]].", pointer="/dice")
        rounds = [
            check_entered(r, len(r), f"/dice/{i}")
            for i, r in enumerate(entered)
            if isinstance(r, list)
        ]
        self.rolled += [d for r in rounds for d in r]
        self._whole = True
        return rounds

    def finish(self) -> None:
        """Refuse entered dice left over: the roll took fewer."""
        if self._whole:
            return
        if self.entered is not None and len(self.entered) > len(self.rolled):
            raise Invalid.of([_count_problem(len(self.rolled), len(self.entered))])


def _count_problem(needed: int, entered: int) -> Problem:
    return Problem(
        "/dice",
        "wrong-dice-count",
        f"This roll takes {needed} {'die' if needed == 1 else 'dice'}; {_entered(entered)}.",
    )


def _entered(count: int) -> str:
    return f"{count} {'was' if count == 1 else 'were'} entered"


def _faces(dice: Sequence[object], faces: int, start: int = 0) -> list[Problem]:
    return [
        Problem(
            f"/dice/{start + i}", "invalid-roll", f"{die!r} is not a d{faces} result (1-{faces})."
        )
        for i, die in enumerate(dice)
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= faces
    ]


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
