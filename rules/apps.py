import logging

from django.apps import AppConfig
from django.db import DatabaseError

logger = logging.getLogger(__name__)


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = "Rules catalogue"

    def warm_up(self) -> None:
        """Read the rules catalogue once, at a worker's boot (`dbd_site.boot`).

        A database that is down or not yet loaded does not stop the worker: it boots, says
        why in the log, and the first request that needs the catalogue reads it."""
        from rules.loader import RulesNotLoaded, get_catalogue

        try:
            get_catalogue()
        except (DatabaseError, RulesNotLoaded) as exc:
            logger.warning("Rules catalogue not loaded at boot (%s); the first request will.", exc)
