"""OpenAPI post-processing for answers every endpoint can give.

Any operation can meet a bad token (401) or the throttle (429), and any operation
with a path parameter can meet a missing object (404); all answer in the project's
error shape. Listing them once here keeps every view's schema honest.
"""

from typing import Any

from drf_spectacular import openapi
from rest_framework import serializers


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, saying two more things the server does: request bodies
    whose serializer declares `refuses_unknown_keys = True` have `additionalProperties:
    false` (their views answer 400 `unknown-key` to any other key), a nested list of
    objects (`many=True`) keeps its `min_length`/`max_length` as minItems/maxItems, and a
    bounded object (`BoundedDictField`) its `max_items` as maxProperties."""

    def _insert_field_validators(self, field, schema):
        super()._insert_field_validators(field, schema)
        if isinstance(field, serializers.ListSerializer) and schema.get("type") == "array":
            if field.min_length is not None:
                schema["minItems"] = field.min_length
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
        max_items = getattr(field, "max_items", None)
        if isinstance(field, serializers.DictField) and max_items is not None:
            schema["maxProperties"] = max_items

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and getattr(serializer, "refuses_unknown_keys", False):
            schema["additionalProperties"] = False
        return schema


ERROR_LIST = {
    "type": "object",
    "required": ["errors"],
    "properties": {
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["pointer", "code", "message"],
                "properties": {
                    "pointer": {"type": "string"},
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                },
            },
        },
        "retry_after": {"type": "string"},
    },
}
ERROR_REF = {"$ref": "#/components/schemas/ErrorList"}
WRITES = frozenset({"post", "put", "patch", "delete"})
DESCRIPTIONS = {
    "400": "Bad input; each error points at what is wrong.",
    "401": "Missing, bad or revoked credentials.",
    "404": "No such object, or not yours.",
    "405": "Method not allowed here.",
    "409": "The state is in the way (a pending battle, a retired force, already done, or "
    "a stale version); nothing changed.",
    "413": "Request body too large.",
    "429": "Too many requests; retry later.",
}


def add_common_error_responses(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["ErrorList"] = ERROR_LIST
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            codes = ["401", "405", "413", "429"]
            if "{" in path:
                codes.append("404")
            if any(p.get("in") == "query" for p in operation.get("parameters", [])):
                codes.append("400")  # a query parameter that is not what it should be
            if method.lower() in WRITES and path.startswith("/api/v1/campaigns/"):
                codes.append("409")  # see dbd_site.errors.HTTP_STATUS
                codes.append("404")  # a campaign, force, battle or invitation not there
            for code in codes:
                operation["responses"].setdefault(
                    code,
                    {
                        "description": DESCRIPTIONS[code],
                        "content": {"application/json": {"schema": ERROR_REF}},
                    },
                )
    return result
