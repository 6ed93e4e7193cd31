"""The record (P6): who took part, who went Unconscious or Out of Action, and who took
whom Out of Action, from the battle's events."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True, slots=True)
class Logged:
    """A line of the battle's log, as the record reads it."""

    seq: int
    kind: str
    detail: Mapping[str, Any]
    events: Sequence[Event]


def effective_events(log: Iterable[Logged]) -> list[Event]:
    """The record's events (P6), from the log's lines not undone, in order. A Friendship
    transfer resolves its attack again (`decisions.transfer`): for the figures it resolved
    again, the attack's events give way to the transfer's (every figure, for a transfer
    logged before they were named)."""
    lines = list(log)
    replaced: dict[int, set[str] | None] = {}
    for line in lines:
        if line.kind == "transfer" and "amends" in line.detail:
            figures = line.detail.get("figures")
            replaced[line.detail["amends"]] = None if figures is None else set(figures)

    def counts(line: Logged, event: Event) -> bool:
        if line.seq not in replaced:
            return True
        figures = replaced[line.seq]
        return figures is not None and event["figure"] not in figures

    return [event for line in lines for event in line.events if counts(line, event)]
