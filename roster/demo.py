"""The demo force: the rulebook's Emma and Julius with two classmates and a mentor.

Used by `manage.py seed_demo` (DEBUG only) so a newcomer sees a working product at once.
"""

from typing import Any

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-player-2026"


def _member(name: str, club: dict[str, str], base: dict[str, int], **rest: Any) -> dict[str, Any]:
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


RIVAL_USERNAME = "rival"


def rival_force() -> dict[str, Any]:
    """The demo's opponents: a legal sporting-heavy force of four."""
    return {
        "format": "dbd-roster/1",
        "name": "Kendo Club Vanguard",
        "resources": 50,
        "members": [
            _member(
                "Haruto",
                {"name": "Kendo Club", "society": "sporting", "choice": "ME"},
                {"ME": 3, "RA": 2, "CA": 1, "DF": 2},
                free_advancements=[
                    {"line": 4, "skill": "melee/alert-combatant", "method": "picked"},
                    {"line": 2, "choice": "HP"},
                ],
                equipment=["heavy-weapon-2h", "light-armour"],
            ),
            _member(
                "Sora",
                {"name": "Kendo Club", "society": "sporting", "choice": "ME"},
                {"ME": 3, "RA": 1, "CA": 2, "DF": 2},
                free_advancements=[{"line": 2, "choice": "DF"}, {"line": 3}],
                equipment=["hand-weapon", "light-shield"],
            ),
            _member(
                "Yui",
                {"name": "Track Club", "society": "sporting", "choice": "RA"},
                {"ME": 2, "RA": 3, "CA": 1, "DF": 2},
                free_advancements=[{"line": 1, "choice": "RA"}, {"line": 3}],
                equipment=["light-pistol"],
            ),
            _member(
                "Ren",
                {"name": "Chemistry Club", "society": "technical", "choice": "CA"},
                {"ME": 2, "RA": 2, "CA": 3, "DF": 1},
                free_advancements=[{"line": 3}, {"line": 2, "choice": "FR"}],
                core_schools=["destruction"],
                spells=["seraphic-bolt"],
            ),
        ],
    }


# Three confirmed battles for the demo campaign: (scenario, winner: "demo" | "rival" | None,
# per side the results of its first members: (enemies out of action, objectives)).
DEMO_BATTLES: tuple[tuple[str, str | None, tuple[tuple[int, int], ...]], ...] = (
    ("Capture the Flag", "demo", ((1, 1), (1, 0), (0, 1), (0, 0))),
    ("Rooftop Rumble", "rival", ((0, 0), (1, 0), (0, 0), (0, 1))),
    ("Library Lockdown", None, ((1, 0), (0, 1), (1, 0), (0, 0))),
)
