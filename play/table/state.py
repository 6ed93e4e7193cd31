"""The battle's state: what changes during a battle, as JSON-ready plain data.

Each figure's HP, status, markers (and when they lapse), activations, discarded items and
forgotten spells; the turn, initiative, the figure activating, a cast's attacks still to
roll and the decisions the other side has still to make. Every change returns the events
the battle record is filled from (P6): who went Unconscious or Out of Action, and by whose
hand.

Activations (P8). A figure's activation begins with its first action of that activation
(an attack, a cast, a heal, a revive, a jump) or with "Activated", which ends it; one
figure activates at a time, so a figure that begins ends the one before it, and a new
turn ends the last. A marker that lasts "until it next activates" or "for its next
activation" counts from the activation in which it was placed: it lapses at the start or
at the end of the figure's next activation (`LAPSE_AT_START`, `LAPSE_AT_END`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, cast

from dbd_site.errors import Invalid, NotAllowed, pointer
from play.table.dice import Dice
from play.table.figures import (
    ACTIVE,
    DETERMINATION,
    ENDLESS_POCKETS,
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
    "disarmed": "Disarmed (Disarming Shot)",
    "legs": "No Run or Dash (Aim for the Legs)",
}
WALL, EARTH_WARD, EMPOWERED = "wall", "earth-ward", "empowered"
CLOCK_UP, CLOCK_DOWN, INVIGORATE, EAGLE_EYE = "clock-up", "clock-down", "invigorate", "eagle-eye"
DISARMED, LEGS, FORTIFY = "disarmed", "legs", "fortify"

# P8: "until it next activates" (Inspire, Fortify) lapses as the figure's next activation
# begins; "next time it activates" / "during its next activation" (Clock Up, Extreme
# Speed, Disarming Shot, Aim for the Legs) lapses as that activation ends.
LAPSE_AT_START = frozenset({"inspire", "fortify"})
LAPSE_AT_END = frozenset({CLOCK_UP, "extreme-speed", DISARMED, LEGS})
ACTIONS_PER_ACTIVATION = 2  # three with Clock Up

# Markers the other side spends (P9's one exception to "your own figures"): Ultimate Bad
# Luck's caster's side takes one off the target to force a re-roll.
SPENT_BY_THE_OTHER_SIDE = frozenset({"bad-luck"})

ONE_USE_ITEMS = ("escape-kit", "climbing-gear", "smoke-grenade", "tool-kit")
ENDLESS_POCKETS_KEEPS = 9  # Endless Pockets: 1d12, 9+ keeps what would be discarded

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
    activated: bool  # this turn
    markers: dict[str, int]
    discarded: list[str]
    forgotten: list[str]
    activations: int  # activations begun this battle
    lapses: dict[str, int]  # a timed marker -> the activation whose start or end lapses it
    determined: bool  # acting through Determination: Out of Action as this activation ends
    spent: list[str]  # what is used once a battle (Hidden Explosives)
    gamble: str | None  # Deadly Gamble: the enemy named before the battle


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
    eagle_eye: NotRequired[int]  # the caster's Eagle Eye markers the cast spent


class Snapshot(TypedDict):
    """What an attack may change on a figure, and a transfer puts back to resolve it again."""

    hp: int
    status: Status
    markers: dict[str, int]


class HitRecord(TypedDict):
    roll: int
    success_rating: int
    damage: int
    hit: bool


class CheckRecord(TypedDict):
    kind: str  # "subdual" | "exploit-weakness"
    die: int
    me: int  # the attacker's ME: Exploit Weakness rolls at or under it


class Decision(TypedDict):
    """A choice the attacked side makes after an attack (P9), held until it is answered or
    passed: a Friendship transfer (P3), or the Dodge for Cover move."""

    id: int
    kind: Literal["transfer", "dodge"]
    side: int  # the side that decides
    figure: str  # the attacked figure
    attacker: str
    opened_by: int  # the log line (seq) of the attack
    damage: NotRequired[int]  # transfer: the attack's damage, every die of it
    hits: NotRequired[list[HitRecord]]  # transfer: the attack's dice, to resolve it again
    check: NotRequired[CheckRecord | None]
    ranged: NotRequired[bool]
    before: NotRequired[dict[str, Snapshot]]  # transfer: the figures before the attack
    after: NotRequired[dict[str, Snapshot]]  # transfer: as the attack left them (guarded)
    inches: NotRequired[int]  # dodge: how far


class BattleState(TypedDict):
    turn: int
    initiative: InitiativeState | None
    figures: dict[str, FigureState]
    activating: NotRequired[str | None]  # the figure whose activation is under way
    spell_attacks: NotRequired[SpellAttackState]  # a cast's attacks still to be rolled
    decisions: NotRequired[list[Decision]]  # the other side's choices still to be made
    decisions_opened: NotRequired[int]


class Event(TypedDict):
    """A change of status the record is filled from (P6)."""

    figure: str
    status: Status
    by: str | None  # the figure whose attack did it, if any


def new_figure(side: int, figure: Figure) -> FigureState:
    return {
        "side": side,
        "hp": figure.stats["HP"],
        "max_hp": figure.stats["HP"],
        "status": ACTIVE,
        "activated": False,
        "markers": {},
        "discarded": [],
        "forgotten": [],
        "activations": 0,
        "lapses": {},
        "determined": False,
        "spent": [],
        "gamble": None,
    }


def new_state(figures: Mapping[str, tuple[int, Figure]]) -> BattleState:
    """The state at the start: every figure active at full HP; turn 1, no initiative yet."""
    return {
        "turn": 1,
        "initiative": None,
        "figures": {fid: new_figure(side, figure) for fid, (side, figure) in figures.items()},
        "activating": None,
        "decisions": [],
        "decisions_opened": 0,
    }


# What a figure's state held before activations, lapses and the once-a-battle uses were
# kept: a battle started before them reads as if none had happened yet.
_FIGURE_DEFAULTS: Mapping[str, Any] = {
    "activations": 0,
    "lapses": {},
    "determined": False,
    "spent": [],
    "gamble": None,
}


def upgraded(state: Mapping[str, Any]) -> BattleState:
    """A stored state with every key this version of the rules reads (a copy when keys
    were missing; the stored one is left as it was, for undo)."""
    figures = state.get("figures", {})
    if all(key in f for f in figures.values() for key in _FIGURE_DEFAULTS) and all(
        key in state for key in ("activating", "decisions", "decisions_opened")
    ):
        return cast(BattleState, state)
    upgraded: dict[str, Any] = {
        **state,
        "activating": state.get("activating"),
        "decisions": list(state.get("decisions", [])),
        "decisions_opened": state.get("decisions_opened", 0),
        "figures": {
            fid: {**{k: _copy(v) for k, v in _FIGURE_DEFAULTS.items()}, **f}
            for fid, f in figures.items()
        },
    }
    return cast(BattleState, upgraded)


def _copy(value: Any) -> Any:
    return type(value)(value) if isinstance(value, list | dict) else value


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
    """Markers on a figure (negative: taken off). A timed marker placed now lapses in the
    figure's next activation (P8): the one after the activation under way, if it is the
    figure's own."""
    if marker not in MARKERS:
        raise Invalid("unknown-marker", f"No marker {marker!r}.", pointer="/marker")
    figure = figure_state(state, fid, "/target")
    total = figure["markers"].get(marker, 0) + count
    if total > 0:
        figure["markers"][marker] = total
        if count > 0 and marker in LAPSE_AT_START | LAPSE_AT_END:
            figure["lapses"][marker] = figure["activations"] + 1
    else:
        figure["markers"].pop(marker, None)
        figure["lapses"].pop(marker, None)


def remove_markers(state: BattleState, fid: str, marker: str) -> int:
    """Take every marker of a kind off a figure; answers how many there were."""
    count = state["figures"][fid]["markers"].get(marker, 0)
    if count:
        add_markers(state, fid, marker, -count)
    return count


def discard_item(
    state: BattleState, fid: str, figure: Figure, item: str, dice: Dice
) -> tuple[bool, str]:
    """A one-use item discarded. Endless Pockets rolls 1d12 first: 9+ keeps it. Answers
    whether it went, and words for an Endless Pockets roll ("" without one)."""
    current = figure_state(state, fid, "/figure")
    if item not in ONE_USE_ITEMS or not figure.carries(item) or item in current["discarded"]:
        raise Invalid(
            "unknown-item", f"{figure.name} has no {item} to discard.", pointer="/discard"
        )
    if figure.has(ENDLESS_POCKETS):
        die = dice.d12(1)[0]
        if die >= ENDLESS_POCKETS_KEEPS:
            return False, f"Endless Pockets: rolled {die}, the {item_name(item)} is kept."
        current["discarded"].append(item)
        return True, f"Endless Pockets: rolled {die}, the {item_name(item)} is gone."
    current["discarded"].append(item)
    return True, ""


def item_name(slug: str) -> str:
    return slug.replace("-", " ").title()


def forget_spell(state: BattleState, fid: str, spell: str) -> None:
    current = figure_state(state, fid, "/figure")
    if spell not in current["forgotten"]:
        current["forgotten"].append(spell)


def close_spell_attacks(state: BattleState) -> None:
    """A cast's attacks lapse (P7): when the caster's activation ends, the turn ends, or
    another spell is cast."""
    state.pop("spell_attacks", None)


# --- activations (P8) -----------------------------------------------------------------------


def begin_activation(state: BattleState, fid: str, figure: Figure) -> list[str]:
    """The figure's activation begins (its first action in it): the one under way ends
    first; markers that last until this activation lapse; Clock Down markers take the
    figure's actions; an Unconscious figure acting through Determination is noted.
    Answers what happened, in words (nothing when it is already activating)."""
    if state.get("activating") == fid:
        return []
    said: list[str] = []
    ending = state.get("activating")
    if ending is not None and ending in state["figures"]:
        said += [f"The activation under way ends: {w}" for w in end_activation(state, ending)]
    current = state["figures"][fid]
    current["activations"] += 1
    state["activating"] = fid
    number = current["activations"]
    current["determined"] = (
        current["status"] == UNCONSCIOUS
        and figure.has(DETERMINATION)
        and not figure.has(EXTREME_DETERMINATION)
    )
    lapsed = _lapse(current, LAPSE_AT_START, number)
    if lapsed:
        said.append(f"{_names(lapsed)} lapsed as {figure.name} activates.")
    clocks = current["markers"].get(CLOCK_DOWN, 0)
    if clocks:
        # "Spend one action per Clock Down marker to remove that marker": as many as the
        # activation has actions (three with Clock Up); the rest wait for the next.
        actions = ACTIONS_PER_ACTIVATION + (1 if current["markers"].get(CLOCK_UP) else 0)
        spent = min(clocks, actions)
        add_markers(state, fid, CLOCK_DOWN, -spent)
        said.append(
            f"{figure.name} spends {spent} action{'s' if spent > 1 else ''} removing Clock "
            f"Down ({clocks - spent} left)."
        )
    if current["determined"]:
        said.append(f"{figure.name} acts through Determination: Out of Action after it.")
    return said


def end_activation(state: BattleState, fid: str) -> list[str]:
    """The figure's activation ends: it has activated this turn; markers that last for
    this activation lapse; a cast's attacks lapse (P7); a figure that acted through
    Determination is Out of Action (P8). Answers what happened, in words; the status
    change is the caller's to record (`determination_events`)."""
    current = state["figures"][fid]
    lapsed: list[str] = []
    if state.get("activating") != fid:
        current["activations"] += 1  # began and ended at once: its start's lapses too
        lapsed += _lapse(current, LAPSE_AT_START, current["activations"])
    state["activating"] = None
    current["activated"] = True
    close_spell_attacks(state)
    lapsed += _lapse(current, LAPSE_AT_END, current["activations"])
    return [f"{_names(lapsed)} lapsed."] if lapsed else []


def determination_events(state: BattleState, fid: str) -> list[Event]:
    """P8: a student who acted through Determination is Out of Action once that
    activation is complete."""
    current = state["figures"][fid]
    if not current["determined"]:
        return []
    current["determined"] = False
    if current["status"] == OUT_OF_ACTION:
        return []
    current["status"] = OUT_OF_ACTION
    return [{"figure": fid, "status": OUT_OF_ACTION, "by": None}]


def _lapse(current: FigureState, kinds: frozenset[str], number: int) -> list[str]:
    """Take off the markers of these kinds due to lapse by activation `number` (a marker
    with no record of when it was placed lapses now, as it did before they were kept)."""
    lapsed = [
        m
        for m in sorted(current["markers"])
        if m in kinds and current["lapses"].get(m, 0) <= number
    ]
    for marker in lapsed:
        del current["markers"][marker]
        current["lapses"].pop(marker, None)
    return lapsed


def _names(markers: Sequence[str]) -> str:
    return ", ".join(MARKERS[m] for m in markers)


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
    names by position, the action's dice, the rules catalogue, the log line the action
    will be (`seq`), and the sides the acting player holds (P9; None: any side).

    `acting_side` is set by the rule: the side whose action it is (None: the battle's,
    such as initiative or a new turn), for undo to say whose it is."""

    state: BattleState
    figures: Mapping[str, Figure]
    sides: Sequence[str]
    dice: Dice
    catalogue: Catalogue
    seq: int = 0
    player_sides: frozenset[int] | None = None
    acting_side: int | None = None
    said: list[str] = field(default_factory=list)  # what the action's start did (P8)
    events: list[Event] = field(default_factory=list)  # ... and its record events

    def figure(self, fid: object, where: str) -> tuple[str, Figure]:
        """The figure an action names (its id as sent), or `not-found` at `where`."""
        key = str(fid)
        if key not in self.figures or key not in self.state["figures"]:
            raise Invalid("not-found", f"No figure {fid} in this battle.", pointer=where)
        return key, self.figures[key]

    def for_side(self, side: int, what: str, where: str) -> None:
        """P9: a player acts for their own side only (one holding several acts for all)."""
        if self.player_sides is not None and side not in self.player_sides:
            raise NotAllowed("not-your-figure", f"{what} is the other side's.", pointer=where)
        self.acting_side = side

    def own(self, fid: object, where: str) -> tuple[str, Figure]:
        """A figure of the acting player's side (P9), not acting in its activation (a
        declared change, a reaction)."""
        key, figure = self.figure(fid, where)
        self.for_side(self.side_of(key), figure.name, where)
        return key, figure

    def actor(self, fid: object, where: str) -> tuple[str, Figure]:
        """The figure that acts, in its activation: the acting player's (P9), able to act,
        its activation begun (P8) if this is its first action in it."""
        key, figure = self.own(fid, where)
        require_able(self.state, key, figure, where)
        ending = self.state.get("activating")
        self.said += begin_activation(self.state, key, figure)
        if ending not in (None, key) and isinstance(ending, str):
            self.events += determination_events(self.state, ending)
        return key, figure

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
    """A change the players declare on one of their own figures (P2, P9); on another
    side's figure, only taking off the markers that side's enemies spend (Bad Luck).

    Long because each kind of declared change (P2, P9) is one branch, side by side.
    """
    spends_theirs = (
        bool(d.markers)
        and all(m in SPENT_BY_THE_OTHER_SIDE and n < 0 for m, n in d.markers.items())
        and (d.hp, d.status, d.discard, d.forget, d.activated) == (None,) * 5
    )
    if spends_theirs:
        fid, figure = t.figure(d.figure, "/figure")
        if t.player_sides is not None and len(t.player_sides) == 1:
            t.acting_side = next(iter(t.player_sides))
    else:
        fid, figure = t.own(d.figure, "/figure")
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
    for marker, count in d.markers.items():
        # R12: where it was sent, `markers` being an object of marker -> count.
        where = pointer("markers", marker)
        if marker not in MARKERS:
            raise Invalid("unknown-marker", f"No marker {marker!r}.", pointer=where)
        if isinstance(count, bool) or not isinstance(count, int) or not -9 <= count <= 9:
            raise Invalid("invalid", "Add -9 to 9 markers.", pointer=where)
        add_markers(t.state, fid, marker, count)
        said.append(f"{count:+d} {MARKERS[marker]}")
    at_the_table = ""
    pockets = ""
    if d.discard:
        gone, pockets = discard_item(t.state, fid, figure, d.discard, t.dice)
        said.append(f"discards {d.discard.replace('-', ' ')}")
        at_the_table = ITEM_AT_THE_TABLE.get(d.discard, "")
        if not gone:
            said[-1] = f"uses {d.discard.replace('-', ' ')}"
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
        + (f" {pockets}" if pockets else "")
        + (f" At the table: {at_the_table}" if at_the_table else ""),
        detail={"figure": fid},
        events=events,
    )
