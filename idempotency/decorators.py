"""`@idempotent`: a write sent again with the same `Idempotency-Key` is done once.

Stripe's semantics (docs/idempotency.md): the first request with a key does the write and
its answer (status, headers, body) is stored with the write, in one transaction; a later
request from the same user with the same key and the same method, path and body, within
24 hours, gets that answer again without anything being done (`Idempotent-Replayed:
true`); the same key with another request is refused (`idempotency-key-reused`). Two
requests racing with one key are served one after the other: the second waits for the
first's transaction and replays its answer (the key's row is unique per user, so its
insert waits for the first to commit; on SQLite every write transaction queues anyway).

Only a change is stored: a refusal (4xx) or a failure (5xx) changed nothing, so it is
rolled back with its key, and the same key may be sent again.

Used on a function view (`request` first) or on a DRF view's handler method (`self`,
`request`): one line per view. Pages without JavaScript may send the key as a hidden form
field instead (`{% idempotency_key_field %}`).
"""

import hashlib
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.db import IntegrityError, transaction
from django.http import HttpResponse, HttpResponseBase
from django.http.request import RawPostDataException
from django.utils import timezone

from dbd_site.compression import shows_secret
from dbd_site.errors import Invalid, declare_codes
from dbd_site.schema import answers
from idempotency.models import IdempotentRequest

HEADER = "Idempotency-Key"
FORM_FIELD = "idempotency_key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEPT_FOR = timedelta(hours=24)
MAX_KEY_LENGTH = 255
# Sent again by every answer anyway, or not the answer's own (a new session's cookie).
_NOT_STORED = {"content-length", "set-cookie"}
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}

# The refusals of a key, on any operation that honours keys.
CODES = declare_codes(
    {
        "idempotency-key-invalid": "An Idempotency-Key is 1 to 255 visible ASCII characters "
        "(no spaces); nothing was done.",
        "idempotency-key-reused": "This Idempotency-Key was sent in the last 24 hours with "
        "another request (another address or body); nothing was done: send a new key for a "
        "new request.",
    }
)


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Do `view` once per user and `Idempotency-Key` (see the module's text)."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        api_view = args[0] if hasattr(args[0], "finalize_response") else None
        request = args[1] if api_view is not None else args[0]
        user = getattr(request, "user", None)
        key = request.headers.get(HEADER)
        if key is None and api_view is None:
            key = request.POST.get(FORM_FIELD)
        if (
            key is None
            or request.method in _SAFE_METHODS
            or user is None
            or not user.is_authenticated
        ):
            return view(*args, **kwargs)
        if not _well_formed(key):
            return _refuse(
                api_view,
                "idempotency-key-invalid",
                "This Idempotency-Key is not "
                f"1 to {MAX_KEY_LENGTH} visible ASCII characters; nothing was done.",
            )
        fingerprint = _fingerprint(request)
        with transaction.atomic():
            claim, stored = _claim(user, key, fingerprint)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    return _refuse(
                        api_view,
                        "idempotency-key-reused",
                        "This Idempotency-Key was sent with another request; nothing was "
                        "done. Send a new key for a new request.",
                    )
                return _replay(request, stored)
            response = view(*args, **kwargs)
            if api_view is not None:
                response = api_view.finalize_response(request, response, *args[2:], **kwargs)
            if response.streaming or not 200 <= response.status_code < 400:
                transaction.set_rollback(True)  # nothing was changed: the key stays free
                return response
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            claim.status = response.status_code
            claim.headers = [
                [name, value]
                for name, value in response.items()
                if name.lower() not in _NOT_STORED
            ]
            claim.body = response.content
            claim.save(update_fields=["status", "headers", "body"])
            return response

    return answers(CODES)(wrapped)  # the schema lists the key's refusals


def _well_formed(key: str) -> bool:
    return 0 < len(key) <= MAX_KEY_LENGTH and all("!" <= c <= "~" for c in key)


def _fingerprint(request: Any) -> str:
    try:
        body = request.body
    except RawPostDataException:  # a multipart form already read: its fields stand for it
        body = repr(sorted(request.POST.lists())).encode()
    digest = hashlib.sha256(f"{request.method} {request.get_full_path()}\n".encode())
    digest.update(body)
    return digest.hexdigest()


def _claim(
    user: Any, key: str, fingerprint: str
) -> tuple[IdempotentRequest, None] | tuple[None, IdempotentRequest]:
    """The key's row for this request to fill in, or the answer stored under it.

    Expired keys of the user are deleted first: the cleanup needs no scheduler (the
    `purge_idempotency_keys` command clears those of users who stopped writing)."""
    now = timezone.now()
    IdempotentRequest.objects.filter(user=user, created_at__lt=now - KEPT_FOR).delete()
    try:
        with transaction.atomic():
            claim = IdempotentRequest.objects.create(
                user=user, key=key, fingerprint=fingerprint, status=0, body=b"", created_at=now
            )
    except IntegrityError:
        return None, IdempotentRequest.objects.get(user=user, key=key)
    return claim, None


def _replay(request: Any, stored: IdempotentRequest) -> HttpResponse:
    # Sent as stored, uncompressed: the first answer may have shown a secret (a spectator
    # or share link) that must not be compressed beside what the caller sent (BREACH).
    shows_secret(request)
    response = HttpResponse(bytes(stored.body), status=stored.status)
    for name, value in stored.headers:
        response[name] = value
    response[REPLAYED_HEADER] = "true"
    return response


def _refuse(api_view: Any, code: str, message: str) -> HttpResponseBase:
    """An API view's refusal is the one error shape; a page's is said in plain words,
    and htmx leaves the page as it is (the script that sent the key shows the words)."""
    if api_view is not None:
        raise Invalid(code, message)
    response = HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    response["HX-Reswap"] = "none"
    return response
