"""Small builders for dbd-roster/1 documents used across the roster tests."""

import copy
from collections.abc import Iterable
from typing import Any

from rest_framework.test import APIClient

from dbd_site.errors import Problem
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


def academic_student(
    name: str = "Ada", *, base: dict[str, int], choice: str = "RA", **changes: Any
):
    """Academic (-1 to `choice`, ME or RA; +1 CA), free advancements +2 HP (line 2) and
    +2 FR (line 3), no skills; override any key."""
    club = {"name": "Debate Club", "society": "academic", "choice": choice}
    free = [{"line": 2}, {"line": 3}]
    return student(name, **{"club": club, "base": base, "free_advancements": free, **changes})


def sporting_student(
    name: str = "Cass", *, base: dict[str, int], choice: str = "ME", **changes: Any
):
    """Sporting (-1 CA, +1 to `choice`, ME or RA), free advancements +1 FR (line 3) and
    +2 HP (line 2), no skills; override any key."""
    club = {"name": "Kendo Club", "society": "sporting", "choice": choice}
    free = [{"line": 3}, {"line": 2, "choice": "HP"}]
    return student(name, **{"club": club, "base": base, "free_advancements": free, **changes})


def df_student(name: str = "Dee", **changes: Any) -> dict[str, Any]:
    """Technical, base ME2 RA2 CA1 DF3, choice RA: ME1 RA3 CA1 DF9 HP10 FR5; free
    advancements +2 DF (line 3) and +1 DF (line 1): DF 12 after creation, four short of
    R3's 16. Override any key."""
    base = {"ME": 2, "RA": 2, "CA": 1, "DF": 3}
    free = [{"line": 3}, {"line": 1, "choice": "DF"}]
    return student(name, **{"base": base, "free_advancements": free, **changes})


def hp_level_ups(count: int) -> list[dict[str, Any]]:
    """Technical line 2 (+1 HP) taken `count` times: legal for any number after creation
    (R17), so only the count is judged."""
    return [{"line": 2, "choice": "HP"} for _ in range(count)]


def put_at(document: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """`document` with `value` at `path` (keys and list indexes), for one-field variants."""
    *parents, last = path
    target: Any = document
    for key in parents:
        target = target[key]
    target[last] = value
    return document


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
