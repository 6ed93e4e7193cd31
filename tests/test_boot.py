"""What a worker prepares at boot (dbd_site/boot.py): the site's templates compiled and the
rules catalogue loaded, so a fresh worker's first players don't pay for them; and a
database that is down at boot does not stop the worker."""

import pytest
from django.template import engines
from django.template.loaders.cached import Loader as CachedLoader

from dbd_site.boot import site_template_names, warm_up
from rules.loader import clear_catalogue_cache, get_catalogue
from tests.test_deploy_settings import PRODUCTION, python


def cached_loader() -> CachedLoader:
    """The cached loader inside django-template-partials' wrapper."""
    (wrapper,) = engines["django"].engine.template_loaders
    (loader,) = wrapper.loaders
    assert isinstance(loader, CachedLoader)
    return loader


def test_the_site_s_templates_are_every_html_file_under_templates(settings):
    names = site_template_names()
    on_disk = sorted(
        path.relative_to(settings.BASE_DIR / "templates").as_posix()
        for path in (settings.BASE_DIR / "templates").rglob("*.html")
    )
    assert names == on_disk
    assert {"base.html", "roster/detail.html", "campaign/dashboard.html"} <= set(names)
    # Only the site's own: the admin's and the browsable API's pages compile when opened.
    assert not any(name.startswith(("admin/", "rest_framework/")) for name in names)


@pytest.mark.django_db
def test_warm_up_compiles_every_template_and_loads_the_catalogue(django_assert_num_queries):
    loader = cached_loader()
    loader.reset()
    clear_catalogue_cache()
    assert loader.get_template_cache == {}

    warm_up()

    assert set(site_template_names()) <= set(loader.get_template_cache)
    with django_assert_num_queries(0):
        get_catalogue()


# The same site, with its database down: nothing listens on port 1.
DATABASE_DOWN = {**PRODUCTION, "DATABASE_URL": "postgres://postgres@127.0.0.1:1/dbd"}

PROBE = (
    "import dbd_site.wsgi; from rules.loader import get_catalogue; "
    "from tests.test_boot import cached_loader; "
    "print(len(cached_loader().get_template_cache), get_catalogue.cache_info().currsize)"
)


def test_a_worker_boots_with_its_database_down_and_says_so():
    result = python("-c", PROBE, **DATABASE_DOWN)
    assert result.returncode == 0, result.stderr
    compiled, catalogues = map(int, result.stdout.split())
    assert compiled == len(site_template_names())
    assert catalogues == 0  # the first request that needs it reads it
    assert "Rules catalogue not loaded at boot" in result.stderr
    assert "the first request will" in result.stderr
