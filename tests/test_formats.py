"""Dates and numbers in the site's own formats, en-GB, with Django's translations off."""

import datetime

from django.template import engines
from django.utils import formats

MOMENT = datetime.datetime(2026, 3, 4, 17, 5, tzinfo=datetime.UTC)


def test_dates_keep_the_en_gb_formats():
    assert formats.date_format(MOMENT) == "4 Mar 2026"
    assert formats.date_format(MOMENT, "SHORT_DATE_FORMAT") == "04/03/2026"
    assert formats.localize(MOMENT) == "4 Mar 2026, 5:05 p.m."


def test_numbers_are_written_plainly():
    assert formats.localize(1234567) == "1234567"
    assert formats.localize(2.5) == "2.5"


def test_a_template_writes_both_as_the_pages_do():
    template = engines["django"].from_string("{{ moment }} | {{ moment|date }} | {{ n }}")
    rendered = template.render({"moment": MOMENT, "n": 1234567})
    assert rendered == "4 Mar 2026, 5:05 p.m. | 4 Mar 2026 | 1234567"
