"""The battle's state: what changes during a battle, as JSON-ready plain data.

Each figure's HP, status, activation, markers, discarded items and forgotten spells; the
turn, initiative and a cast's attacks still to roll. Every change returns the events the
battle record is filled from (P6): who went Unconscious or Out of Action, and by whose
hand."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from dbd_site.errors import Invalid
from play.table.dice import Dice
from play.table.figures import (
    ACTIVE,
    DETERMINATION,
    EXTREME_DETERMINATION,
    OUT_OF_ACTION,
    UNCONSCIOUS,
    Figure,
    Status,
    status_words,
)
from rules.catalogue import Catalogue

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


# --- an action on the table ---------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """What an action did: its words and details for the log, its record events (P6)."""

    words: str
    detail: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)


@dataclass(slots=True)
class Table:
    """A battle as an action's rule sees it: its figures' numbers by id, the state it
    changes (a copy: the battle keeps the state before it for undo), the sides' force
    names by position, the action's dice and the rules catalogue."""

    state: BattleState
    figures: Mapping[str, Figure]
    sides: Sequence[str]
    dice: Dice
    catalogue: Catalogue

    def figure(self, fid: object, where: str) -> tuple[str, Figure]:
        """The figure an action names (its id as sent), or `not-found` at `where`."""
        key = str(fid)
        if key not in self.figures or key not in self.state["figures"]:
            raise Invalid("not-found", f"No figure {fid} in this battle.", pointer=where)
        return key, self.figures[key]

    def name(self, fid: str) -> str:
        return self.figures[fid].name

    def side_of(self, fid: str) -> int:
        return self.state["figures"][fid]["side"]

    def status_words(self, events: Sequence[Event]) -> str:
        """ " Ben is Unconscious." for each change of status, in order."""
        return "".join(
            f" {self.name(e['figure'])} is {status_words(e['status'])}." for e in events
        )


# --- declared changes and plain rolls -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """A plain roll the rules have no other action for (objectives, a push over a drop)."""

    count: int = 1
    reason: str = ""


def roll(t: Table, d: Roll) -> Outcome:
    if isinstance(d.count, bool) or not isinstance(d.count, int) or not 1 <= d.count <= 12:
        raise Invalid("invalid", "Roll 1 to 12 dice.", pointer="/count")
    label = " ".join(str(d.reason).split())[:100]
    rolls = t.dice.d12(d.count)
    return Outcome(
        f"Rolled {', '.join(map(str, rolls))}" + (f" for {label}" if label else "") + ".",
        detail={"reason": label},
    )


@dataclass(frozen=True, slots=True)
class Change:
    """A declared change the site does not roll for (P2): HP, status, markers, items."""

    figure: object  # its id as sent
    hp: int | None = None
    status: Status | None = None
    markers: Mapping[str, int] = field(default_factory=dict)  # marker -> count to add
    discard: str | None = None
    forget: str | None = None
    activated: bool | None = None
    note: str = ""


def change(t: Table, d: Change) -> Outcome:
    fid, figure = t.figure(d.figure, "/figure")
    state = t.state["figures"][fid]
    said: list[str] = []
    events: list[Event] = []
    if d.hp is not None:
        if isinstance(d.hp, bool) or not 0 <= d.hp <= state["max_hp"]:
            raise Invalid("invalid", f"HP is 0 to {state['max_hp']}.", pointer="/hp")
        state["hp"] = d.hp
        said.append(f"HP {d.hp} of {state['max_hp']}")
    if d.status is not None:
        if d.status not in (ACTIVE, UNCONSCIOUS, OUT_OF_ACTION):
            raise Invalid(
                "invalid", "Status is active, unconscious or out-of-action.", pointer="/status"
            )
        if d.status != state["status"]:
            state["status"] = d.status
            events.append({"figure": fid, "status": d.status, "by": None})
            said.append(status_words(d.status))
    for i, (marker, count) in enumerate(d.markers.items()):
        if isinstance(count, bool) or not isinstance(count, int) or not -9 <= count <= 9:
            raise Invalid("invalid", "Add -9 to 9 markers.", pointer=f"/markers/{i}")
        add_markers(t.state, fid, marker, count)
        said.append(f"{count:+d} {MARKERS[marker]}")
    at_the_table = ""
    if d.discard:
        discard_item(t.state, fid, figure, d.discard)
        said.append(f"discards {d.discard.replace('-', ' ')}")
        at_the_table = ITEM_AT_THE_TABLE.get(d.discard, "")
    if d.forget:
        if d.forget not in figure.spells:
            raise Invalid("spell-not-known", "Not a spell the figure knows.", pointer="/forget")
        forget_spell(t.state, fid, d.forget)
        said.append(f"forgets {d.forget.replace('-', ' ')}")
    if d.activated is not None:
        state["activated"] = bool(d.activated)
        said.append("activated" if d.activated else "not yet activated")
    if not said:
        raise Invalid("invalid", "Nothing to change.", pointer="")
    note = " ".join(str(d.note).split())[:200]
    return Outcome(
        f"{figure.name}: "
        + ", ".join(said)
        + (f" ({note})" if note else "")
        + "."
        + (f" At the table: {at_the_table}" if at_the_table else ""),
        detail={"figure": fid},
        events=events,
    )
