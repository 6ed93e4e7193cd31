"""The log-in lock-out (django-axes), made to hold exactly and to clear only what it should.

django-axes counts failed log-ins per address and per username (`AXES_LOCKOUT_PARAMETERS`)
and locks either at `AXES_FAILURE_LIMIT`. Two changes make that a limit nobody walks around:

- `LockoutHandler`: a successful log-in clears the failures of the username that logged in,
  from the address it logged in from, and nothing else. Axes' own handler clears every
  failure of the address, so four wrong guesses at someone else's name followed by a log-in
  to one's own account (or a sign-up, which logs in) started the guessing over.
- `attempts_in_turn`: axes asks "locked?" before the password is checked and records the
  failure after it, so parallel guesses all passed the question before any was recorded.
  Every check of a password (the log-in forms, the old password on the password-change form)
  runs inside it: one at a time per username and per address, each seeing the ones before.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.http import HttpRequest

from dbd_site.client_address import client_address


class LockoutHandler(AxesDatabaseHandler):
    """Axes' database handler; a success forgives only the failures it proves were typos."""

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        deleted, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return deleted


@contextmanager
def attempts_in_turn(request: HttpRequest, username: str | None) -> Iterator[None]:
    """Check one password at a time per username and per address: a transaction that holds
    a lock on each. On PostgreSQL, transaction-level advisory locks (taken in one order, so
    two attempts never wait on each other); on SQLite the transaction itself, which takes
    the database's only write lock as it begins (`transaction_mode: IMMEDIATE`).

    A refusal (the form's ValidationError) leaves the transaction committed: the failure
    axes recorded in it is the whole point."""
    refused: ValidationError | None = None
    with transaction.atomic():
        if connection.vendor == "postgresql":
            keys = {f"login-address:{client_address(request)}"}
            if username:
                keys.add(f"login-username:{username}")
            with connection.cursor() as cursor:
                for key in sorted(keys):
                    cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])
        try:
            yield
        except ValidationError as error:
            refused = error
    if refused is not None:
        raise refused
