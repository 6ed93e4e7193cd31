"""Entity tags and the preconditions that read them, said once for every API (RFC 9110
8.8.3, 13.1; docs/api.md, "Preconditions").

A tag is strong (`"<opaque>"`): it names one version of one thing. Compressed, an answer
is other bytes, so `dbd_site.compression` sends its tag as `"<opaque>-gzip"` (as Apache
does), which names the same version here. `If-None-Match` compares weakly (a weak tag, or
one with the suffix, matches its version); `If-Match` strongly: a weak tag (`W/"..."`)
matches nothing, so a write sent with one answers 412.
"""

from typing import Any

from django.utils.cache import parse_etags  # type: ignore[attr-defined]  # not in the stubs

GZIP_SUFFIX = "-gzip"
ANY = "*"


def strong(opaque: str) -> str:
    return f'"{opaque}"'


def opaque_of(tag: str) -> str:
    return tag.removeprefix("W/").strip('"').removesuffix(GZIP_SUFFIX)


def unchanged_since(request: Any, etag: str) -> bool:
    """`If-None-Match` names the current tag, compared weakly (RFC 9110 13.1.2).

    Not Django's `get_conditional_response`: with no Last-Modified (HTTP dates have
    whole seconds, and two writes can share one) it would answer 412 to any
    If-Unmodified-Since, which the RFC says to ignore then."""
    sent = parse_etags(request.headers.get("If-None-Match", ""))
    return ANY in sent or opaque_of(etag) in {opaque_of(tag) for tag in sent}


def if_match(request: Any) -> list[str] | None:
    """What `If-Match` names: the opaque values of its strong tags (a weak tag matches
    nothing, RFC 9110 13.1.1), `["*"]` for any version, None without the header."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    tags = [tag.strip() for tag in header.split(",") if tag.strip()]
    if ANY in tags:
        return [ANY]
    return [opaque_of(t) for t in tags if len(t) >= 2 and t[0] == t[-1] == '"']


def holds(sent: list[str] | None, current: str) -> bool:
    """The precondition `sent` (from `if_match`) holds for the `current` opaque value."""
    return sent is None or ANY in sent or current in sent
