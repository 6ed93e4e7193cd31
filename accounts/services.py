"""Writes for user accounts. API tokens have their own module, `accounts.tokens`."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction


@transaction.atomic
def create_account(*, username: str, password: str) -> AbstractBaseUser:
    """A new, active user; the caller has already validated the username and password."""
    return get_user_model().objects.create_user(username=username, password=password)
