"""CORS for the read-only API (docs/api.md, "CORS"), by django-cors-headers.

A page on any origin may read `/api/v1/` with a token (`Authorization: Token ...`):
GET, HEAD and the preflight OPTIONS get `Access-Control-Allow-Origin: *`. Nothing more
is opened: no cookies travel (no `Access-Control-Allow-Credentials`, so a browser's
session is never used across origins), a preflight allows only those methods, and an
answer to any other method carries no CORS header, so another origin's page cannot
write or read what a write answered.
"""

from typing import Any

from django.http import HttpRequest

from dbd_site.middleware import API_PREFIX

READS = frozenset({"GET", "HEAD", "OPTIONS"})


def read_only_api(sender: Any, request: HttpRequest, **kwargs: Any) -> bool:
    """`corsheaders.signals.check_request_enabled`: the API's reads only."""
    return request.path_info.startswith(API_PREFIX + "v1/") and request.method in READS
