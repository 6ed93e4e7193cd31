"""The attacked side's decisions (P9): after an attack, the defender's player chooses a
Friendship transfer (P3) and makes the Dodge for Cover move. Each waits in the battle's
state until that side answers or passes it; the other side's next actions do not cancel it.

What a pending decision blocks: a Friendship transfer resolves the attack again from the
figures as they were before it, so while it waits no action may change the HP, status or
markers of the figures that attack changed (its target, and its attacker when a Protective
Wall hurt it): such an action is refused with `decision-pending` until the defender
answers. Nothing else waits: the attacker may attack others, end its activation, start a
new turn. A pending Dodge for Cover blocks nothing. Undoing the attack takes its decisions
with it.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from dbd_site.errors import Conflict, Invalid
from play.table.damage import (
    AttackResult,
    Recipient,
    apply_attack,
    attack_damage,
    received,
)
from play.table.figures import ACTIVE, TRUE_POWER_OF_FRIENDSHIP, Figure
from play.table.state import (
    BattleState,
    CheckRecord,
    Decision,
    HitRecord,
    Outcome,
    Snapshot,
    Table,
)

D = TypeVar("D")

KIND_WORDS = {"transfer": "Friendship transfer", "dodge": "Dodge for Cover"}


def pending(state: BattleState) -> list[Decision]:
    return state.get("decisions") or []


def snapshot(state: BattleState, fid: str) -> Snapshot:
    figure = state["figures"][fid]
    return {"hp": figure["hp"], "status": figure["status"], "markers": dict(figure["markers"])}


def restore(state: BattleState, fid: str, snap: Snapshot) -> None:
    figure = state["figures"][fid]
    figure["hp"], figure["status"] = snap["hp"], snap["status"]
    figure["markers"] = dict(snap["markers"])


def _open(state: BattleState, decision: dict[str, Any]) -> Decision:
    state["decisions_opened"] = state.get("decisions_opened", 0) + 1
    opened: Decision = {"id": state["decisions_opened"], **decision}  # type: ignore[typeddict-item]
    state.setdefault("decisions", []).append(opened)
    return opened


def open_after_attack(
    t: Table,
    attacker_id: str,
    target_id: str,
    results: Sequence[AttackResult],
    check: CheckRecord | None,
    *,
    ranged: bool,
    before: dict[str, Snapshot],
    dodge_inches: int,
) -> list[str]:
    """The defender's decisions an attack opens (P9): a Friendship transfer when it dealt
    damage to an active figure with an active friend; the Dodge for Cover move after a
    ranged attack that hit a figure still active. Answers words for the log."""
    state = t.state
    side = t.side_of(target_id)
    said: list[str] = []
    damage = attack_damage(results, check, before[target_id]["status"] == ACTIVE)
    friends = [
        fid
        for fid, f in state["figures"].items()
        if f["side"] == side and fid != target_id and f["status"] == ACTIVE
    ]
    if damage and before[target_id]["status"] == ACTIVE and friends:
        changed = [fid for fid in before if snapshot(state, fid) != before[fid]]
        _open(
            state,
            {
                "kind": "transfer",
                "side": side,
                "figure": target_id,
                "attacker": attacker_id,
                "opened_by": t.seq,
                "damage": damage,
                "hits": [_record(r) for r in results],
                "check": check,
                "ranged": ranged,
                "before": {fid: before[fid] for fid in changed},
                "after": {fid: snapshot(state, fid) for fid in changed},
            },
        )
        said.append(f"{t.sides[side]} may transfer some of the {damage} damage (Friendship).")
    if ranged and any(r.hit for r in results) and state["figures"][target_id]["status"] == ACTIVE:
        _open(
            state,
            {
                "kind": "dodge",
                "side": side,
                "figure": target_id,
                "attacker": attacker_id,
                "opened_by": t.seq,
                "inches": dodge_inches,
            },
        )
    return said


def _record(result: AttackResult) -> HitRecord:
    return {
        "roll": result.roll,
        "success_rating": result.success_rating,
        "damage": result.damage,
        "hit": result.hit,
    }


def guard(state: BattleState, waiting: Sequence[Decision], name: Callable[[str], str]) -> None:
    """Refuse an action that changed a figure a waiting transfer will resolve again."""
    still = {d["id"] for d in pending(state)}
    for decision in waiting:
        if decision["kind"] != "transfer" or decision["id"] not in still:
            continue
        for fid, snap in decision.get("after", {}).items():
            if snapshot(state, fid) != snap:
                raise Conflict(
                    "decision-pending",
                    f"The {KIND_WORDS['transfer']} after the attack on "
                    f"{name(decision['figure'])} waits for its answer first.",
                )


def run(t: Table, rule: Callable[[Table, D], Outcome], declared: D) -> Outcome:
    """An action's rule on the table, as every action goes: the decisions waiting before
    it are guarded (`guard`), and what the start of an activation did (P8) leads its
    words and events."""
    waiting = list(pending(t.state))
    outcome = rule(t, declared)
    guard(t.state, waiting, t.name)
    if t.said:
        outcome.words = " ".join([*t.said, outcome.words])
    if t.events:
        outcome.events = [*t.events, *outcome.events]
        outcome.words += t.status_words(t.events)
    return outcome


# --- the answers --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """Which decision an answer is for: its id, or None for the latest of its kind."""

    decision: int | None = None


@dataclass(frozen=True, slots=True)
class Transfer:
    """The defender's Friendship transfer: damage moved onto friendly figures (P3)."""

    transfers: Sequence[tuple[object, object]]  # (figure id as sent, amount)
    decision: int | None = None


def _pick(t: Table, decision_id: int | None, kind: str | None, where: str) -> Decision:
    """The decision answered: by id, or the latest waiting of `kind` (of the player's
    sides, for a pass); refused when none waits."""
    waiting = [d for d in pending(t.state) if kind is None or d["kind"] == kind]
    if decision_id is None and kind is None and t.player_sides is not None:
        waiting = [d for d in waiting if d["side"] in t.player_sides]
    found = [d for d in waiting if decision_id is None or d["id"] == decision_id]
    if not found:
        if kind == "transfer":
            raise Invalid(
                "nothing-to-transfer",
                "No attack's damage is waiting for a Friendship transfer.",
                pointer="/transfers" if decision_id is None else "/decision",
            )
        raise Invalid("no-decision", "No such decision is waiting.", pointer=where)
    decision = found[-1]
    t.for_side(decision["side"], KIND_WORDS[decision["kind"]], where)
    return decision


def _close(t: Table, decision: Decision) -> None:
    t.state["decisions"] = [d for d in pending(t.state) if d["id"] != decision["id"]]


def transfer(t: Table, d: Transfer) -> Outcome:
    """Friendship (P3): the defender moves some of an attack's damage onto friendly figures
    (each at most its FR, Inspire raising it; The True Power of Friendship halves what it
    receives). The attack is resolved again, with the same dice, from the figures as they
    were before it: so a transfer after several dice, or after Subdual's or Exploit
    Weakness's roll, is as if the defender had answered at once."""
    decision = _pick(t, d.decision, "transfer", "/decision")
    target_id, attacker_id = decision["figure"], decision["attacker"]
    recipients: list[tuple[str, Recipient]] = []
    for i, (fid, amount) in enumerate(d.transfers):
        key, fig = t.figure(fid, f"/transfers/{i}")
        current = t.state["figures"][key]
        recipients.append(
            (
                key,
                Recipient(
                    fig.name,
                    fig.stats["FR"],
                    amount if isinstance(amount, int) and not isinstance(amount, bool) else 0,
                    current["status"],
                    fig.has(TRUE_POWER_OF_FRIENDSHIP),
                    current["markers"].get("inspire", 0),
                ),
            )
        )
    for fid, snap in decision.get("before", {}).items():
        restore(t.state, fid, snap)
    results = [
        AttackResult(h["roll"], 0, h["success_rating"], h["hit"], h["damage"], "")
        for h in decision.get("hits", [])
    ]
    attacker: Figure = t.figures[attacker_id]
    effect = apply_attack(
        t.state,
        attacker,
        attacker_id,
        target_id,
        results,
        decision.get("check"),
        ranged=bool(decision.get("ranged")),
        recipients=recipients,
    )
    _close(t, decision)
    moved = ", ".join(
        f"{rec.amount} to {rec.name}"
        + (f" (loses {received(rec)})" if rec.true_power_of_friendship else "")
        for _, rec in recipients
    )
    return Outcome(
        f"Friendship: {t.name(target_id)} transfers {moved}."
        + "".join(f" {said}" for said in effect.words)
        + t.status_words(effect.events),
        detail={
            "amends": decision["opened_by"],
            "figures": sorted(decision.get("before", {})),
            "decision": decision["id"],
            "transfers": {str(k): v for k, v in d.transfers},
        },
        events=effect.events,
    )


def dodge(t: Table, d: Answer) -> Outcome:
    """The defender's Dodge for Cover, made at the table (the site knows no positions)."""
    decision = _pick(t, d.decision, "dodge", "/decision")
    _close(t, decision)
    return Outcome(
        f'{t.name(decision["figure"])} Dodges for Cover {decision.get("inches", 2)}".',
        detail={"decision": decision["id"]},
    )


def pass_decision(t: Table, d: Answer) -> Outcome:
    """The deciding side passes: no transfer, or no Dodge for Cover move."""
    decision = _pick(t, d.decision, None, "/decision")
    _close(t, decision)
    what = (
        f"no Friendship transfer for {t.name(decision['figure'])}"
        if decision["kind"] == "transfer"
        else f"{t.name(decision['figure'])} stays where it is (no Dodge for Cover)"
    )
    return Outcome(
        f"{t.sides[decision['side']]} passes: {what}.", detail={"decision": decision["id"]}
    )
