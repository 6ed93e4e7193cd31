"""How every key of the site's shared cache is built: `key` here, and only here.

A key names everything its value depends on, so nothing cached is ever shown where it no
longer fits. What every key carries is named here:

- the release (`settings.RELEASE`): new code renders differently;
- the kind of value (a page body, a card, an API answer).

What else a kind depends on (the rules catalogue and the engine, a force's version, the
viewer, the origin asked for, the CSRF secret a page's forms are masked from) its own
module names, building on `key`: the forces' keys are in `roster/cache_keys.py`. The
variable parts are hashed: a key has a fixed length and safe characters whatever a host
or release is called, and secrets in it (the CSRF secret) are never stored. Throttle
counters and axes' lock-outs keep the keys their libraries give them.
"""

import hashlib
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest


def key(kind: str, parts: Iterable[object]) -> str:
    """The key of a value of `kind` that depends on `parts` (and on the release)."""
    everything = (settings.RELEASE, *parts)
    digest = hashlib.blake2b(
        "\x1f".join(map(str, everything)).encode(), digest_size=20
    ).hexdigest()
    return f"{kind}:{digest}"


def origin(request: HttpRequest) -> str:
    """Scheme and host the request was made to, as absolute links in an answer show them."""
    return request.build_absolute_uri("/")


def health_probe() -> str:
    """The key `/healthz` writes and reads back to show the cache works."""
    return "healthz"
