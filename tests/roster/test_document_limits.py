"""Every limit the dbd-roster/1 schema declares (roster/documents.py), at the limit and one
past it, with the whole answer: nothing at the limit, exactly one problem past it (its
pointer, code and words). Each member row is also checked on a member alone
(`parse_member`, pointers relative to the member) and, for a member's own keys, through
`with_fields`, the what-if's way in.

No database: the schema is plain data.
"""

import copy
from typing import Any

import pytest

from dbd_site.errors import Problem
from roster import documents
from tests.roster.builders import force, put_at, student

SLUG = "x" * 100  # the longest slug a document may hold
PURCHASE_WORDS = (
    'A purchase is either {"line": n} (with "choice" for an \'or\' line) '
    'or {"skill": "category/slug"}.'
)


def between(low: int, high: int) -> tuple[str, str]:
    return "out-of-range", f"Must be between {low} and {high}."


def at_most(limit: int, what: str) -> tuple[str, str]:
    if what == "characters":
        return "too-long", f"At most {limit} characters, please."
    return "too-many-items", f"At most {limit} entries here."


EMPTY = ("too-short", "This may not be empty.")
BLANK = ("blank", "This may not be blank.")
BAD_PURCHASE = ("invalid-purchase", PURCHASE_WORDS)


def entries(count: int, entry: Any) -> list[Any]:
    return [copy.deepcopy(entry) for _ in range(count)]


# (path in a member, value at the limit, value one past it, (code, message)); the
# problem's pointer is the path (from the member, or the document for `DOCUMENT_LIMITS`).
MEMBER_LIMITS = [
    (("name",), "x" * 60, "x" * 61, at_most(60, "characters")),
    (("name",), "x", "", EMPTY),
    (("name",), "x", " \t", BLANK),
    (("club", "name"), "x" * 60, "x" * 61, at_most(60, "characters")),
    (("club", "name"), "x", "", EMPTY),
    (("club", "name"), "x", " ", BLANK),
    (("club", "society"), SLUG, SLUG + "x", at_most(100, "characters")),
    (("club", "society"), "x", "", EMPTY),
    # The statistics a document may hold (R1 asks for 3, 2, 2, 1: the engine's check).
    *[(("base", stat), 100, 101, between(-100, 100)) for stat in ("ME", "RA", "CA", "DF")],
    *[(("base", stat), -100, -101, between(-100, 100)) for stat in ("ME", "RA", "CA", "DF")],
    (("free_advancements",), entries(10, {"line": 1}), entries(11, {"line": 1}), at_most(10, "")),
    (("purchases",), entries(40, {"line": 1}), entries(41, {"line": 1}), at_most(40, "")),
    (("equipment",), entries(20, "simple-weapon"), entries(21, "simple-weapon"), at_most(20, "")),
    (("equipment", 0), SLUG, SLUG + "x", at_most(100, "characters")),
    (("core_schools",), entries(4, "restoration"), entries(5, "restoration"), at_most(4, "")),
    (("core_schools", 0), SLUG, SLUG + "x", at_most(100, "characters")),
    (("spells",), entries(40, "healing-spring"), entries(41, "healing-spring"), at_most(40, "")),
    (("spells", 0), SLUG, SLUG + "x", at_most(100, "characters")),
    (("level_ups",), entries(20, {"line": 2}), entries(21, {"line": 2}), at_most(20, "")),
    (("xp",), 100_000, 100_001, between(0, 100_000)),
    (("xp",), 0, -1, between(0, 100_000)),
    (("mastery",), SLUG, SLUG + "x", at_most(100, "characters")),
    (("mastery",), "x", "", EMPTY),
    # An advancement (free or a level-up): a line of the society's table, 1-6 (R4, R17).
    *[
        row
        for key in ("free_advancements", "level_ups")
        for row in [
            ((key, 0, "line"), 6, 7, between(1, 6)),
            ((key, 0, "line"), 1, 0, between(1, 6)),
            ((key, 0, "rerolls"), 100, 101, between(0, 100)),
            ((key, 0, "rerolls"), 0, -1, between(0, 100)),
            ((key, 0, "skill"), SLUG, SLUG + "x", at_most(100, "characters")),
            ((key, 0, "skill"), "x", "", EMPTY),
        ]
    ],
    # A purchase is one of two shapes, so a bad value breaks both: one problem, the choice.
    (("purchases", 0), {"line": 6}, {"line": 7}, BAD_PURCHASE),
    (("purchases", 0), {"line": 1}, {"line": 0}, BAD_PURCHASE),
    (("purchases", 0), {"skill": SLUG}, {"skill": SLUG + "x"}, BAD_PURCHASE),
    (("purchases", 0), {"skill": "x"}, {"skill": ""}, BAD_PURCHASE),
]

DOCUMENT_LIMITS = [
    (("name",), "x" * 100, "x" * 101, at_most(100, "characters")),
    (("name",), "x", "", EMPTY),
    (("name",), "x", " ", BLANK),
    (("resources",), 1_000_000, 1_000_001, between(1, 1_000_000)),
    (("resources",), 1, 0, between(1, 1_000_000)),
    (
        ("members",),
        [student(f"S{i}") for i in range(documents.MAX_MEMBERS)],
        [student(f"S{i}") for i in range(documents.MAX_MEMBERS + 1)],
        at_most(20, ""),
    ),
]


def to_pointer(path: tuple[str | int, ...]) -> str:
    return "".join(f"/{part}" for part in path)


def shape_valid_member() -> dict[str, Any]:
    """A member the schema takes, every list holding one entry (so any index 0 exists)."""
    return student(
        "Ann",
        free_advancements=[{"line": 4, "skill": "melee/outsized-weapon", "method": "picked"}],
        purchases=[{"line": 1}],
        equipment=["simple-weapon"],
        core_schools=["restoration"],
        spells=["healing-spring"],
        level_ups=[{"line": 6, "skill": "movement/catfall", "method": "rolled"}],
    )


def member_with(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    return put_at(shape_valid_member(), path, copy.deepcopy(value))


def ids(rows) -> list[str]:
    return [f"{to_pointer(path)}={str(past)[:12]}" for path, _, past, _ in rows]


def test_the_limits_are_the_ones_the_schema_declares():
    assert documents.MAX_MEMBERS == 20
    member = documents.MEMBER_SCHEMA["properties"]
    assert {key: member[key].get("maxItems") for key in member if "maxItems" in member[key]} == {
        "free_advancements": 10,
        "purchases": 40,
        "equipment": 20,
        "core_schools": 4,
        "spells": 40,
        "level_ups": 20,
    }


@pytest.mark.parametrize(
    ("path", "at_limit", "past_limit", "problem"), MEMBER_LIMITS, ids=ids(MEMBER_LIMITS)
)
def test_a_member_at_its_limit_is_read_and_one_past_it_is_refused(
    path, at_limit, past_limit, problem
):
    code, message = problem
    assert documents.shape_problems(force(member_with(path, at_limit))) == []
    assert documents.parse_member(member_with(path, at_limit))

    refused = force(member_with(path, past_limit))
    assert documents.shape_problems(refused) == [
        Problem(to_pointer(("members", 0, *path)), code, message)
    ]
    with pytest.raises(documents.MalformedDocument) as alone:
        documents.parse_member(member_with(path, past_limit))
    assert alone.value.problems == [Problem(to_pointer(path), code, message)]


@pytest.mark.parametrize(
    ("path", "at_limit", "past_limit", "problem"),
    [row for row in MEMBER_LIMITS if len(row[0]) == 1],
    ids=ids([row for row in MEMBER_LIMITS if len(row[0]) == 1]),
)
def test_a_what_if_at_a_limit_is_taken_and_one_past_it_is_refused(
    path, at_limit, past_limit, problem
):
    (key,) = path
    member = documents.parse_member(shape_valid_member())
    changed = documents.with_fields(member, {key: at_limit})
    assert changed == documents.parse_member(member_with(path, at_limit))
    with pytest.raises(documents.MalformedDocument) as refused:
        documents.with_fields(member, {key: past_limit})
    assert refused.value.problems == [Problem(f"/{key}", *problem)]


@pytest.mark.parametrize(
    ("path", "at_limit", "past_limit", "problem"), DOCUMENT_LIMITS, ids=ids(DOCUMENT_LIMITS)
)
def test_a_document_at_its_limit_is_read_and_one_past_it_is_refused(
    path, at_limit, past_limit, problem
):
    accepted = put_at(force(student("Ann")), path, at_limit)
    assert documents.shape_problems(accepted) == []
    assert documents.export(documents.parse(accepted)) == accepted

    refused = put_at(force(student("Ann")), path, past_limit)
    assert documents.shape_problems(refused) == [Problem(to_pointer(path), *problem)]
    with pytest.raises(documents.MalformedDocument) as raised:
        documents.parse(refused)
    assert raised.value.problems == [Problem(to_pointer(path), *problem)]


# --- the other shape problems, in words -----------------------------------------------------

ALLOWED_CLUB_KEYS = "name, society, choice"


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        (("members", 0, "xp"), None, ("wrong-type", "Expected integer, got null.")),
        (("members", 0, "xp"), True, ("wrong-type", "Expected integer, got boolean.")),
        (("members", 0, "xp"), 1.0, ("wrong-type", "Expected integer, got number.")),
        (("members", 0, "xp"), "1", ("wrong-type", "Expected integer, got string.")),
        (("members", 0, "xp"), [1], ("wrong-type", "Expected integer, got array.")),
        (("members", 0, "xp"), {}, ("wrong-type", "Expected integer, got object.")),
        (("resources",), 50.0, ("wrong-type", "Expected integer, got number.")),
        (("members", 0, "base", "ME"), 2.0, ("wrong-type", "Expected integer, got number.")),
        (("members", 0, "mastery"), 3, ("wrong-type", "Expected string or null, got number.")),
        (("members", 0, "spell_focus"), 0, ("wrong-type", "Expected boolean, got number.")),
        (
            ("members", 0, "club", "choice"),
            "XX",
            ("invalid-value", "'XX' is not one of ['ME', 'RA', 'CA', 'DF', 'HP', 'FR']"),
        ),
        (
            ("members", 0, "role"),
            "captain",
            ("invalid-value", "'captain' is not one of ['student', 'mentor']"),
        ),
        (
            ("format",),
            "dbd-roster/2",
            ("invalid-value", "'dbd-roster/2' is not one of ['dbd-roster/1']"),
        ),
    ],
)
def test_a_value_of_the_wrong_kind_is_named_with_what_was_expected(path, value, problem):
    document = put_at(force(student("Ann")), path, value)
    assert documents.shape_problems(document) == [Problem(to_pointer(path), *problem)]


def test_an_unknown_key_is_named_with_the_keys_allowed_there():
    member = student("Ann")
    member["club"]["motto"] = "Onwards"
    member["colour"] = "red"
    member["base"]["HP"] = 10
    document = {**force(member), "author": "Ann"}
    member_keys = ", ".join(documents.MEMBER_SCHEMA["properties"])
    assert documents.shape_problems(document) == [
        Problem(
            "/author",
            "unknown-key",
            "'author' is not a key of this object; allowed keys: format, name, resources, "
            "members.",
        ),
        Problem(
            "/members/0/colour",
            "unknown-key",
            f"'colour' is not a key of this object; allowed keys: {member_keys}.",
        ),
        Problem(
            "/members/0/base/HP",
            "unknown-key",
            "'HP' is not a key of this object; allowed keys: ME, RA, CA, DF.",
        ),
        Problem(
            "/members/0/club/motto",
            "unknown-key",
            f"'motto' is not a key of this object; allowed keys: {ALLOWED_CLUB_KEYS}.",
        ),
    ]


def test_each_missing_key_is_named_where_it_belongs():
    member = student("Ann")
    del member["club"]["society"], member["base"]["DF"], member["name"]
    document = force(member)
    del document["resources"]
    assert documents.shape_problems(document) == [
        Problem("/resources", "missing-key", "'resources' is required here."),
        Problem("/members/0/name", "missing-key", "'name' is required here."),
        Problem("/members/0/base/DF", "missing-key", "'DF' is required here."),
        Problem("/members/0/club/society", "missing-key", "'society' is required here."),
    ]


def test_a_member_key_left_out_takes_its_default():
    member = {key: student("Ann")[key] for key in ("name", "club", "base")}
    parsed = documents.parse_member(member)
    # Every list empty, no magic, no XP: the builder's student without free advancements.
    assert documents.export_member(parsed) == student("Ann", free_advancements=[])


def test_export_writes_an_advancements_optional_keys_only_when_they_say_something():
    said = {"line": 4, "skill": "melee/outsized-weapon", "method": "rolled", "rerolls": 1}
    silent = {**said, "rerolls": 0, "natural_12": False}
    natural = {**said, "natural_12": True}
    purchases = [{"line": 1, "choice": "ME", "between_battles": True}, {"line": 2}]
    member = student("Ann", free_advancements=[said, silent, natural], purchases=purchases)
    exported = documents.export_member(documents.parse_member(member))
    assert exported["free_advancements"] == [
        said,
        {"line": 4, "skill": "melee/outsized-weapon", "method": "rolled"},
        natural,
    ]
    assert exported["purchases"] == purchases


def test_the_columns_fixed_once_a_member_has_fought_are_the_creation_choices():
    """R17a, R18a: what a member was made with stays; names, gear, spells and purchases
    between battles may change."""
    creation = ("society", "society_choice", "base_me", "base_ra", "base_ca", "base_df")
    assert list(documents.HISTORY_COLUMNS) == ["role", *creation, "free_advancements", "xp"]
    later = ["purchases", "equipment", "core_schools", "spells", "spell_focus", "mastery"]
    assert list(documents.MEMBER_COLUMNS) == [
        "name",
        "role",
        "club_name",
        *creation,
        "free_advancements",
        *later,
        "xp",
        "level_ups",
    ]


def test_the_schema_publishes_the_defaults_parsing_uses():
    """The API schema shows each optional key's default: the one a member left without
    that key gets."""
    properties = documents.MEMBER_SCHEMA["properties"]
    published = {name: spec["default"] for name, spec in properties.items() if "default" in spec}
    used = {key.name: key.default for key in documents.MEMBER_KEYS if key.name in published}
    assert published == used
    assert set(published) == set(properties) - set(documents.MEMBER_SCHEMA["required"])
