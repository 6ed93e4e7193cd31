"""The API's one request body parser: JSON, read through `dbd_site.inputs.load_json`."""

from typing import Any

from rest_framework import parsers

from dbd_site.inputs import load_json


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with the site's limits: depth, number length, no NUL or lone
    surrogate. A body beyond them is refused with 400 in the API's error shape, with a
    pointer to the offending value (`dbd_site.errors.Invalid`)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context=None) -> Any:
        return load_json(stream.read() if stream is not None else b"")
