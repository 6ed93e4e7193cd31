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
