"""What play tells the apps above it, without knowing them (Django signals).

Sent by `play.services` inside the write's transaction: a receiver's own writes (the
events feed, `events.receivers`) commit or roll back with it.

- `side_invited`: a battle was started with someone's force from its share link, and
  its owner is invited to take the side over (`play.sharing`). Arguments: `battle`,
  `side` (its `invited_id` is the owner), `by` (who started it).
"""

from django.dispatch import Signal

side_invited = Signal()
