"""The demo force: the rulebook's Emma and Julius with two classmates and a mentor.

Used by `manage.py seed_demo` (DEBUG only) so a newcomer sees a working product at once.
"""

from typing import Any

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-player-2026"


def _member(name: str, club: dict[str, str], base: dict[str, int], **rest: Any) -> dict:
    return {"name": name, "role": rest.pop("role", "student"), "club": club, "base": base, **rest}


def demo_force() -> dict[str, Any]:
    """A legal force built from the rulebook's examples (R1-R11)."""
    return {
        "format": "dbd-roster/1",
        "name": "Literature Club Irregulars",
        "resources": 50,
        "members": [
            # The rulebook's Emma: a witch with Spell Focus, +2 HP (RULINGS.md example).
            _member(
                "Emma",
                {"name": "Literature Club", "society": "academic", "choice": "RA"},
                {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                free_advancements=[
                    {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
                    {"line": 2},
                ],
                equipment=["simple-weapon", "medical-kit"],
                core_schools=["restoration"],
                spells=["healing-spring", "protective-wall"],
            ),
            # The rulebook's Julius: +1 ME for 4, a second Movement skill for 6 (R6).
            _member(
                "Julius",
                {"name": "Riding Club", "society": "sporting", "choice": "ME"},
                {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                free_advancements=[
                    {"line": 4, "skill": "melee/next-target", "method": "picked"},
                    {"line": 6, "skill": "movement/heroic-leap", "method": "picked"},
                ],
                purchases=[{"line": 1, "choice": "ME"}, {"skill": "movement/sure-footing"}],
                equipment=["hand-weapon"],
            ),
            _member(
                "Kenji",
                {"name": "Archery Club", "society": "sporting", "choice": "RA"},
                {"ME": 2, "RA": 3, "CA": 1, "DF": 2},
                free_advancements=[{"line": 2, "choice": "HP"}, {"line": 3}],
                equipment=["traditional-ranged-weapon"],
            ),
            _member(
                "Mio",
                {"name": "Robotics Club", "society": "technical", "choice": "RA"},
                {"ME": 2, "RA": 3, "CA": 1, "DF": 2},
                free_advancements=[{"line": 3}, {"line": 2, "choice": "HP"}],
                equipment=["light-pistol", "tool-kit"],
            ),
            _member(
                "Ms Tanaka",
                {"name": "Staff Room", "society": "academic", "choice": "ME"},
                {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
                role="mentor",
                free_advancements=[{"line": 2}, {"line": 3}],
                core_schools=["amplification"],
                spells=["inspire"],
            ),
        ],
    }
