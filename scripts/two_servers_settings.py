"""Settings for `scripts/two_servers.py`: production's (`dbd_site.settings`, DEBUG off,
everything else from the environment the script sets), with one difference.

Static files are served by WhiteNoise straight from the source folders instead of being
collected: collecting and compressing them takes minutes, and static files are not what
the script proves.
"""

from dbd_site.settings import *  # noqa: F403
from dbd_site.settings import STORAGES

STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
