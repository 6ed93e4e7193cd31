"""What a worker prepares once, at boot, rather than on its players' first requests.

Each gunicorn worker (`dbd_site/wsgi.py`) compiles the site's templates and reads the rules
catalogue the first time a request needs them. On the bench's machine that was 0.3-0.5 s
of CPU spread over a fresh worker's first pages (bench/findings.md, "A fresh worker's
first requests"): a deploy's first players paid it. Done at boot, it is paid once per
worker before any request, and what it makes is frozen with the rest of the worker's
long-lived objects.

The site layer imports no app: an app with something to prepare says so in its
`AppConfig.warm_up` (the rules app reads its catalogue), and `warm_up` here calls it.
"""

from pathlib import Path

from django.apps import apps
from django.template import engines


def site_template_names() -> list[str]:
    """Every template in the site's own template directories (not the apps' admin,
    browsable-API and schema pages, which few requests open), as `get_template` names."""
    names = set()
    for directory in engines["django"].engine.dirs:
        root = Path(directory)
        names |= {path.relative_to(root).as_posix() for path in root.rglob("*.html")}
    return sorted(names)


def warm_up() -> None:
    """Compile the site's templates into the cached loader, then let each app warm what
    it owns (the rules catalogue: `rules.apps.RulesConfig.warm_up`).

    A template that does not compile stops the worker, as it would fail on first use; an
    app's warm-up decides what it lets pass (a database that is down at boot does not stop
    the worker).
    """
    engine = engines["django"]
    for name in site_template_names():
        engine.get_template(name)
    for config in apps.get_app_configs():
        app_warm_up = getattr(config, "warm_up", None)
        if callable(app_warm_up):
            app_warm_up()
