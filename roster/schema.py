"""OpenAPI additions: the dbd-roster/1 document as named, reusable components.

`RosterDocument` is the document's JSON Schema as published, its member a component of
its own (`RosterMember`), which the PATCH body (`RosterDocumentPatch`: some of the
document's top-level keys) names too, rather than holding a copy of it.
"""

from typing import Any

from roster import documents

DOCUMENT_REF = {"$ref": "#/components/schemas/RosterDocument"}
PATCH_REF = {"$ref": "#/components/schemas/RosterDocumentPatch"}
MEMBER_REF = {"$ref": "#/components/schemas/RosterMember"}


def _with_member_ref(properties: dict[str, Any]) -> dict[str, Any]:
    members = {**properties["members"], "items": MEMBER_REF}
    return {**properties, "members": members}


def document_components() -> dict[str, dict[str, Any]]:
    schema = {k: v for k, v in documents.DOCUMENT_SCHEMA.items() if k != "$schema"}
    properties = _with_member_ref(schema["properties"])
    return {
        "RosterDocument": {
            **schema,
            "title": "RosterDocument",
            "description": f"A {documents.FORMAT} document: a force and its members "
            "(docs/roster-document.md).",
            "properties": properties,
        },
        "RosterMember": {
            **documents.MEMBER_SCHEMA,
            "title": "RosterMember",
            "description": "One member of a force, as its document holds them.",
        },
        "RosterDocumentPatch": {
            "type": "object",
            "title": "RosterDocumentPatch",
            "description": "Some of the document's keys: each one sent replaces the document's.",
            "additionalProperties": False,
            "properties": {k: v for k, v in properties.items() if k != "format"},
        },
    }


def add_roster_document(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: publish the document's JSON Schema."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(document_components())
    return result
