"""Small builders for dbd-roster/1 documents used across the roster tests."""

import copy
from collections.abc import Iterable
from typing import Any

from rest_framework.test import APIClient

from roster.documents import Problem
from roster.engine import Evaluation, MemberResult, evaluate
from rules.catalogue import Catalogue


def emma() -> dict[str, Any]:
    """The rulebook's Emma, as in the engine issue's example (R1, R2, R4, R5)."""
    return {
        "name": "Emma",
        "role": "student",
        "club": {"name": "Literature Club", "society": "academic", "choice": "RA"},
        "base": {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        "free_advancements": [
            {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
            {"line": 2},
        ],
        "purchases": [],
        "equipment": ["simple-weapon", "medical-kit"],
        "core_schools": ["restoration"],
        "spells": ["healing-spring"],
        "spell_focus": False,
        "mastery": None,
        "xp": 0,
        "level_ups": [],
    }


def julius() -> dict[str, Any]:
    """The rulebook's Julius: sporting, ME2 RA2, a Melee and a Movement skill (R6)."""
    return {
        "name": "Julius",
        "role": "student",
        "club": {"name": "Riding Club", "society": "sporting", "choice": "ME"},
        "base": {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        "free_advancements": [
            {"line": 4, "skill": "melee/outsized-weapon", "method": "picked"},
            {"line": 6, "skill": "movement/catfall", "method": "picked"},
        ],
        "purchases": [{"line": 1, "choice": "ME"}, {"skill": "movement/quick-mantle"}],
        "equipment": [],
        "core_schools": [],
        "spells": [],
        "spell_focus": False,
        "mastery": None,
        "xp": 0,
        "level_ups": [],
    }


def student(name: str, **changes: Any) -> dict[str, Any]:
    """A plain legal technical student with no purchases; override any key."""
    member = {
        "name": name,
        "role": "student",
        "club": {"name": "Robotics Club", "society": "technical", "choice": "RA"},
        "base": {"ME": 2, "RA": 3, "CA": 1, "DF": 2},
        "free_advancements": [{"line": 3}, {"line": 2, "choice": "HP"}],
        "purchases": [],
        "equipment": [],
        "core_schools": [],
        "spells": [],
        "spell_focus": False,
        "mastery": None,
        "xp": 0,
        "level_ups": [],
    }
    member.update(copy.deepcopy(changes))
    return member


def force(*members: dict[str, Any], resources: int = 50, name: str = "Test Force") -> dict:
    return {
        "format": "dbd-roster/1",
        "name": name,
        "resources": resources,
        "members": list(members),
    }


def legal_force(**first_member_changes: Any) -> dict[str, Any]:
    """Emma plus three plain students: a legal force of four."""
    first = emma()
    first.update(first_member_changes)
    return force(first, student("Ann"), student("Ben"), student("Cat"))


def with_classmates(member: dict[str, Any], *, resources: int = 500) -> dict[str, Any]:
    """`member` first in a force of four: three plain classmates (`student`) who cost
    nothing and raise no error or warning, so everything in the engine's answer about
    the force is about `member` (R10 is met; `resources` leaves R11 out of the way)."""
    return force(member, student("Ann"), student("Ben"), student("Cat"), resources=resources)


def evaluate_member(
    catalogue: Catalogue, member: dict[str, Any], *, resources: int = 500, **options: Any
) -> tuple[Evaluation, MemberResult | None]:
    """The engine's whole answer for `member` among plain classmates, and its own result
    (None when the document is malformed). `options` go to `engine.evaluate`."""
    evaluation = evaluate(with_classmates(member, resources=resources), catalogue, **options)
    return evaluation, (evaluation.members[0] if evaluation.members else None)


def found(problems: Iterable[Problem]) -> list[tuple[str, str]]:
    """Problems as (pointer, code) pairs, in the order reported: compare whole lists."""
    return [(p.pointer, p.code) for p in problems]


def signed_in(user) -> APIClient:
    """An API client with `user`'s session, as a browser calling the API would have."""
    client = APIClient()
    client.force_login(user)
    return client
