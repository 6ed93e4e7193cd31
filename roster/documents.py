"""The dbd-roster/1 document: its JSON Schema, parsing into plain data, and export.

A document is the engine's input and the import/export format. Shape problems
(wrong types, missing or unknown keys, wrong `format`) are found here, with a JSON
Pointer each; rule problems are the engine's business. Nothing here imports Django.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError as SchemaError

from dbd_site.errors import Problem, declare_codes, pointer

FORMAT = "dbd-roster/1"
STATISTIC_NAMES = ["ME", "RA", "CA", "DF", "HP", "FR"]
MAX_MEMBERS = 20

_SLUG = {"type": "string", "minLength": 1, "maxLength": 100}
_NAME_PATTERN = r"\S"  # at least one visible character

ADVANCEMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "A free advancement or level-up: a line of the society's table, with `choice` for "
        "an 'or' line, or `skill` + `method` for a skill line."
    ),
    "additionalProperties": False,
    "required": ["line"],
    "properties": {
        "line": {"type": "integer", "minimum": 1, "maximum": 6},
        "choice": {"type": "string", "enum": STATISTIC_NAMES},
        "skill": {**_SLUG, "description": "`<category>/<slug>`, e.g. `movement/catfall`."},
        "method": {"type": "string", "enum": ["rolled", "picked"]},
        "rerolls": {"type": "integer", "minimum": 0, "maximum": 100},
        "natural_12": {"type": "boolean"},
    },
}

_BETWEEN_BATTLES = {
    "type": "boolean",
    "description": "Bought in a campaign after creation (R17): priced after level-ups, and "
    "a statistic line may be bought again.",
}

PURCHASE_SCHEMA: dict[str, Any] = {
    "description": "A purchased advancement: a statistic line, or a skill by name (R6).",
    "oneOf": [
        {
            "type": "object",
            "title": "Statistic purchase",
            "additionalProperties": False,
            "required": ["line"],
            "properties": {
                "line": {"type": "integer", "minimum": 1, "maximum": 6},
                "choice": {"type": "string", "enum": STATISTIC_NAMES},
                "between_battles": _BETWEEN_BATTLES,
            },
        },
        {
            "type": "object",
            "title": "Skill purchase",
            "additionalProperties": False,
            "required": ["skill"],
            "properties": {"skill": _SLUG, "between_battles": _BETWEEN_BATTLES},
        },
    ],
}

MEMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "club", "base"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 60, "pattern": _NAME_PATTERN},
        "role": {"type": "string", "enum": ["student", "mentor"], "default": "student"},
        "club": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "society", "choice"],
            "properties": {
                "name": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 60,
                    "pattern": _NAME_PATTERN,
                },
                "society": _SLUG,
                "choice": {"type": "string", "enum": STATISTIC_NAMES},
            },
        },
        "base": {
            "type": "object",
            "description": "ME, RA, CA and DF before society: 3, 2, 2, 1 in some order (R1).",
            "additionalProperties": False,
            "required": ["ME", "RA", "CA", "DF"],
            "properties": {
                stat: {"type": "integer", "minimum": -100, "maximum": 100}
                for stat in ("ME", "RA", "CA", "DF")
            },
        },
        "free_advancements": {
            "type": "array",
            "items": ADVANCEMENT_SCHEMA,
            "maxItems": 10,
            "default": [],
        },
        "purchases": {"type": "array", "items": PURCHASE_SCHEMA, "maxItems": 40, "default": []},
        "equipment": {"type": "array", "items": _SLUG, "maxItems": 20, "default": []},
        "core_schools": {"type": "array", "items": _SLUG, "maxItems": 4, "default": []},
        "spells": {"type": "array", "items": _SLUG, "maxItems": 40, "default": []},
        "spell_focus": {"type": "boolean", "default": False},
        "mastery": {"type": ["string", "null"], "minLength": 1, "maxLength": 100, "default": None},
        "xp": {"type": "integer", "minimum": 0, "maximum": 100000, "default": 0},
        "level_ups": {
            "type": "array",
            "items": ADVANCEMENT_SCHEMA,
            "maxItems": 20,
            "default": [],
        },
    },
}

DOCUMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "dbd-roster/1",
    "type": "object",
    "additionalProperties": False,
    "required": ["format", "name", "resources", "members"],
    "properties": {
        "format": {"type": "string", "enum": [FORMAT]},
        "name": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": _NAME_PATTERN},
        "resources": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
        "members": {"type": "array", "items": MEMBER_SCHEMA, "maxItems": MAX_MEMBERS},
    },
}

# JSON Schema counts 1.0 as an integer; a roster's numbers must be whole numbers in JSON too.
# (`extend` is untyped in the stubs; what it makes is a validator class like its base.)
_StrictValidator: type[Draft202012Validator] = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int
    ),
)
_VALIDATOR = _StrictValidator(DOCUMENT_SCHEMA)
# The Rust validator answers "is it valid?" about a hundred times faster; the Python one
# above explains why not, with messages and pointers, on the rare invalid document.
_FAST_VALIDATOR = jsonschema_rs.validator_for(DOCUMENT_SCHEMA)
# One member on its own, for the builder's member forms.
_MEMBER_VALIDATOR = _StrictValidator(MEMBER_SCHEMA)
_FAST_MEMBER_VALIDATOR = jsonschema_rs.validator_for(MEMBER_SCHEMA)

# jsonschema's validator keywords, as the stable codes the API reports.
SHAPE_CODES = {
    "type": "wrong-type",
    "required": "missing-key",
    "additionalProperties": "unknown-key",
    "enum": "invalid-value",
    "minLength": "too-short",
    "maxLength": "too-long",
    "pattern": "blank",
    "minimum": "out-of-range",
    "maximum": "out-of-range",
    "maxItems": "too-many-items",
    "oneOf": "invalid-purchase",
}
# The shape of a document (or of any part of it sent alone): answered by every operation
# that reads one.
DOCUMENT_CODES = declare_codes(
    {
        "wrong-type": "A value of the wrong JSON type.",
        "missing-key": "A key this object needs is missing.",
        "invalid-value": "A value that is not one of those allowed.",
        "too-short": "A text that may not be empty is empty.",
        "too-long": "A text longer than allowed.",
        "blank": "A text that is only spaces.",
        "out-of-range": "A number outside the range allowed.",
        "invalid-purchase": "A purchase that is neither a statistic line nor a skill.",
        "parse-error": "The body is not valid JSON (UTF-8).",
    }
)


def _problems_from(error: SchemaError) -> list[Problem]:
    at = list(error.absolute_path)
    # The failed keyword's value, its schema and the value checked are JSON: any shape.
    rule: Any = error.validator_value
    schema: Any = error.schema
    instance: Any = error.instance
    code = SHAPE_CODES.get(str(error.validator), "invalid")
    if error.validator == "required":
        missing = [k for k in rule if k not in instance]
        return [Problem(pointer(*at, k), code, f"'{k}' is required here.") for k in missing]
    if error.validator == "type":
        expected = rule
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return [
            Problem(pointer(*at), code, f"Expected {expected}, got {_json_type(error.instance)}.")
        ]
    if error.validator == "additionalProperties":
        allowed = schema.get("properties", {})
        extra = sorted(k for k in instance if k not in allowed)
        return [
            Problem(
                pointer(*at, k),
                code,
                f"'{k}' is not a key of this object; allowed keys: {', '.join(allowed)}.",
            )
            for k in extra
        ]
    if error.validator == "oneOf":
        message = (
            'A purchase is either {"line": n} (with "choice" for an \'or\' line) '
            'or {"skill": "category/slug"}.'
        )
        return [Problem(pointer(*at), code, message)]
    if error.validator == "pattern":
        return [Problem(pointer(*at), code, "This may not be blank.")]
    if error.validator == "minLength":
        return [Problem(pointer(*at), code, "This may not be empty.")]
    if error.validator == "maxLength":
        limit = rule
        return [Problem(pointer(*at), code, f"At most {limit} characters, please.")]
    if error.validator == "maxItems":
        return [Problem(pointer(*at), code, f"At most {rule} entries here.")]
    if error.validator in ("minimum", "maximum"):
        low = schema.get("minimum")
        high = schema.get("maximum")
        return [Problem(pointer(*at), code, f"Must be between {low} and {high}.")]
    return [Problem(pointer(*at), code, error.message)]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _explain(data: Any, validator: Draft202012Validator = _VALIDATOR) -> list[Problem]:
    """Every way `data` fails the schema, one problem per pointer.

    A value that breaks several keywords (an empty name is both too short and blank)
    is reported once, by the first.
    """
    by_pointer: dict[str, Problem] = {}
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        for problem in _problems_from(error):
            by_pointer.setdefault(problem.pointer, problem)
    return list(by_pointer.values())


def strict_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of another document's JSON Schema, strict as this one's (whole numbers
    are JSON integers), for `schema_problems`."""
    return _StrictValidator(schema)


def schema_problems(data: Any, validator: Draft202012Validator) -> list[Problem]:
    """Every way `data` fails `validator`'s schema, each at its pointer, with the codes a
    roster document's shape problems have (`SHAPE_CODES`)."""
    return _explain(data, validator)


def shape_problems(data: Any) -> list[Problem]:
    """Every way `data` fails to be a dbd-roster/1 document; empty when it is one."""
    try:
        parse(data)
    except MalformedDocument as exc:
        return exc.problems
    return []


# --- parsed form ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Advancement:
    line: int
    choice: str | None = None
    skill: str | None = None
    method: str | None = None
    rerolls: int = 0
    natural_12: bool = False


@dataclass(frozen=True, slots=True)
class Purchase:
    line: int | None = None
    choice: str | None = None
    skill: str | None = None
    between_battles: bool = False


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    club_name: str
    society: str
    society_choice: str
    base: dict[str, int]
    role: str = "student"
    free_advancements: tuple[Advancement, ...] = ()
    purchases: tuple[Purchase, ...] = ()
    equipment: tuple[str, ...] = ()
    core_schools: tuple[str, ...] = ()
    spells: tuple[str, ...] = ()
    spell_focus: bool = False
    mastery: str | None = None
    xp: int = 0
    level_ups: tuple[Advancement, ...] = ()


@dataclass(frozen=True, slots=True)
class Roster:
    name: str
    resources: int
    members: tuple[Member, ...] = field(default=())


class MalformedDocument(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.pointer or '/'}: {p.message}" for p in problems))
        self.problems = problems


class _FractionalNumber(ValueError):
    """1.0 passes the fast validator as an integer; a roster wants whole numbers."""


def _whole(value: Any) -> int:
    if type(value) is not int:
        raise _FractionalNumber
    return value


def _advancement(raw: dict[str, Any]) -> Advancement:
    return Advancement(
        line=_whole(raw["line"]),
        choice=raw.get("choice"),
        skill=raw.get("skill"),
        method=raw.get("method"),
        rerolls=_whole(raw.get("rerolls", 0)),
        natural_12=raw.get("natural_12", False),
    )


def _purchase(raw: dict[str, Any]) -> Purchase:
    return Purchase(
        line=None if "line" not in raw else _whole(raw["line"]),
        choice=raw.get("choice"),
        skill=raw.get("skill"),
        between_battles=raw.get("between_battles", False),
    )


def _advancements(raw: list[dict[str, Any]]) -> tuple[Advancement, ...]:
    return tuple(_advancement(a) for a in raw)


def _purchases(raw: list[dict[str, Any]]) -> tuple[Purchase, ...]:
    return tuple(_purchase(p) for p in raw)


def _base(raw: dict[str, Any]) -> dict[str, int]:
    return {stat: _whole(raw[stat]) for stat in ("ME", "RA", "CA", "DF")}


@dataclass(frozen=True, slots=True)
class MemberKey:
    """One key of a member's JSON, declared once.

    It drives parsing (`parse`: the JSON value to `Member` fields), export (`export`:
    a `Member` back to the canonical JSON value), the saved force's model columns
    (`columns`, `to_columns`, `from_columns`) and the campaign's frozen-history check
    (`history`: the columns fixed once the member has fought in a confirmed battle,
    R17a, R18a).
    """

    name: str
    parse: Callable[[Any], dict[str, Any]]
    export: Callable[[Member], Any]
    columns: tuple[str, ...]
    to_columns: Callable[[Any], dict[str, Any]]
    from_columns: Callable[[Mapping[str, Any]], Any]
    default: Any = None  # the value of an optional key left out
    history: tuple[str, ...] = ()


def _plain(
    name: str,
    parse: Callable[[Any], Any] = lambda raw: raw,
    export: Callable[[Any], Any] = lambda value: value,
    *,
    default: Any = None,
    history: bool = False,
) -> MemberKey:
    """A key held in one `Member` field and one model column of the same name."""
    return MemberKey(
        name=name,
        parse=lambda raw: {name: parse(raw)},
        export=lambda m: export(getattr(m, name)),
        columns=(name,),
        to_columns=lambda value: {name: value},
        from_columns=lambda row: row[name],
        default=default,
        history=(name,) if history else (),
    )


def _advancement_list(advancements: tuple[Advancement, ...]) -> list[dict[str, Any]]:
    return [_advancement_json(a) for a in advancements]


_BASE_COLUMNS = {"ME": "base_me", "RA": "base_ra", "CA": "base_ca", "DF": "base_df"}

MEMBER_KEYS: tuple[MemberKey, ...] = (
    _plain("name"),
    _plain("role", default="student", history=True),
    MemberKey(
        name="club",
        parse=lambda raw: {
            "club_name": raw["name"],
            "society": raw["society"],
            "society_choice": raw["choice"],
        },
        export=lambda m: {"name": m.club_name, "society": m.society, "choice": m.society_choice},
        columns=("club_name", "society", "society_choice"),
        to_columns=lambda club: {
            "club_name": club["name"],
            "society": club["society"],
            "society_choice": club["choice"],
        },
        from_columns=lambda row: {
            "name": row["club_name"],
            "society": row["society"],
            "choice": row["society_choice"],
        },
        # The club's name may change; its society and choice are the creation choice.
        history=("society", "society_choice"),
    ),
    MemberKey(
        name="base",
        parse=lambda raw: {"base": _base(raw)},
        export=lambda m: dict(m.base),
        columns=tuple(_BASE_COLUMNS.values()),
        to_columns=lambda base: {column: base[stat] for stat, column in _BASE_COLUMNS.items()},
        from_columns=lambda row: {stat: row[column] for stat, column in _BASE_COLUMNS.items()},
        history=tuple(_BASE_COLUMNS.values()),
    ),
    _plain("free_advancements", _advancements, _advancement_list, default=[], history=True),
    # Creation purchases are history once fought; those bought between battles (R17a)
    # are added after it (the campaign's policy checks the two parts apart).
    _plain("purchases", _purchases, lambda ps: [_purchase_json(p) for p in ps], default=[]),
    _plain("equipment", tuple, list, default=[]),
    _plain("core_schools", tuple, list, default=[]),
    _plain("spells", tuple, list, default=[]),
    _plain("spell_focus", default=False),
    _plain("mastery", default=None),
    _plain("xp", _whole, default=0, history=True),
    # Level-ups change only through a level-up (R17) or a void (R15a).
    _plain("level_ups", _advancements, _advancement_list, default=[]),
)
_REQUIRED_KEYS = frozenset(MEMBER_SCHEMA["required"])


def _member(raw: dict[str, Any]) -> Member:
    fields_: dict[str, Any] = {}
    for key in MEMBER_KEYS:
        value = raw[key.name] if key.name in _REQUIRED_KEYS else raw.get(key.name, key.default)
        fields_.update(key.parse(value))
    return Member(**fields_)


# Each property of a member's JSON as the `Member` fields it fills (for `with_fields`).
_FIELDS: Mapping[str, Callable[[Any], dict[str, Any]]] = {
    key.name: key.parse for key in MEMBER_KEYS
}
# Model columns fixed once a member has fought in a confirmed battle (R17a, R18a).
HISTORY_COLUMNS: tuple[str, ...] = tuple(c for key in MEMBER_KEYS for c in key.history)
MEMBER_COLUMNS: tuple[str, ...] = tuple(c for key in MEMBER_KEYS for c in key.columns)


def member_columns(data: Mapping[str, Any]) -> dict[str, Any]:
    """A parsed-and-exported member's JSON as the saved force's model columns."""
    columns: dict[str, Any] = {}
    for key in MEMBER_KEYS:
        columns.update(key.to_columns(data[key.name]))
    return columns


def member_from_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """A saved member's model columns as its dbd-roster/1 JSON."""
    return {key.name: key.from_columns(row) for key in MEMBER_KEYS}


_FAST_FIELD_VALIDATORS = {
    name: jsonschema_rs.validator_for(schema)
    for name, schema in MEMBER_SCHEMA["properties"].items()
}


def parse(data: Any) -> Roster:
    """Import: a JSON value into a `Roster`, or `MalformedDocument` listing every problem."""
    if _FAST_VALIDATOR.is_valid(data):
        try:
            return Roster(
                name=data["name"],
                resources=_whole(data["resources"]),
                members=tuple(_member(m) for m in data["members"]),
            )
        except _FractionalNumber:
            pass
    problems = _explain(data) or [
        Problem("", "invalid", "This is not a dbd-roster/1 document.")  # defensive only
    ]
    raise MalformedDocument(problems)


def parse_member(data: Any) -> Member:
    """One member's JSON (pointers relative to the member), or `MalformedDocument`."""
    if _FAST_MEMBER_VALIDATOR.is_valid(data):
        try:
            return _member(data)
        except _FractionalNumber:
            pass
    problems = _explain(data, _MEMBER_VALIDATOR) or [
        Problem("", "invalid", "This is not a roster member.")  # defensive only
    ]
    raise MalformedDocument(problems)


def with_fields(member: Member, changes: Mapping[str, Any]) -> Member:
    """`member` with some properties of its JSON replaced (`{"equipment": [...]}`): what a
    what-if needs, without reading the whole member again. `MalformedDocument` if a new
    value is not what the property allows (pointers relative to the member)."""
    values: dict[str, Any] = {}
    for key, value in changes.items():
        validator = _FAST_FIELD_VALIDATORS.get(key)
        if validator is None or not validator.is_valid(value):
            raise MalformedDocument(_field_problems(key, value))
        try:
            values.update(_FIELDS[key](value))
        except _FractionalNumber:
            raise MalformedDocument(_field_problems(key, value)) from None
    return replace(member, **values)


def _field_problems(key: str, value: Any) -> list[Problem]:
    schema = MEMBER_SCHEMA["properties"].get(key)
    if schema is None:
        code = SHAPE_CODES.get("additionalProperties", "invalid")
        return [Problem(pointer(key), code, f"'{key}' is not a member field.")]
    return [
        Problem(pointer(key) + p.pointer, p.code, p.message)
        for p in _explain(value, _StrictValidator(schema))
    ]


def _advancement_json(a: Advancement) -> dict[str, Any]:
    out: dict[str, Any] = {"line": a.line}
    if a.choice is not None:
        out["choice"] = a.choice
    if a.skill is not None:
        out["skill"] = a.skill
    if a.method is not None:
        out["method"] = a.method
    if a.rerolls:
        out["rerolls"] = a.rerolls
    if a.natural_12:
        out["natural_12"] = True
    return out


def _purchase_json(p: Purchase) -> dict[str, Any]:
    out: dict[str, Any]
    if p.skill is not None:
        out = {"skill": p.skill}
    else:
        out = {"line": p.line}
        if p.choice is not None:
            out["choice"] = p.choice
    if p.between_battles:
        out["between_battles"] = True
    return out


def export_member(m: Member) -> dict[str, Any]:
    return {key.name: key.export(m) for key in MEMBER_KEYS}


def export(roster: Roster) -> dict[str, Any]:
    """The canonical dbd-roster/1 JSON for a roster.

    Canonical means every member key is written, and an advancement's optional keys
    only when they say something (`rerolls` above 0, `natural_12` when true).
    """
    return {
        "format": FORMAT,
        "name": roster.name,
        "resources": roster.resources,
        "members": [export_member(m) for m in roster.members],
    }
