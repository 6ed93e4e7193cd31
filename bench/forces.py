"""Large, busy forces for benchmarking the engine."""

import copy
from typing import Any


def busy_student(name: str, role: str = "student") -> dict[str, Any]:
    """An academic caster with purchases, a full loadout and a full spell list."""
    return {
        "name": name,
        "role": role,
        "club": {"name": "Literature Club", "society": "academic", "choice": "ME"},
        "base": {"ME": 2, "RA": 1, "CA": 3, "DF": 2},
        "free_advancements": [
            {"line": 4, "skill": "spellcasting/spell-dilettante", "method": "picked"},
            {"line": 5, "skill": "movement/catfall", "method": "rolled", "rerolls": 1},
        ],
        "purchases": [
            {"line": 2},
            {"line": 3},
            {"skill": "spellcasting/additional-spell-slot"},
            {"skill": "spellcasting/supreme-spell-mastery"},
            {"skill": "support/angelic-healing"},
            {"skill": "movement/quick-mantle"},
        ],
        "equipment": ["simple-weapon", "light-shield", "light-armour"],
        "core_schools": ["restoration", "amplification"],
        "spells": ["healing-spring", "soul-bond", "inspire", "eagle-eye", "fortify"],
        "spell_focus": False,
        "mastery": "healing-spring",
        "xp": 8,
        "level_ups": [
            {"line": 1, "choice": "CA"},
            {"line": 6, "skill": "support/tactical-catnap", "method": "picked"},
        ],
    }


def full_force() -> dict[str, Any]:
    """Six students and a mentor, every one of them busy."""
    members = [busy_student(f"Student {i}") for i in range(1, 7)]
    members.append(busy_student("Mentor", role="mentor"))
    return {"format": "dbd-roster/1", "name": "Full Force", "resources": 2000, "members": members}


def twenty_members() -> dict[str, Any]:
    document = full_force()
    document["name"] = "Twenty"
    document["members"] = [copy.deepcopy(busy_student(f"Member {i}")) for i in range(20)]
    return document
