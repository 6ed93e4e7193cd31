"""What a figure may still do: the battle screen's card and its action sheet (P8, P9).

Read from the state and the figure's numbers, as the rules will judge the action: a
figure that cannot act (`state.can_act`) or has activated this turn offers no action of
its activation; a cast needs CA and a spell not forgotten; Heal and Revive need a Medical
Kit (Revive an Unconscious friend); the one-use items still carried; Deadly Gamble before
the first initiative roll. Declaring a change to one's own figure is always open (P2).
"""

from collections.abc import Mapping
from dataclasses import dataclass

from play.table.figures import (
    ACTIVE,
    DEADLY_GAMBLE,
    MEDICAL_KIT,
    OUT_OF_ACTION,
    UNCONSCIOUS,
    Figure,
)
from play.table.state import ONE_USE_ITEMS, BattleState, can_act

# The actions the sheet offers, in its order: registry names, and "item" (a one-use item
# used or discarded: the registry's `change` with `discard`).
SHEET_ACTIONS = (
    "attack",
    "spell",
    "heal",
    "revive",
    "jump",
    "item",
    "activate",
    "change",
    "deadly-gamble",
)


@dataclass(frozen=True, slots=True)
class Options:
    """What one figure may do now, and the words for where it stands this turn."""

    phase: str  # "activating", "activated", "to activate", "cannot act"
    words: str  # the card's line: what it may still do
    actions: tuple[str, ...]  # of SHEET_ACTIONS
    items: tuple[str, ...]  # one-use items still carried
    spells: tuple[str, ...]  # spells known and not forgotten


def options(state: BattleState, fid: str, figure: Figure, *, side_unconscious: bool) -> Options:
    """What the figure `fid` may do now. `side_unconscious`: a friend of it is Unconscious
    (someone to revive)."""
    current = state["figures"][fid]
    items = tuple(i for i in ONE_USE_ITEMS if figure.carries(i) and i not in current["discarded"])
    spells = tuple(s for s in figure.spells if s not in current["forgotten"])
    activating = state.get("activating") == fid
    able = can_act(current, figure) and (activating or not current["activated"])
    actions: list[str] = []
    if able:
        actions.append("attack")
        if figure.stats.get("CA", 0) >= 1 and spells:
            actions.append("spell")
        if figure.carries(MEDICAL_KIT):
            actions.append("heal")
            if side_unconscious:
                actions.append("revive")
        actions.append("jump")
    if items and current["status"] != OUT_OF_ACTION:
        actions.append("item")
    if able or (current["status"] == ACTIVE and not current["activated"]):
        actions.append("activate")
    actions.append("change")
    if figure.has(DEADLY_GAMBLE) and state["turn"] == 1 and state["initiative"] is None:
        actions.append("deadly-gamble")
    if current["status"] == OUT_OF_ACTION:
        phase, words = "cannot act", "Out of Action: does nothing more"
    elif activating:
        phase, words = "activating", "Activating now"
    elif current["activated"]:
        phase, words = "activated", "Has activated this turn"
    elif current["status"] == UNCONSCIOUS and able:
        phase, words = "to activate", "May act through Determination"
    elif current["status"] == UNCONSCIOUS:
        phase, words = "cannot act", "Unconscious: waits to be revived"
    else:
        phase, words = "to activate", "Yet to activate"
    return Options(phase, words, tuple(actions), items, spells)


def all_options(state: BattleState, figures: Mapping[str, Figure]) -> dict[str, Options]:
    """Every figure's options, by id."""
    unconscious = [
        (f["side"], fid) for fid, f in state["figures"].items() if f["status"] == UNCONSCIOUS
    ]

    def friend_down(fid: str) -> bool:
        side = state["figures"][fid]["side"]
        return any(s == side and other != fid for s, other in unconscious)

    return {
        fid: options(state, fid, figure, side_unconscious=friend_down(fid))
        for fid, figure in figures.items()
        if fid in state["figures"]
    }
