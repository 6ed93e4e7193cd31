"""The turn: initiative (P1), whose activation it is, activations and new turns."""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dbd_site.errors import Conflict, Invalid
from play.table.dice import DIE, FACES, roll_dice
from play.table.figures import ACTIVE, DEADLY_GAMBLE
from play.table.state import (
    BattleState,
    Event,
    Outcome,
    Table,
    active_counts,
    close_spell_attacks,
    determination_events,
    end_activation,
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


def next_turn(state: BattleState) -> list[Event]:
    """A new turn: the activation under way ends (P8); nobody has activated yet, and
    initiative is rolled again (P1). Answers the record's events (Determination)."""
    events: list[Event] = []
    activating = state.get("activating")
    if activating is not None and activating in state["figures"]:
        end_activation(state, activating)
        events = determination_events(state, activating)
    state["turn"] += 1
    state["initiative"] = None
    close_spell_attacks(state)
    for figure in state["figures"].values():
        figure["activated"] = False
    return events


# --- the turn's actions ---------------------------------------------------------------------


def initiative(t: Table, _: None = None) -> Outcome:
    """P1: 1d12 a side, +1 for the side with fewer active figures, ties rolled again.
    Entered dice come as rounds: `[[7, 7], [3, 9]]`. Once a turn: a second roll is refused
    (undo the first to roll again)."""
    if t.state["initiative"] is not None:
        raise Conflict(
            "initiative-rolled",
            f"Turn {t.state['turn']}'s initiative is rolled; undo it to roll again.",
        )
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


def end_activation_of(t: Table, d: Activation) -> Outcome:
    """The figure has activated this turn ("Activated"). Markers that last for its
    activation lapse (P8: each counted from the activation in which it was placed); a cast's
    attacks lapse (P7); a figure that acted through Determination is Out of Action (P8)."""
    fid, figure = t.own(d.figure, "/figure")
    if t.state["figures"][fid]["activated"]:
        raise Invalid("invalid", f"{figure.name} has activated this turn.", pointer="/figure")
    said: list[str] = []
    events: list[Event] = []
    other = t.state.get("activating")
    if other is not None and other != fid and other in t.state["figures"]:
        said += [f"{t.name(other)}'s activation ends: {w}" for w in end_activation(t.state, other)]
        events += determination_events(t.state, other)
    said += end_activation(t.state, fid)
    events += determination_events(t.state, fid)
    return Outcome(
        " ".join([f"{figure.name} has activated.", *said]) + t.status_words(events),
        detail={"figure": fid},
        events=events,
    )


def new_turn(t: Table, _: None = None) -> Outcome:
    events = next_turn(t.state)
    return Outcome(
        t.status_words(events).strip()
        + (" " if events else "")
        + f"Turn {t.state['turn']} begins: roll for initiative.",
        events=events,
    )


@dataclass(frozen=True, slots=True)
class Gamble:
    """Deadly Gamble: the figure with the skill names an enemy student before the battle."""

    figure: object  # ids as sent
    target: object


def deadly_gamble(t: Table, d: Gamble) -> Outcome:
    """Deadly Gamble ("before the game begins"): refused once the first initiative is
    rolled. The log says that a name was noted, not whose: the screen shows it to its own
    side only."""
    fid, figure = t.own(d.figure, "/figure")
    target_id, target = t.figure(d.target, "/target")
    if not figure.has(DEADLY_GAMBLE):
        raise Invalid("skill-missing", f"{figure.name} lacks Deadly Gamble.", pointer="/figure")
    if t.state["turn"] != 1 or t.state["initiative"] is not None:
        raise Conflict(
            "battle-begun", "Deadly Gamble names its enemy before the first initiative roll."
        )
    if t.side_of(target_id) == t.side_of(fid):
        raise Invalid("same-side", f"{target.name} is a friend: name an enemy.", pointer="/target")
    t.state["figures"][fid]["gamble"] = target_id
    return Outcome(
        f"{figure.name} notes down an enemy student (Deadly Gamble).",
        detail={"figure": fid},
    )
