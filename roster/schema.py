"""OpenAPI additions: the dbd-roster/1 document as a named, reusable component."""

from typing import Any

from roster import documents

DOCUMENT_REF = {"$ref": "#/components/schemas/RosterDocument"}
# PATCH: some of the document's top-level keys (not `format`), as the document has them.
PATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        key: value
        for key, value in documents.DOCUMENT_SCHEMA["properties"].items()
        if key != "format"
    },
}


def add_roster_document(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: publish the document's JSON Schema as is."""
    schema = {k: v for k, v in documents.DOCUMENT_SCHEMA.items() if k != "$schema"}
    result.setdefault("components", {}).setdefault("schemas", {})["RosterDocument"] = schema
    return result
