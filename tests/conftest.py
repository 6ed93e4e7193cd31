import pytest
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


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache (cached page fragments, throttle counters)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


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
