"""Reading what a client sends: whole numbers from text, and JSON documents.

Everything a client types or uploads passes through here before any other code sees
it, so that no value can reach the engine, a validator or the database in a shape they
cannot take (and answer 500): Unicode digits that `str.isdigit()` accepts but `int()`
or PostgreSQL do not, JSON nested deep enough to exhaust the stack, lone surrogates
that cannot be encoded, NUL characters PostgreSQL refuses, numbers beyond Python's
4,300-digit limit or beyond a float.

Pure Python (no Django), so forms, the API's parser and the pure modules share it.
"""

import json
import math
import re
from typing import Any

from dbd_site.errors import Invalid, declare_codes, pointer

# Whole numbers as people type them: ASCII digits only ("²" and "①" are digits to
# `str.isdigit()`), and at most 18 of them, so any value fits PostgreSQL's bigint.
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")

# Deep enough for any real document (a roster is 5 levels deep), shallow enough that
# nothing reading the data afterwards (validators, renderers) runs out of stack.
MAX_JSON_DEPTH = 32
# Longer than any number a document holds, far below Python's 4,300-digit limit.
MAX_NUMBER_DIGITS = 40
# Floats hold every whole number up to here exactly.
_EXACT_INTEGERS = 2**53
# NUL (PostgreSQL's text and jsonb refuse it) and UTF-16 surrogates (a lone one cannot be
# encoded as UTF-8; a valid pair is decoded by the parser into one character).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

CODES = declare_codes(
    {
        "parse-error": "The body is not valid JSON (UTF-8).",
        "too-deep": "The JSON nests objects and arrays deeper than the site reads.",
        "number-too-long": "A number has more digits than any value the site stores.",
        "bad-character": "Text holds a character that cannot be stored: NUL or a lone "
        "UTF-16 surrogate.",
    }
)


def whole_number(text: Any) -> int | None:
    """`text` as a whole number 0 or more if it is one written in ASCII digits, else None."""
    if isinstance(text, str) and _WHOLE_NUMBER.fullmatch(text):
        return int(text)
    return None


def is_whole_number(text: Any) -> bool:
    """True when `whole_number(text)` is a number: the check to use instead of isdigit()."""
    return whole_number(text) is not None


def has_unstorable_character(text: str) -> bool:
    """True when `text` holds NUL or a lone surrogate (neither can be stored)."""
    return _UNSTORABLE.search(text) is not None


def _parse_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise Invalid(
            "number-too-long",
            f"A number here has {digits} digits; numbers have at most {MAX_NUMBER_DIGITS}.",
        )
    return int(literal)


def _parse_float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_DIGITS * 2:
        raise Invalid(
            "number-too-long",
            f"A number here is {len(literal)} characters long; "
            f"numbers have at most {MAX_NUMBER_DIGITS} digits.",
        )
    value = float(literal)
    if math.isinf(value):
        raise Invalid("number-too-long", f"The number {literal[:20]}… is too large.")
    # JSON has one kind of number, and JSON Schema (so the API's schema) counts 2.0 as an
    # integer: a whole number written as 2.0 or 2e0 is read as the integer it is.
    if value.is_integer() and abs(value) <= _EXACT_INTEGERS:
        return int(value)
    return value


def _no_constant(name: str) -> None:
    raise Invalid("parse-error", f"This is not valid JSON: {name} is not a JSON number.")


def _check_tree(document: Any) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH and unstorable characters in any string
    or key, naming where. Iterative, so a deep document cannot exhaust the stack here."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if has_unstorable_character(node):
                raise Invalid(
                    "bad-character",
                    "This text holds a NUL character or a lone UTF-16 surrogate, which "
                    "cannot be stored.",
                    pointer=pointer(*path),
                )
            continue
        if not isinstance(node, dict | list):
            continue
        if len(path) >= MAX_JSON_DEPTH:
            raise Invalid(
                "too-deep",
                f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.",
                pointer=pointer(*path),
            )
        if isinstance(node, dict):
            for key, value in node.items():
                if has_unstorable_character(key):
                    raise Invalid(
                        "bad-character",
                        "A key holds a NUL character or a lone UTF-16 surrogate.",
                        pointer=pointer(*path),
                    )
                stack.append((value, (*path, key)))
        else:
            stack.extend((value, (*path, index)) for index, value in enumerate(node))


def load_json(raw: bytes | str) -> Any:
    """Parse a JSON document a client sent, or raise `Invalid` saying what and where.

    Beyond plain JSON: at most MAX_JSON_DEPTH levels, numbers of at most
    MAX_NUMBER_DIGITS digits (no NaN or Infinity), no NUL or lone surrogate in any text.
    A whole number written with a fraction or exponent (2.0, 2e0) is read as an integer.
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid("parse-error", "This is not UTF-8 text.") from None
    try:
        document = json.loads(
            raw, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_no_constant
        )
    except RecursionError:
        raise Invalid("too-deep", f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.") from None
    except json.JSONDecodeError as exc:
        raise Invalid(
            "parse-error",
            f"This is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
        ) from None
    _check_tree(document)
    return document
