"""documents.with_fields: the what-if's way to change part of a parsed member."""

import dataclasses

import pytest

from roster import documents
from tests.roster.builders import emma, force, julius


def test_with_fields_replaces_only_what_it_is_given():
    member = documents.parse_member(emma())
    changed = documents.with_fields(member, {"equipment": ["pistol"], "xp": 7})
    assert changed.equipment == ("pistol",)
    assert changed.xp == 7
    # Everything else is the very same value, which lets the engine resume a what-if.
    assert changed.free_advancements is member.free_advancements
    assert changed.base is member.base
    assert changed == documents.parse_member({**emma(), "equipment": ["pistol"], "xp": 7})


def test_with_fields_fills_every_field_a_property_stands_for():
    member = documents.parse_member(emma())
    club = {"name": "Chess Club", "society": "technical", "choice": "RA"}
    changed = documents.with_fields(member, {"club": club})
    assert (changed.club_name, changed.society, changed.society_choice) == (
        "Chess Club",
        "technical",
        "RA",
    )


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"equipment": [1]}, "/equipment/0"),
        ({"xp": 1.0}, "/xp"),
        ({"xp": -1}, "/xp"),
        ({"purchases": [{"line": 1, "skill": "movement/catfall"}]}, "/purchases/0"),
        ({"colour": "red"}, "/colour"),
    ],
)
def test_with_fields_refuses_what_a_member_could_not_hold(changes, where):
    member = documents.parse_member(emma())
    with pytest.raises(documents.MalformedDocument) as refused:
        documents.with_fields(member, changes)
    assert refused.value.problems
    assert all(p.pointer.startswith(where) for p in refused.value.problems)


def test_a_parsed_roster_cannot_be_changed_in_place():
    """What-ifs share unchanged values between a member and its variants
    (`with_fields`): a change made in place to one would show in the others."""
    roster = documents.parse(force(emma()))
    member = roster.members[0]
    for thing, name in [
        (roster, "resources"),
        (member, "xp"),
        (member.free_advancements[0], "line"),
    ]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(thing, name, 3)
    purchase = documents.parse_member(julius()).purchases[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        purchase.line = 3
