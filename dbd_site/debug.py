"""What Django's debug error page may show."""

import re

from django.views.debug import SafeExceptionReporterFilter


class ExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, also hiding the database and cache addresses (with their
    passwords) wherever a setting or the request's environment names them: the
    development server passes the whole environment, `DATABASE_URL` included, to the
    debug page, which anyone who meets an error sees while DEBUG is on."""

    hidden_settings = re.compile(
        SafeExceptionReporterFilter.hidden_settings.pattern + "|DATABASE|REDIS|DSN",
        flags=re.IGNORECASE,
    )
