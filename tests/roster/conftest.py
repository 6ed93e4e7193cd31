"""Users and API clients the roster tests share."""

import pytest
from django.contrib.auth import get_user_model

from tests.roster.builders import signed_in


@pytest.fixture
def owner():
    return get_user_model().objects.create_user("owner", password="pw-owner-1234")


@pytest.fixture
def stranger():
    return get_user_model().objects.create_user("stranger", password="pw-stranger-1234")


@pytest.fixture
def owner_api(owner):
    return signed_in(owner)


@pytest.fixture
def stranger_api(stranger):
    return signed_in(stranger)
