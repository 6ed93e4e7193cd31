"""What stored member rows say, read without a query: a member's document, R5's evidence
of a roll, and rows already in hand shown as a force's prefetched members.

Shared by the reads (`roster.selectors`) and the write path (`roster.services`), so that
neither has to import the other for them.
"""

from typing import Any

from roster import documents
from roster.models import Force, Member, SkillRoll


def member_json(member: Member) -> dict[str, Any]:
    """The member as a dbd-roster/1 member (`documents.MEMBER_KEYS` maps the columns)."""
    return documents.member_from_columns(member.__dict__)


def roll_is_evidence(rolls: list[SkillRoll], advancement: dict[str, Any]) -> bool:
    """R5: a rolled skill is verified when the server's last roll for it gave that skill.

    The last roll either chose the skill, or let the player pick freely among choices
    that include it.
    """
    if advancement.get("method") != "rolled" or not rolls:
        return False
    last = rolls[-1]
    skill = advancement.get("skill")
    if last.outcome == SkillRoll.Outcome.SKILL:
        return last.skill == skill
    return last.outcome == SkillRoll.Outcome.PICK_FREELY and skill in last.choices


def show_members(force: Force, members: list[Member]) -> None:
    """Let `force.members.all()` answer `members` (its rows already in hand, in order, as
    the write path stored them) without a query, as a prefetch would have."""
    queryset = force.members.all()
    # What Django's own prefetch stores: private attributes, so untyped.
    queryset._result_cache = members
    queryset._prefetch_done = True  # type: ignore[attr-defined]
    cache = getattr(force, "_prefetched_objects_cache", {})
    force._prefetched_objects_cache = {**cache, "members": queryset}  # type: ignore[attr-defined]
