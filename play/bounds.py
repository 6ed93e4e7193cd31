"""How long each list a client sends to play mode may be: what the rules can need, no more.

Each bound is declared here once, with the rule it comes from. The API's bodies and the
battle screen's forms (turned into the same bodies) pass `play.serializers`, which refuses
a longer list as a whole, at the list's pointer (400 `too-many-items`), before anything is
read or changed: one request can no longer make every later answer about the battle large.
docs/limits.md lists them all.

Pure Python: plain numbers, no Django.
"""

from campaign.progression import MAX_BATTLE_FORCES, MAX_FORCE_MEMBERS

# R10: a force is 4 to 6 students and at most one mentor, and only legal forces play.
MAX_FIGURES_PER_SIDE = MAX_FORCE_MEMBERS

# The rulebook's battles have two sides; a campaign battle has up to six (a one-off, two).
MAX_SIDES = MAX_BATTLE_FORCES

# Objectives are given per figure (R14b): at most every figure of the battle.
MAX_FIGURES = MAX_SIDES * MAX_FIGURES_PER_SIDE

# P3: damage moves onto friendly figures, each named once: at most every other figure of
# the target's side.
MAX_TRANSFER_FRIENDS = MAX_FIGURES_PER_SIDE - 1

# The most dice one roll takes: the free roll (`roll`) of up to 12 d12. Every rule rolls
# fewer: a spell CA dice (at most 5, R3) and Healing Spring's d3, an attack one die per
# shot (the highest ROF is 3, or X successes of a spell's attack) and Subdual's or Exploit
# Weakness's die.
MAX_DICE_PER_ROLL = 12

# P1: each side rolls 1d12, and the sides tied for the highest roll again, one die each.
# The rules set no end, so entered rolls stop at 12 rounds: even six sides tie for the lead
# in under a quarter of rounds, so a 13th round comes once in some 40 million initiatives
# (and the server's own dice have no such bound).
MAX_INITIATIVE_ROUNDS = 12
MAX_DICE_PER_INITIATIVE_ROUND = MAX_SIDES

# Free text a player writes into the battle's log: a change's note, a free roll's reason.
MAX_NOTE_CHARACTERS = 200
MAX_REASON_CHARACTERS = 100
