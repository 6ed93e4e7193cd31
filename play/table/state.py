"""The battle's state: what changes during a battle, as JSON-ready plain data.

Each figure's HP, status, activation, markers, discarded items and forgotten spells; the
turn, initiative and a cast's attacks still to roll. Every change returns the events the
battle record is filled from (P6): who went Unconscious or Out of Action, and by whose
hand."""

from collections.abc import Mapping
from typing import NotRequired, TypedDict

from dbd_site.errors import Invalid
from play.table.figures import (
    ACTIVE,
    DETERMINATION,
    EXTREME_DETERMINATION,
    UNCONSCIOUS,
    Figure,
    Status,
    status_words,
)

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


WALL, EARTH_WARD, EMPOWERED = "wall", "earth-ward", "empowered"


ONE_USE_ITEMS = ("escape-kit", "climbing-gear", "smoke-grenade", "tool-kit")


# What the players do at the table when an item is discarded.
ITEM_AT_THE_TABLE: Mapping[str, str] = {
    "escape-kit": "It leaves the melee before the dice are rolled: push it 5\", its player's way.",
    "climbing-gear": "The Jump or Drop check is passed.",
    "smoke-grenade": 'Place a 5" smoke template; it blocks line of sight until the turn ends.',
    "tool-kit": "The objective roll passes with a Success Rating of 3.",
}


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


class SpellAttackState(TypedDict):
    """A cast whose attacks are still to be rolled, and the targets it has attacked."""

    caster: str
    spell: str
    tier: int
    successes: int
    chosen: int | None
    attacked: list[str]


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


def figure_state(state: BattleState, fid: str, where: str) -> FigureState:
    try:
        return state["figures"][fid]
    except KeyError:
        raise Invalid("not-found", f"No figure {fid} in this battle.", pointer=where) from None


def require_active(state: BattleState, fid: str, name: str, where: str) -> FigureState:
    figure = figure_state(state, fid, where)
    if figure["status"] != ACTIVE:
        raise Invalid(
            "figure-not-active", f"{name} is {status_words(figure['status'])}.", pointer=where
        )
    return figure


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
    current = figure_state(state, fid, where)
    if not can_act(current, figure):
        raise Invalid(
            "figure-not-active",
            f"{figure.name} is {status_words(current['status'])} and cannot act.",
            pointer=where,
        )
    return current


def add_markers(state: BattleState, fid: str, marker: str, count: int) -> None:
    if marker not in MARKERS:
        raise Invalid("unknown-marker", f"No marker {marker!r}.", pointer="/marker")
    figure = figure_state(state, fid, "/target")
    total = figure["markers"].get(marker, 0) + count
    if total > 0:
        figure["markers"][marker] = total
    else:
        figure["markers"].pop(marker, None)


def discard_item(state: BattleState, fid: str, figure: Figure, item: str) -> None:
    current = figure_state(state, fid, "/figure")
    if item not in ONE_USE_ITEMS or not figure.carries(item) or item in current["discarded"]:
        raise Invalid("unknown-item", f"{figure.name} has no {item} to discard.", pointer="/item")
    current["discarded"].append(item)


def forget_spell(state: BattleState, fid: str, spell: str) -> None:
    current = figure_state(state, fid, "/figure")
    if spell not in current["forgotten"]:
        current["forgotten"].append(spell)
