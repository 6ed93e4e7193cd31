"""The record (P6): who took part, who went Unconscious or Out of Action, and who took
whom Out of Action, from the battle's events."""

from collections.abc import Iterable
from dataclasses import dataclass

from play.table.figures import OUT_OF_ACTION, UNCONSCIOUS
from play.table.state import BattleState, Event


@dataclass(frozen=True, slots=True)
class MemberRecord:
    """One figure's line of the R14 record, filled from the log (P6)."""

    figure: str
    unconscious: bool
    out_of_action: bool
    enemies_out_of_action: int


def record_from(state: BattleState, events: Iterable[Event]) -> dict[str, MemberRecord]:
    """P6: every figure took part; who went Unconscious or Out of Action; who took whom Out
    of Action (the attacker whose hit did it, when it was an enemy)."""
    unconscious: set[str] = set()
    out: set[str] = set()
    taken: dict[str, int] = {}
    figures = state["figures"]
    for event in events:
        if event["status"] == UNCONSCIOUS:
            unconscious.add(event["figure"])
        elif event["status"] == OUT_OF_ACTION:
            if event["figure"] in out:
                continue  # put back by a declared change and taken out again: credit once
            out.add(event["figure"])
            by = event["by"]
            if by is not None and figures[by]["side"] != figures[event["figure"]]["side"]:
                taken[by] = taken.get(by, 0) + 1
    return {
        fid: MemberRecord(fid, fid in unconscious, fid in out, taken.get(fid, 0))
        for fid in figures
    }
