"""Making, checking and revoking API tokens."""

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken
from dbd_site.errors import Conflict, Kind, declare_codes

TOKEN_BYTES = 32
MAX_TOKENS_PER_USER = 20

CONFLICT_CODES = declare_codes(
    {
        "too-many-tokens": f"An account holds at most {MAX_TOKENS_PER_USER} API tokens; "
        "revoke one first.",
    },
    Kind.CONFLICT,
)

READ_ONLY_CODES = declare_codes(
    {
        "read-only-token": "A read-only API token reads (GET, HEAD, OPTIONS) and changes "
        "nothing; nothing was done (403).",
    },
    Kind.NOT_ALLOWED,
)


class TooManyTokens(Conflict):
    """The account already holds `MAX_TOKENS_PER_USER` tokens (409: revoke one first)."""


def digest_of(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def create_api_token(
    *, user: AbstractBaseUser, name: str, read_only: bool = False
) -> tuple[ApiToken, str]:
    """A new token for `user`; the raw token is returned once and never stored.

    The user's row is locked first, so creations for one user at once are counted one
    after the other and the cap holds (on SQLite the transaction's write lock does it)."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS_PER_USER:
        raise TooManyTokens(
            "too-many-tokens", f"At most {MAX_TOKENS_PER_USER} tokens; revoke one first."
        )
    raw = secrets.token_urlsafe(TOKEN_BYTES)
    token = ApiToken.objects.create(
        user=user, name=name, prefix=raw[:8], digest=digest_of(raw), read_only=read_only
    )
    return token, raw


@transaction.atomic
def revoke_api_token(*, user: AbstractBaseUser, token_id: int) -> bool:
    """Delete one of `user`'s tokens; False when there is no such token of theirs."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


@transaction.atomic
def revoke_all_api_tokens(*, user: AbstractBaseUser) -> int:
    """Delete every token of `user` (their password changed); returns how many."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


def token_for(raw: str) -> ApiToken | None:
    """The live token `raw` names (its user active), with its user; None if none."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest_of(raw), user__is_active=True)
        .first()
    )
    if token is None:
        return None
    # One write a minute at most: enough to show "last used", cheap under load.
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token
