"""The table's rules: the one place where DBD's play rules are applied (P1-P9).

Plain data in, plain data out; no Django. The rules catalogue comes in as
`rules.catalogue` data, a figure's numbers as a `figures.Figure` (copied from its force's
stored evaluation when a battle starts), and dice as an injected `random.Random` (the
server passes `random.SystemRandom()`), or as numbers entered at the table (P5). Every
chance is an exact fraction from counting the faces of the dice, never a simulation.

One module per area, each an attribute of the package: a caller writes `from play import
table` and names the area where it uses a rule (`table.attacks.plan_attack`).

- `dice`: the d12 and d3, dice entered at the table, chances, a roll's modifiers.
- `commitment`: the server's dice as a stream from a secret seed committed to at the
  start and revealed at the end, and the check of a finished battle's dice.
- `figures`: a figure's numbers, the skills and equipment that change a roll, statuses.
- `state`: what changes during a battle (HP, status, markers, items), as JSON-ready data.
- `attacks`: declared attacks and every printed modifier (P2), one die's result.
- `damage`: damage, Friendship transfers, Unconscious and Out of Action, wards (P3).
- `spells`: casting, outcome tiers and the markers a spell places (P4).
- `spell_attacks`: the attacks a Destruction spell's tier makes (P7).
- `decisions`: what the attacked side decides after an attack, held until answered (P9).
- `recovery`: Heal and Revive; `movement`: Jump and Drop checks.
- `turn`: initiative (P1), whose activation it is, activations and turns.
- `record`: the battle's record from its events (P6).
- `options`: what a figure may still do (the battle screen's cards and sheet).

Every refusal code of the table is declared here, once.
"""

from dbd_site.errors import Kind, also, declare_codes

ERROR_CODES = declare_codes(
    {
        "weapon-not-carried": "The attacker does not carry that weapon.",
        "weapon-wrong-kind": "That weapon cannot make this kind of attack.",
        "unknown-fire-mode": "The weapon has no such fire mode.",
        "situation-not-applicable": "A ticked situation does not apply to this kind of attack.",
        "situation-conflict": "Two ticked situations cannot both be true.",
        "skill-missing": "The declared option needs a skill the figure does not have.",
        "needs-equipment": "The declared option needs equipment the figure does not carry.",
        "cannot-fire-after-moving": "That weapon cannot fire after such a move.",
        "invalid-roll": "A die entered as rolled is not a whole number from 1 to 12.",
        "entered-rolls-forbidden": "This battle (or its campaign) takes the server's dice only.",
        "wrong-dice-count": "The number of dice entered is not the number this roll takes.",
        "spell-not-known": "The caster does not know that spell, or has forgotten it.",
        "cannot-cast": "A figure with CA 0 casts no spells.",
        "invalid-chosen-value": "Dragon Slayer's chosen value is a whole number from 1 to 6.",
        "invalid-transfer": "A Friendship transfer is refused.",
        "invalid-distance": "A distance is a whole number of inches from 0 to 36.",
        "already-attacked": "The cast has already attacked that figure (one attack each).",
        "no-spell-attacks": "No cast is waiting for its attacks to be rolled.",
        "figure-not-active": "The figure is Unconscious or Out of Action and cannot do this.",
        "figure-not-unconscious": "Only an Unconscious figure is revived.",
        "same-side": "An attack's target is an enemy figure.",
        "other-side": "Friendship moves damage onto friendly figures only.",
        "unknown-marker": "No marker has that name.",
        "unknown-item": "The figure carries no such one-use item, or discarded it already.",
        "nothing-to-transfer": "No attack's damage waits for a Friendship transfer.",
        "no-decision": "No such decision waits for an answer.",
        "movement-refused": "The figure may not make that move (Heavy Armour, Aim for the Legs).",
        "disarmed": "Disarming Shot: no weapon's benefits in this activation.",
        "used-up": "Used once a battle, and used already.",
    }
)

NOT_ALLOWED_CODES = declare_codes(
    {
        "not-your-figure": "A player acts, answers and undoes for their own side only (P9).",
    },
    Kind.NOT_ALLOWED,
)

CONFLICT_CODES = declare_codes(
    {
        "decision-pending": "The other side's decision after an attack comes first (P9).",
        "initiative-rolled": "This turn's initiative is rolled; undo it to roll again.",
        "battle-begun": "That is done before the battle's first initiative roll.",
    },
    Kind.CONFLICT,
)
# A figure the body names that is not in the battle: bad input, not a missing address.
FIGURE_CODES = also(Kind.INVALID, "not-found")

# The areas, after the codes they raise are declared.
from play.table import (  # noqa: E402
    attacks,
    commitment,
    damage,
    decisions,
    dice,
    figures,
    movement,
    options,
    record,
    recovery,
    spell_attacks,
    spells,
    state,
    turn,
)

__all__ = [
    "ERROR_CODES",
    "attacks",
    "commitment",
    "damage",
    "decisions",
    "dice",
    "figures",
    "movement",
    "options",
    "record",
    "recovery",
    "spell_attacks",
    "spells",
    "state",
    "turn",
]
