"""A webhook's version as an entity tag (docs/api.md, "Preconditions"): what its answer
shows (its URL, kinds, active flag, and until when a rotated-out secret still signs),
worked out from them, so a registration, a change or a rotation answers the tag a
following read answers."""

import hashlib

from events.models import Webhook


def webhook_tag(hook: Webhook) -> str:
    """The opaque value of the webhook's tag."""
    expires = hook.previous_secret_expires_at
    seen = (
        f"{hook.url} {','.join(hook.kinds)} {hook.active} {expires.isoformat() if expires else ''}"
    )
    return f"w{hook.pk}-{hashlib.blake2b(seen.encode(), digest_size=8).hexdigest()}"
