"""What a worker prepares once, at boot, rather than on its players' first requests.

Each gunicorn worker (`dbd_site/wsgi.py`) compiles the site's templates and reads the rules
catalogue the first time a request needs them. On the bench's machine that was 0.3-0.5 s
of CPU spread over a fresh worker's first pages (bench/findings.md, "A fresh worker's
first requests"): a deploy's first players paid it. Done at boot, it is paid once per
worker before any request, and what it makes is frozen with the rest of the worker's
long-lived objects.
"""

import logging
from pathlib import Path

from django.db import DatabaseError
from django.template import engines

from rules.loader import RulesNotLoaded, get_catalogue

logger = logging.getLogger(__name__)


def site_template_names() -> list[str]:
    """Every template in the site's own template directories (not the apps' admin,
    browsable-API and schema pages, which few requests open), as `get_template` names."""
    names = set()
    for directory in engines["django"].engine.dirs:
        root = Path(directory)
        names |= {path.relative_to(root).as_posix() for path in root.rglob("*.html")}
    return sorted(names)


def warm_up() -> None:
    """Compile the site's templates into the cached loader and load the rules catalogue.

    A database that is down or not yet loaded does not stop the worker: it boots, says
    why in the log, and the first request that needs the catalogue reads it, as before.
    A template that does not compile does stop it, as it would fail on first use.
    """
    engine = engines["django"]
    for name in site_template_names():
        engine.get_template(name)
    try:
        get_catalogue()
    except (DatabaseError, RulesNotLoaded) as exc:
        logger.warning("Rules catalogue not loaded at boot (%s); the first request will.", exc)
