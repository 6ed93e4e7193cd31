"""What the roster tells the apps above it, without knowing them (Django signals).

Sent inside the write's transaction, after the change is stored: a receiver's own
writes (the events feed, `events.receivers`) commit or roll back with the change.

- `force_changed`: a write moved a force's version (`roster.services`: every command
  that stores, the share link, a delete). Arguments: `force` (the locked row, as
  stored; on a delete, as it was), `command` (`roster.policy.Command`), `policy` (the
  force's, as the write used it) and `deleted`.
"""

from django.dispatch import Signal

force_changed = Signal()
