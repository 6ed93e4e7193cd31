"""Verifiable dice: the server commits to every die of a battle before the first is rolled.

When a battle starts the server draws a secret seed (32 random bytes, `secrets`) and
publishes its SHA-256, the commitment. Every die the server rolls in the battle is then
derived from the seed, one after the other; the log keeps each die's index in that
stream (undone actions' dice stay in it: an undo never rolls the same dice again). When
the battle ends the seed is revealed: anyone can check that it hashes to the commitment
published at the start and that it gives every server die in the log (docs/play.md,
"Verify the dice").

The die at index i of the stream, with n faces (a d12, or Healing Spring's d3): take the
first byte b of HMAC-SHA256(key = the seed's 32 bytes, message = i in decimal ASCII).
If b < 256 - 256 mod n, the die shows 1 + (b mod n); otherwise index i is passed over and
the next index is tried (rejection sampling: every face equally likely, no modulo bias).

The stream is a `random.Random` (`DiceStream`), the table's one dice seam: the rules call
`randint(1, n)` as they do on `random.SystemRandom()` or a test's scripted dice.
"""

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

SEED_BYTES = 32
BYTE_VALUES = 256


def new_seed() -> str:
    """A fresh secret seed, as 64 hexadecimal digits."""
    return secrets.token_hex(SEED_BYTES)


def commitment_of(seed: str) -> str:
    """What is published at the start: the SHA-256 of the seed's bytes, in hexadecimal."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def die_at(seed: str, index: int, faces: int) -> int | None:
    """The die index `index` gives with `faces` faces, or None when it is passed over."""
    byte = hmac.new(bytes.fromhex(seed), str(index).encode("ascii"), hashlib.sha256).digest()[0]
    return face_of(byte, faces)


def face_of(byte: int, faces: int) -> int | None:
    """A byte as a die with `faces` faces, or None for the few bytes past the last whole
    round of faces (which would make the low faces likelier)."""
    if byte >= BYTE_VALUES - BYTE_VALUES % faces:
        return None
    return 1 + byte % faces


@dataclass(frozen=True, slots=True)
class Draw:
    """One die of the stream: where it was drawn, its faces and what it showed."""

    index: int
    faces: int
    value: int


class DiceStream(random.Random):
    """A battle's dice, drawn in order from its seed from `start` on (the index after the
    last die the battle drew). Each die drawn is kept in `drawn`; `next_index` is where
    the next action's dice begin.

    Only whole dice are drawn (`randint`, `randrange`): anything else a `random.Random`
    offers would be randomness no one could check, so it is refused."""

    def __init__(self, seed: str, start: int = 0) -> None:
        super().__init__(0)
        self.stream_seed = seed
        self.next_index = start
        self.drawn: list[Draw] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        faces = stop - start
        if step != 1 or not 1 <= faces <= BYTE_VALUES:
            raise ValueError(f"A die has 1 to {BYTE_VALUES} faces; asked for {faces}.")
        while True:
            index = self.next_index
            self.next_index += 1
            value = die_at(self.stream_seed, index, faces)
            if value is not None:
                self.drawn.append(Draw(index, faces, value))
                return start + value - 1

    def randint(self, a: int, b: int) -> int:
        return self.randrange(a, b + 1)

    def random(self) -> float:
        raise TypeError("A battle's dice are whole dice: draw them with randint.")

    def getrandbits(self, k: int, /) -> int:
        raise TypeError("A battle's dice are whole dice: draw them with randint.")


# --- checking a finished battle ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoggedDie:
    """A server die as the log shows it: its action, its place among the action's dice,
    the value shown, and where the log says it came from (None: the log names no index)."""

    seq: int
    position: int
    value: int
    index: int | None
    faces: int | None
    undone: bool = False


@dataclass(frozen=True, slots=True)
class DieCheck:
    die: LoggedDie
    derived: int | None  # what the seed gives at the die's index (None: passed over, or no index)
    problem: str  # empty when the die matches

    @property
    def matches(self) -> bool:
        return not self.problem


@dataclass(frozen=True, slots=True)
class Verification:
    commitment: str
    seed: str
    seed_matches: bool
    checks: list[DieCheck]

    @property
    def verified(self) -> bool:
        return self.seed_matches and all(check.matches for check in self.checks)


def verify(commitment: str, seed: str, dice: Sequence[LoggedDie]) -> Verification:
    """Check a revealed seed against the commitment, and every logged server die (in the
    log's order) against the stream: each die is what the seed gives at its index, the
    indices run upward, and every index passed over between two dice was one the stream
    itself passes over (no die was drawn and left out of the log)."""
    well_formed = len(seed) == 2 * SEED_BYTES and all(c in "0123456789abcdef" for c in seed)
    seed_matches = well_formed and hmac.compare_digest(commitment_of(seed), commitment)
    checks: list[DieCheck] = []
    expected = 0  # the first index the stream may use next
    for die in dice:
        derived = None
        problem = ""
        if die.index is None or die.faces is None:
            problem = "The log names no place in the stream for this die."
        elif not well_formed:
            problem = "The revealed seed is not 64 hexadecimal digits."
        else:
            derived = die_at(seed, die.index, die.faces)
            skipped = [
                i for i in range(expected, die.index) if die_at(seed, i, die.faces) is not None
            ]
            if die.index < expected:
                problem = f"Index {die.index} comes after index {expected - 1} was used."
            elif skipped:
                problem = f"Index {skipped[0]} gives a die that is not in the log."
            elif derived != die.value:
                problem = f"The seed gives {derived or 'no die'} at index {die.index}."
            expected = max(expected, die.index + 1)
        checks.append(DieCheck(die, derived, problem))
    return Verification(commitment, seed, seed_matches, checks)


# The check anyone can run (Python 3, nothing to install), filled in with a battle's
# seed, commitment and dice: the dice page shows it, docs/play.md explains it.
_SNIPPET = """import hashlib
import hmac


def die(seed, index, faces):
    byte = hmac.new(bytes.fromhex(seed), str(index).encode(), hashlib.sha256).digest()[0]
    return None if byte >= 256 - 256 % faces else 1 + byte % faces


seed = "{seed}"
commitment = "{commitment}"
assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment, "not the seed"
for index, faces, value in {dice}:
    assert die(seed, index, faces) == value, f"index {{index}} does not match"
print("Every die matches the seed.")
"""


def check_snippet(seed: str, commitment: str, dice: Sequence[LoggedDie]) -> str:
    """The check as a short Python program with this battle's numbers in it."""
    listed = [(d.index, d.faces, d.value) for d in dice]
    return _SNIPPET.format(seed=seed, commitment=commitment, dice=listed)
