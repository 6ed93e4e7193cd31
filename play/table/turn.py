"""The turn: initiative (P1), whose activation it is, activations and new turns."""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dbd_site.errors import Invalid
from play.table.dice import DIE, FACES, roll_dice
from play.table.figures import ACTIVE
from play.table.spell_attacks import close_spell_attacks
from play.table.state import (
    MARKERS,
    BattleState,
    Outcome,
    Table,
    active_counts,
    figure_state,
)


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
    return settle(initiative_bonuses(active), lambda count: roll_dice(count, rng))


def settle(bonuses: Sequence[int], roll: Callable[[int], list[int]]) -> Initiative:
    """Roll initiative with these bonuses until one side leads (P1)."""
    rounds: list[tuple[int, ...]] = []
    contenders = list(range(len(bonuses)))
    while True:
        dice = tuple(roll(len(contenders)))
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


def activate(state: BattleState, fid: str) -> None:
    """The figure's activation ends; a cast's attacks not rolled by then lapse."""
    figure_state(state, fid, "/figure")["activated"] = True
    close_spell_attacks(state)


# Markers that last until the figure's next activation, or for that activation only.
LAPSE_ON_ACTIVATION = ("clock-up", "inspire", "fortify", "extreme-speed")


def lapse_markers(state: BattleState, fid: str) -> list[str]:
    """Remove the markers an activation uses up; returns the ones removed."""
    markers = figure_state(state, fid, "/figure")["markers"]
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


# --- the turn's actions ---------------------------------------------------------------------


def initiative(t: Table, _: None = None) -> Outcome:
    """P1: 1d12 a side, +1 for the side with fewer active figures, ties rolled again.
    Entered dice come as rounds: `[[7, 7], [3, 9]]`."""
    bonuses = initiative_bonuses(active_counts(t.state, len(t.sides)))
    if t.dice.were_entered:
        result = initiative_from(t.dice.rounds(), bonuses)
    else:
        result = settle(bonuses, t.dice.d12)
    set_initiative(t.state, result)
    rolls = "; then ".join(", ".join(map(str, r)) for r in result.rolls)
    bonus = [t.sides[i] for i, b in enumerate(result.bonuses) if b]
    return Outcome(
        f"Turn {t.state['turn']} initiative: rolled {rolls}"
        + (f" (+1 for {', '.join(bonus)})" if bonus else "")
        + f"; {t.sides[result.winner]} activates first.",
        detail={"winner": result.winner, "bonuses": list(result.bonuses)},
    )


@dataclass(frozen=True, slots=True)
class Activation:
    figure: object  # its id as sent


def end_activation(t: Table, d: Activation) -> Outcome:
    """The figure has activated this turn; the markers that last until its next activation
    (or for it) lapse: Clock Up, Inspire, Fortify, Extreme Speed."""
    fid, figure = t.figure(d.figure, "/figure")
    if t.state["figures"][fid]["activated"]:
        raise Invalid("invalid", f"{figure.name} has activated this turn.", pointer="/figure")
    activate(t.state, fid)
    lapsed = lapse_markers(t.state, fid)
    words = f"{figure.name} has activated."
    if lapsed:
        words += " " + ", ".join(MARKERS[m] for m in lapsed) + " lapsed."
    return Outcome(words, detail={"figure": fid})


def new_turn(t: Table, _: None = None) -> Outcome:
    next_turn(t.state)
    return Outcome(f"Turn {t.state['turn']} begins: roll for initiative.")
