"""Damage (P3): the Success Rating as damage, Friendship transfers, Unconscious and Out of
Action, and the wards that act on damage (Earth Ward, Protective Wall)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dbd_site.errors import Invalid, Problem
from play.table.figures import (
    ACTIVE,
    AIM_FOR_THE_LEGS,
    DISARMING_SHOT,
    OUT_OF_ACTION,
    UNCONSCIOUS,
    Figure,
    Status,
)
from play.table.state import (
    DISARMED,
    EARTH_WARD,
    LEGS,
    WALL,
    BattleState,
    CheckRecord,
    Event,
    add_markers,
    figure_state,
)


@dataclass(frozen=True, slots=True)
class AttackResult:
    """One attack die's result (`attacks.resolve_attack`)."""

    roll: int
    total: int
    success_rating: int  # total - modified DF; a hit when 0 or more
    hit: bool
    damage: int
    words: str

    @property
    def push_inches(self) -> int:
        return 0 if not self.hit else 1 + self.damage


@dataclass(frozen=True, slots=True)
class Recipient:
    """A friendly figure the defender's player names to take some damage (within 5")."""

    name: str
    fr: int
    amount: int  # damage moved onto this figure
    status: Status = ACTIVE
    true_power_of_friendship: bool = False
    inspire_markers: int = 0  # Inspire: 1 marker twice FR, 2 markers any amount


def transfer_limit(recipient: Recipient) -> int | None:
    """The most damage a figure may be transferred (its FR; Inspire raises it); None: any."""
    if recipient.inspire_markers >= 2:
        return None
    if recipient.inspire_markers == 1:
        return 2 * recipient.fr
    return recipient.fr


def received(recipient: Recipient) -> int:
    """What a recipient loses: The True Power of Friendship halves it, rounded down (R13)."""
    return recipient.amount // 2 if recipient.true_power_of_friendship else recipient.amount


def check_transfers(damage: int, recipients: Sequence[Recipient]) -> int:
    """Validate the transfers of `damage` (P3); returns what the defender keeps."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, r in enumerate(recipients):
        where = f"/transfers/{i}"
        limit = transfer_limit(r)
        if r.name in seen:
            problems.append(Problem(where, "invalid-transfer", f"{r.name} is named twice."))
        seen.add(r.name)
        if r.status != ACTIVE:
            problems.append(
                Problem(where, "invalid-transfer", f"{r.name} is not active and takes no damage.")
            )
        if r.amount < 1:
            problems.append(
                Problem(where, "invalid-transfer", "A transfer moves at least 1 damage.")
            )
        elif limit is not None and r.amount > limit:
            problems.append(
                Problem(
                    where,
                    "invalid-transfer",
                    f"{r.name} may take at most {limit} damage (FR {r.fr}).",
                )
            )
    moved = sum(r.amount for r in recipients)
    if moved > damage:
        problems.append(
            Problem(
                "/transfers",
                "invalid-transfer",
                f"{moved} damage transferred, but only {damage} was dealt.",
            )
        )
    if problems:
        raise Invalid.of(problems)
    return damage - moved


def take_damage(hp: int, status: Status, damage: int, success_rating: int) -> tuple[int, Status]:
    """A hit's effect on a figure (P3): HP falls (not below 0); at 0 HP it is Unconscious;
    an Unconscious figure hit with a Success Rating of 1 or more is Out of Action."""
    if status == OUT_OF_ACTION:
        return hp, status
    if status == UNCONSCIOUS:
        return hp, OUT_OF_ACTION if success_rating >= 1 else UNCONSCIOUS
    hp = max(0, hp - damage)
    return hp, UNCONSCIOUS if hp == 0 else ACTIVE


def lose_hp(hp: int, status: Status, amount: int) -> tuple[int, Status]:
    """HP lost outside an attack (a transfer, a fall, terrain): Unconscious at 0, never OOA."""
    if status != ACTIVE or amount <= 0:
        return hp, status
    hp = max(0, hp - amount)
    return hp, UNCONSCIOUS if hp == 0 else ACTIVE


@dataclass(frozen=True, slots=True)
class Wards:
    """Protective Wall and Earth Ward, the next time a figure sustains damage."""

    damage: int  # what the figure loses: halved (rounded down) by an Earth Ward marker
    earth_ward: bool  # one Earth Ward marker is discarded
    reflected: int  # Wall markers discarded: the attacker suffers that much damage

    def words(self, before: int, attacker: str) -> str:
        said = []
        if self.earth_ward:
            said.append(f"Earth Ward halves {before} damage to {self.damage}.")
        if self.reflected:
            marker = "marker" if self.reflected == 1 else "markers"
            said.append(
                f"Wall: {self.reflected} {marker} discarded; {attacker} suffers "
                f"{self.reflected} damage."
            )
        return " ".join(said)


def wards(damage: int, markers: Mapping[str, int]) -> Wards:
    """What the target's wards do to `damage` it would sustain (1 or more; 0 is no damage
    and spends nothing). Earth Ward: discard one marker to halve it (rounded down, as P3
    halves). Protective Wall: "discard any number of markers": the site discards them all,
    so the attacker suffers one damage per marker."""
    if damage <= 0:
        return Wards(max(0, damage), False, 0)
    earth_ward = markers.get(EARTH_WARD, 0) > 0
    return Wards(damage // 2 if earth_ward else damage, earth_ward, markers.get(WALL, 0))


@dataclass(frozen=True, slots=True)
class Hit:
    """What one attack die's hit did to the battle: record events, and the target's wards."""

    events: list[Event]
    warded: Wards | None = None
    sustained: int = 0  # the damage the target would have lost before its wards
    lost: int = 0  # the HP the target lost

    def words(self, attacker: str) -> str:
        return "" if self.warded is None else self.warded.words(self.sustained, attacker)


def apply_hit(
    state: BattleState,
    attacker_id: str,
    target_id: str,
    result: AttackResult,
    kept: int | None = None,
) -> Hit:
    """One attack die's hit on the battle (P3): `kept` of its damage (what Friendship left
    the target; None: all of it), then the target's Earth Ward and Protective Wall
    (`wards`), Unconscious at 0 HP, Out of Action for an Unconscious figure hit with a
    Success Rating of 1 or more."""
    events: list[Event] = []
    target = figure_state(state, target_id, "/target")
    if not result.hit:
        return Hit(events)
    kept = result.damage if kept is None else kept
    sustained = kept
    warded: Wards | None = None
    if target["status"] == ACTIVE and kept > 0:
        warded = wards(kept, target["markers"])
        kept = warded.damage
        if warded.earth_ward:
            add_markers(state, target_id, EARTH_WARD, -1)
        if warded.reflected:
            add_markers(state, target_id, WALL, -warded.reflected)
            events += lose(state, attacker_id, warded.reflected)
        if not warded.earth_ward and not warded.reflected:
            warded = None
    before_hp, before = target["hp"], target["status"]
    target["hp"], target["status"] = take_damage(
        target["hp"], target["status"], kept, result.success_rating
    )
    if target["status"] != before:
        events.append({"figure": target_id, "status": target["status"], "by": attacker_id})
    return Hit(events, warded, sustained, before_hp - target["hp"])


def lose(state: BattleState, fid: str, amount: int) -> list[Event]:
    """HP lost outside an attack (a fall, a failed jump, terrain)."""
    figure = figure_state(state, fid, "/figure")
    was = figure["status"]
    figure["hp"], figure["status"] = lose_hp(figure["hp"], was, amount)
    return (
        [{"figure": fid, "status": figure["status"], "by": None}]
        if figure["status"] != was
        else []
    )


# --- an attack's effect, all its dice --------------------------------------------------------

SUBDUAL_CHECK, EXPLOIT_WEAKNESS_CHECK = "subdual", "exploit-weakness"


def subdual_knocks_out(roll: int, hp: int) -> bool:
    """Subdual Weapon: the target must roll below its remaining HP or fall Unconscious."""
    return roll >= hp


def exploit_weakness_bites(check: CheckRecord | None, first: AttackResult | None) -> bool:
    """Exploit Weakness: a melee hit of Success Rating 0, then a die at or under ME: 1 HP."""
    return (
        check is not None
        and check["kind"] == EXPLOIT_WEAKNESS_CHECK
        and first is not None
        and first.hit
        and first.success_rating == 0
        and check["die"] <= check["me"]
    )


def attack_damage(
    results: Sequence[AttackResult], check: CheckRecord | None, target_active: bool
) -> int:
    """The damage an attack deals, every die of it (and Exploit Weakness's 1 HP): what a
    Friendship transfer may move (P3)."""
    dealt = sum(r.damage for r in results if r.hit)
    bites = target_active and exploit_weakness_bites(check, results[0] if results else None)
    return dealt + (1 if bites else 0)


@dataclass(frozen=True, slots=True)
class Effect:
    """An attack's effect on the battle: its record events, its words, the HP the target
    lost (after transfers and wards)."""

    events: list[Event]
    words: list[str]
    lost: int


def apply_attack(
    state: BattleState,
    attacker: Figure,
    attacker_id: str,
    target_id: str,
    results: Sequence[AttackResult],
    check: CheckRecord | None,
    *,
    ranged: bool,
    recipients: Sequence[tuple[str, Recipient]] = (),
) -> Effect:
    """An attack's dice on the battle, in order (P3): each hit's damage, less what the
    defender's Friendship transfer moves away (taken off the earliest hits first: never
    worse for the defender, as the target keeps its HP longest), then its wards; Deadly
    Gamble; Subdual's knock-out roll or Exploit Weakness; the recipients' losses; and
    Disarming Shot's and Aim for the Legs' markers on a target that lost HP to a ranged
    attack. Used when the attack is rolled, and again with the same dice when the
    defender transfers (`recipients`).

    Long because each hit is applied in order (P3), with the transfer taken off as it goes.
    """
    target = figure_state(state, target_id, "/target")
    events: list[Event] = []
    words: list[str] = []
    active_before = target["status"] == ACTIVE
    moved = 0
    if recipients:
        if not active_before:
            raise Invalid(
                "nothing-to-transfer",
                "Only an active figure that takes damage transfers it.",
                pointer="/transfers",
            )
        for i, (fid, recipient) in enumerate(recipients):
            friend = figure_state(state, fid, f"/transfers/{i}")
            if friend["side"] != target["side"] or fid == target_id:
                raise Invalid(
                    "other-side",
                    f"{recipient.name} is not a friend of the target.",
                    pointer=f"/transfers/{i}",
                )
        pool = attack_damage(results, check, active_before)
        moved = pool - check_transfers(pool, [r for _, r in recipients])
    lost = 0
    for result in results:
        if not result.hit:
            continue
        taken = min(moved, result.damage)
        moved -= taken
        hit = apply_hit(state, attacker_id, target_id, result, result.damage - taken)
        events += _gamble(state, attacker_id, target_id, hit.events, words)
        lost += hit.lost
        if said := hit.words(attacker.name):
            words.append(said)
    first = results[0] if results else None
    if check is not None and first is not None and first.hit:
        if check["kind"] == SUBDUAL_CHECK and target["status"] == ACTIVE:
            die, hp = check["die"], target["hp"]
            if subdual_knocks_out(die, hp):
                target["status"] = UNCONSCIOUS
                words.append(f"Subdual: the target rolled {die}, not under its {hp} HP.")
                knocked: list[Event] = [
                    {"figure": target_id, "status": UNCONSCIOUS, "by": attacker_id}
                ]
                events += _gamble(state, attacker_id, target_id, knocked, words)
            else:
                words.append(f"Subdual: the target rolled {die}, under its {hp} HP.")
        elif check["kind"] == EXPLOIT_WEAKNESS_CHECK and first.success_rating == 0:
            if exploit_weakness_bites(check, first) and active_before:
                words.append(f"Exploit Weakness: rolled {check['die']}, at or under ME: 1 damage.")
                kept = 1 - min(moved, 1)
                before_hp, was = target["hp"], target["status"]
                target["hp"], target["status"] = lose_hp(target["hp"], was, kept)
                lost += before_hp - target["hp"]
                if target["status"] != was:
                    changed: list[Event] = [
                        {"figure": target_id, "status": target["status"], "by": attacker_id}
                    ]
                    events += _gamble(state, attacker_id, target_id, changed, words)
            elif target["status"] == ACTIVE:
                words.append(f"Exploit Weakness: rolled {check['die']}, over ME.")
    for fid, recipient in recipients:
        friend = state["figures"][fid]
        was = friend["status"]
        friend["hp"], friend["status"] = lose_hp(friend["hp"], was, received(recipient))
        if friend["status"] != was:
            events.append({"figure": fid, "status": friend["status"], "by": None})
    if ranged and lost > 0:
        for skill, marker, name, effect in (
            (DISARMING_SHOT, DISARMED, "Disarming Shot", "may not use a weapon's benefits"),
            (AIM_FOR_THE_LEGS, LEGS, "Aim for the Legs", "may not Run or Dash"),
        ):
            if attacker.has(skill):
                add_markers(state, target_id, marker, 1)
                words.append(f"{name}: the target {effect} in its next activation.")
    return Effect(events, words, lost)


def _gamble(
    state: BattleState,
    attacker_id: str,
    target_id: str,
    events: list[Event],
    words: list[str],
) -> list[Event]:
    """Deadly Gamble: when the figure that named the other before the battle, or the one it
    named, renders the other Unconscious, that figure is Out of Action instead."""
    figures = state["figures"]
    linked = (
        figures[attacker_id]["gamble"] == target_id or figures[target_id]["gamble"] == attacker_id
    )
    if not linked:
        return events
    changed: list[Event] = []
    for event in events:
        if event["figure"] == target_id and event["status"] == UNCONSCIOUS:
            figures[target_id]["status"] = OUT_OF_ACTION
            event = {**event, "status": OUT_OF_ACTION}
            words.append("Deadly Gamble: Out of Action instead of Unconscious.")
        changed.append(event)
    return changed
