"""Every template a site template includes or extends by name exists: a partial moved or
merged away fails here, not on a page at run time."""

import re
from pathlib import Path

from django.template.loader import get_template

from dbd_site.boot import site_template_names

NAMED = re.compile(r"""{%\s*(?:include|extends)\s+["']([^"'#]+)["']""")


def test_every_included_or_extended_template_exists(settings):
    directories = [Path(d) for d in settings.TEMPLATES[0]["DIRS"]]
    named = set()
    for name in site_template_names():
        path = next(d / name for d in directories if (d / name).exists())
        named |= set(NAMED.findall(path.read_text()))
    assert {"base.html", "_field.html", "_messages.html"} <= named
    for name in sorted(named):
        get_template(name)  # raises TemplateDoesNotExist
