"""Damage (P3): the Success Rating as damage, Friendship transfers, Unconscious and Out of
Action, and the wards that act on damage (Earth Ward, Protective Wall)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dbd_site.errors import Invalid, Problem
from play.table.figures import ACTIVE, OUT_OF_ACTION, UNCONSCIOUS, Status
from play.table.state import EARTH_WARD, WALL, BattleState, Event, add_markers, figure_state


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
    """What an attack's hit did to the battle: record events, and the target's wards."""

    events: list[Event]
    warded: Wards | None = None
    sustained: int = 0  # the damage the target would have lost before its wards

    def words(self, attacker: str) -> str:
        return "" if self.warded is None else self.warded.words(self.sustained, attacker)


def apply_hit(
    state: BattleState,
    attacker_id: str,
    target_id: str,
    result: AttackResult,
    transfers: Sequence[tuple[str, Recipient]] = (),
) -> Hit:
    """An attack's result on the battle (P3): damage less what Friendship moves away, then
    the target's Earth Ward and Protective Wall (`wards`), the recipients' losses,
    Unconscious at 0 HP, Out of Action for an Unconscious figure hit."""
    events: list[Event] = []
    target = figure_state(state, target_id, "/target")
    if not result.hit:
        return Hit(events)
    kept = result.damage
    if transfers:
        if target["status"] != ACTIVE:
            raise Invalid(
                "nothing-to-transfer",
                "Only an active figure that takes damage transfers it.",
                pointer="/transfers",
            )
        kept = check_transfers(result.damage, [r for _, r in transfers])
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
    before = target["status"]
    target["hp"], target["status"] = take_damage(
        target["hp"], target["status"], kept, result.success_rating
    )
    if target["status"] != before:
        events.append({"figure": target_id, "status": target["status"], "by": attacker_id})
    for fid, recipient in transfers:
        friend = figure_state(state, fid, "/transfers")
        if friend["side"] != target["side"] or fid == target_id:
            raise Invalid(
                "other-side",
                f"{recipient.name} is not a friend of the target.",
                pointer="/transfers",
            )
        was = friend["status"]
        friend["hp"], friend["status"] = lose_hp(friend["hp"], was, received(recipient))
        if friend["status"] != was:
            events.append({"figure": fid, "status": friend["status"], "by": None})
    return Hit(events, warded, sustained)


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
