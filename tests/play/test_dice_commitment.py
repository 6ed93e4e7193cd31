"""Verifiable dice, the pure part (`play.table.commitment`): the commitment, the stream of
dice derived from the seed, and the check of a finished battle's logged dice."""

import hashlib
import hmac
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from play import table
from play.table.commitment import (
    DiceStream,
    LoggedDie,
    commitment_of,
    die_at,
    face_of,
    new_seed,
    verify,
)

SEED = "00" * 32
OTHER_SEED = "ff" * 32


def test_the_commitment_is_the_sha256_of_the_seeds_bytes():
    assert commitment_of(SEED) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )
    seed = new_seed()
    assert len(seed) == 64
    assert commitment_of(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert new_seed() != seed


@pytest.mark.parametrize("faces", range(1, 13))
def test_every_face_is_equally_likely_from_a_byte(faces):
    shown = Counter(face_of(byte, faces) for byte in range(256))
    rejected = shown.pop(None, 0)
    assert rejected == 256 % faces
    assert shown == dict.fromkeys(range(1, faces + 1), 256 // faces)


def test_the_last_whole_round_of_faces_is_the_boundary():
    assert (face_of(251, 12), face_of(252, 12), face_of(255, 12)) == (12, None, None)
    assert (face_of(0, 12), face_of(11, 12), face_of(12, 12)) == (1, 12, 1)
    assert (face_of(254, 3), face_of(255, 3)) == (3, None)


def test_a_die_is_the_first_byte_of_the_hmac_of_its_index():
    for index in range(50):
        byte = hmac.new(bytes(32), str(index).encode(), hashlib.sha256).digest()[0]
        assert die_at(SEED, index, 12) == (1 + byte % 12 if byte < 252 else None)


def test_the_stream_draws_in_order_and_passes_over_rejected_indices():
    expected = [(i, v) for i in range(200) if (v := die_at(SEED, i, 12)) is not None]
    assert len(expected) < 200  # some indices are passed over in 200
    stream = DiceStream(SEED)
    rolled = table.dice.roll_dice(len(expected), stream)
    assert rolled == [v for _, v in expected]
    assert [(d.index, d.faces, d.value) for d in stream.drawn] == [(i, 12, v) for i, v in expected]
    assert stream.next_index == expected[-1][0] + 1


def test_the_stream_continues_where_the_last_action_left_it():
    first = DiceStream(SEED)
    first.randint(1, 12)
    first.randint(1, 3)
    later = DiceStream(SEED, start=first.next_index)
    whole = DiceStream(SEED)
    assert [whole.randint(1, 12), whole.randint(1, 3), whole.randint(1, 12)][2] == (
        later.randint(1, 12)
    )
    assert later.drawn[0].index == whole.drawn[2].index


def test_a_d3_comes_from_the_same_stream_with_three_faces():
    stream = DiceStream(SEED)
    die = stream.randint(1, 3)
    assert (stream.drawn[0].faces, die_at(SEED, stream.drawn[0].index, 3)) == (3, die)


def test_the_stream_draws_only_whole_dice():
    stream = DiceStream(SEED)
    with pytest.raises(TypeError):
        stream.random()
    with pytest.raises(TypeError):
        stream.choice([1, 2])
    with pytest.raises(ValueError, match="1 to 256 faces"):
        stream.randint(1, 257)
    with pytest.raises(ValueError, match="1 to 256 faces"):
        stream.randrange(0, 10, 2)
    assert stream.drawn == []
    assert isinstance(stream, random.Random)


def logged(stream: DiceStream, seq: int = 2) -> list[LoggedDie]:
    return [
        LoggedDie(seq, position, d.value, d.index, d.faces)
        for position, d in enumerate(stream.drawn)
    ]


@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    faces=st.lists(st.sampled_from([12, 3]), min_size=1, max_size=30),
)
def test_every_die_the_stream_draws_verifies(seed, faces):
    stream = DiceStream(seed)
    for n in faces:
        stream.randint(1, n)
    result = verify(commitment_of(seed), seed, logged(stream))
    assert result.verified
    assert [c.derived for c in result.checks] == [d.value for d in stream.drawn]


def three_dice() -> tuple[DiceStream, list[LoggedDie]]:
    stream = DiceStream(SEED)
    table.dice.roll_dice(3, stream)
    return stream, logged(stream)


def test_a_changed_die_fails_the_check():
    _, dice = three_dice()
    changed = dice[1].value % 12 + 1
    dice[1] = LoggedDie(2, 1, changed, dice[1].index, 12)
    result = verify(commitment_of(SEED), SEED, dice)
    assert not result.verified
    assert [c.matches for c in result.checks] == [True, False, True]
    assert result.checks[1].problem == (
        f"The seed gives {die_at(SEED, dice[1].index, 12)} at index {dice[1].index}."
    )


def test_another_seed_fails_the_commitment_and_the_dice():
    _, dice = three_dice()
    result = verify(commitment_of(SEED), OTHER_SEED, dice)
    assert not result.seed_matches
    assert not result.verified
    malformed = verify(commitment_of(SEED), "not a seed", dice)
    assert not malformed.seed_matches
    assert {c.problem for c in malformed.checks} == {
        "The revealed seed is not 64 hexadecimal digits."
    }


def test_a_die_drawn_and_left_out_of_the_log_fails_the_check():
    _, dice = three_dice()
    result = verify(commitment_of(SEED), SEED, [dice[0], dice[2]])
    assert [c.matches for c in result.checks] == [True, False]
    assert result.checks[1].problem == (
        f"Index {dice[1].index} gives a die that is not in the log."
    )


def test_dice_out_of_order_or_without_an_index_fail_the_check():
    _, dice = three_dice()
    result = verify(commitment_of(SEED), SEED, [dice[0], dice[2], dice[1]])
    assert [c.matches for c in result.checks] == [True, False, False]
    unplaced = LoggedDie(3, 0, 5, None, None)
    result = verify(commitment_of(SEED), SEED, [*dice, unplaced])
    assert result.checks[-1].problem == "The log names no place in the stream for this die."
    assert not result.verified
