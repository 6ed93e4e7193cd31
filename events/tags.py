"""A webhook's version as an entity tag (docs/api.md, "Preconditions"): what its answer
shows (its URL, kinds and active flag), worked out from them, so a registration or a
change answers the tag a following read answers."""

import hashlib

from events.models import Webhook


def webhook_tag(hook: Webhook) -> str:
    """The opaque value of the webhook's tag."""
    seen = f"{hook.url} {','.join(hook.kinds)} {hook.active}"
    return f"w{hook.pk}-{hashlib.blake2b(seen.encode(), digest_size=8).hexdigest()}"
