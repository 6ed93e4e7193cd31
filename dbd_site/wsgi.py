import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dbd_site.settings")

application = get_wsgi_application()

# What loading the site makes lives as long as the worker: its modules, models, settings,
# every view its URLs name (imported here rather than by the first request), and the
# compiled templates and rules catalogue (`dbd_site.boot`, which needs the apps loaded
# above), about 150,000 objects. Frozen, Python's collector stops walking them: otherwise
# a full collection, about once in a hundred requests, took 60 ms on the bench's machine
# (bench/findings.md).
import_module(settings.ROOT_URLCONF)
import_module("dbd_site.boot").warm_up()
gc.freeze()
