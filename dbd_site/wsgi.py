import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dbd_site.settings")

application = get_wsgi_application()

# What loading the site made (modules, models, settings: about 130,000 objects) lives as
# long as the worker. Frozen, Python's collector stops walking it: otherwise every hundred
# or so requests one of them waits for a full collection, 60 ms on the bench's machine
# (bench/findings.md).
gc.freeze()
