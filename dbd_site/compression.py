"""Pages, fragments and API answers are sent gzipped to a client that accepts it, except
an answer that shows a secret (docs/operations.md, "Compression").

Compression and secrets: BREACH. When an answer holds a secret and also text an attacker
chose, the compressed answer is shorter the more of the secret the attacker's text
guesses, and someone who can see the sizes on the wire (not the content) learns the
secret a character at a time. Django's CSRF token is masked anew in every answer, so it
never repeats for a guess to match; the secrets that do stay the same from one answer to
the next are the capability links and tokens (a force's share link, a battle's spectator
link, a campaign's invitation link, a new API token). An answer that shows one of those
is marked by the code that puts it in (`shows_secret`) and sent as it is.

Every other answer is compressed by Django's GZipMiddleware, which also pads each
compressed answer with 0-99 random bytes ("Heal the BREACH"), so sizes measured across
answers are noisier still.
"""

from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers

from dbd_site.preconditions import GZIP_SUFFIX, opaque_of, strong

_MARK = "shows_secret"


def shows_secret(request: Any) -> None:
    """The answer to `request` shows a secret that stays the same from one answer to the
    next (a capability link or token): it is sent uncompressed. Call it where the secret
    is put into the answer, whether the answer is rendered or comes from a cache.
    `request` is Django's, or DRF's wrapping it."""
    setattr(getattr(request, "_request", request), _MARK, True)


def is_secret(request: HttpRequest) -> bool:
    return bool(getattr(request, _MARK, False))


class CompressionMiddleware(GZipMiddleware):
    """GZipMiddleware, except for answers marked by `shows_secret`, and keeping a strong
    `ETag` strong (`"<opaque>-gzip"`, rather than Django's weakened `W/"<opaque>"`), so
    `If-Match`'s strong comparison still works on what a compressed answer said.

    `Vary: Accept-Encoding` goes on every answer that may be compressed, the short ones
    and the bodyless 304s too, so a cache never hands one client's encoding to another.
    """

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if is_secret(request):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        etag = response.get("ETag", "")
        response = super().process_response(request, response)
        if not etag.startswith('"'):
            return response
        # Other bytes, the same version: a strong tag of its own (dbd_site.preconditions);
        # a 304 names the tag the client holds, as its 200 would have.
        gzipped = strong(opaque_of(etag) + GZIP_SUFFIX)
        if response.get("Content-Encoding") == "gzip" or (
            response.status_code == 304 and gzipped in request.headers.get("If-None-Match", "")
        ):
            response["ETag"] = gzipped
        return response
