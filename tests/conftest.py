import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from rules.catalogue import Catalogue
from rules.loader import clear_catalogue_cache, get_catalogue


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Every test database starts with the rules catalogue loaded, as `make run` does."""
    with django_db_blocker.unblock():
        call_command("loaddata", "rules", verbosity=0)
        clear_catalogue_cache()


@pytest.fixture(scope="session")
def catalogue(django_db_setup, django_db_blocker) -> Catalogue:
    with django_db_blocker.unblock():
        return get_catalogue()


def throttle_rates(*, anon: str = "100000/minute", user: str = "100000/minute"):
    """The API's rates for a test (`override_settings`, as a decorator or a `with`)."""
    from django.conf import settings
    from django.test import override_settings

    rates = {"anon": anon, "user": user}
    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    )


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache (cached page fragments, throttle counters)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


# --- the people of the campaign and play tests -------------------------------------------


def make_user(username: str):
    return get_user_model().objects.create_user(username, password=f"pw-{username}-1234")


@pytest.fixture
def organiser():
    return make_user("olga")


@pytest.fixture
def alice():
    return make_user("alice")


@pytest.fixture
def bob():
    return make_user("bob")


@pytest.fixture
def eve():
    return make_user("eve")


@pytest.fixture
def campaign(organiser, alice, bob):
    """Spring League: Olga organises, Alice and Bob have joined (no forces entered yet)."""
    from campaign import services

    made = services.create_campaign(organiser=organiser, name="Spring League")
    services.join_campaign(user=alice, token=made.invite_token)
    services.join_campaign(user=bob, token=made.invite_token)
    return made


@pytest.fixture
def rules_change(db):
    """Changes the rules in the database as a new fixture would, and makes this process
    read them (`rules.loader.get_catalogue`). Call it with any of:

    - `edition`: a new edition's name (the `RulesVersion`), e.g. "dbd-core-2";
    - `equipment` and `cost_constant`: a piece of equipment's new constant cost (R7).

    The database changes roll back with the test; the catalogue is read again after it.
    """
    from rules.models import Equipment, RulesVersion

    def change(
        *, edition: str | None = None, equipment: str | None = None, cost_constant: int = 0
    ) -> Catalogue:
        if edition is not None:
            RulesVersion.objects.update(code=edition)
        if equipment is not None:
            Equipment.objects.filter(slug=equipment).update(cost_constant=cost_constant)
        clear_catalogue_cache()
        return get_catalogue()

    clear_catalogue_cache()
    yield change
    clear_catalogue_cache()
