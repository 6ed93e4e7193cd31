"""What the campaign tells the apps above it, without knowing them (Django signals).

Sent by `campaign.services` inside the write's transaction, once the change is made: a
receiver's own writes (the events feed, `events.receivers`) commit or roll back with it.

- `player_joined`: `campaign`, `user` (who joined through the invitation link).
- `battle_recorded`: `battle` (pending), `by`.
- `battle_confirmed`: `battle` (its XP and Resources applied), `by`.
- `battle_voided`: `battle`, `by`, `was` (the status it had: pending or confirmed).
- `house_rules_changed`: `campaign` (with its new rules), `by`, `changes` (each changed
  rule's name: [old, new]).
"""

from django.dispatch import Signal

player_joined = Signal()
battle_recorded = Signal()
battle_confirmed = Signal()
battle_voided = Signal()
house_rules_changed = Signal()
