"""OpenAPI post-processing: what every operation shares, said once.

Any operation can meet a bad token (401) or the throttle (429), and any operation with a
path parameter can meet a missing object (404); all answer in the one error shape. The
hooks here also make the document one that strict JSON Schema 2020-12 and client
generators read the same way (issue #32): `null` is a type (`type: [..., "null"]`, not
3.0's `nullable`), every refusal is the one `ErrorList` model whose `code` lists the one
table of codes (`dbd_site.errors.declared_codes`), every 201 declares its `Location`,
every request body is required, and components no operation names are dropped.
"""

from collections.abc import Iterator
from typing import Any

from drf_spectacular import openapi
from rest_framework import serializers

from dbd_site.errors import declared_codes


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


ERROR_REF = {"$ref": "#/components/schemas/ErrorList"}
ERROR_CODE_REF = {"$ref": "#/components/schemas/ErrorCode"}
# The components of the serializers the views name for a refusal (`ApiErrorsSerializer`).
ERROR_ALIASES = {"ApiError": "Error", "ApiErrors": "ErrorList"}


def error_components() -> dict[str, Any]:
    """The one error model; its codes are the declared ones, so a new code shows here."""
    return {
        "ErrorCode": {
            "type": "string",
            "title": "ErrorCode",
            "enum": list(declared_codes()),
            "description": "A stable code: what the refusal is about (docs/api-errors.md).",
        },
        "Error": {
            "type": "object",
            "title": "Error",
            "additionalProperties": False,
            "required": ["pointer", "code", "message"],
            "properties": {
                "pointer": {
                    "type": "string",
                    "description": "JSON Pointer into what was sent; empty for the request "
                    "as a whole.",
                },
                "code": ERROR_CODE_REF,
                "message": {"type": "string", "description": "Plain words, for people."},
            },
        },
        "ErrorList": {
            "type": "object",
            "title": "ErrorList",
            "additionalProperties": False,
            "required": ["errors"],
            "properties": {
                "errors": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"$ref": "#/components/schemas/Error"},
                },
                "retry_after": {
                    "type": "string",
                    "description": "429 only: seconds to wait, as `Retry-After` says.",
                },
            },
        },
    }


WRITES = frozenset({"post", "put", "patch", "delete"})
BODIES = frozenset({"post", "put", "patch"})
DESCRIPTIONS = {
    "400": "Bad input; each error points at what is wrong.",
    "401": "Missing, bad or revoked credentials.",
    "403": "You may not do this (or a read-only token was sent to a write).",
    "404": "No such object, or not yours.",
    "405": "Method not allowed here.",
    "406": "No answer in the media type the `Accept` header asks for.",
    "409": "The state is in the way (a pending battle, a retired force, already done, or "
    "a stale version); nothing changed.",
    "412": "`If-Match` names a version that is no longer the current one; nothing changed.",
    "413": "Request body too large.",
    "415": "The body is not JSON.",
    "429": "Too many requests; retry later.",
    "500": "Something went wrong on the server; it has been logged.",
    "503": "The site cannot reach its database or cache just now; retry after "
    "`Retry-After` seconds.",
}
LOCATION = {
    "description": "The address of what was made (or of what shows it).",
    "schema": {"type": "string", "format": "uri"},
}


def _operations(result: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield path, method.lower(), operation


def _null_as_type(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as 3.1 says it (it means nothing in 3.1)."""
    if isinstance(node, list):
        return [_null_as_type(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _null_as_type(value) for key, value in node.items()}
    if not node.pop("nullable", False):
        return node
    if isinstance(node.get("type"), str | list):
        types = [node["type"]] if isinstance(node["type"], str) else node["type"]
        node["type"] = [*types, "null"] if "null" not in types else types
        if "enum" in node and None not in node["enum"]:
            node["enum"] = [*node["enum"], None]
        return node
    outer = {k: node.pop(k) for k in ("description", "title", "readOnly") if k in node}
    return {"oneOf": [node, {"type": "null"}], **outer}


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.removeprefix("#/components/schemas/").split("/")[0]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _one_error_model(node: Any) -> Any:
    """The error serializers views name, as the one model (`Error`, `ErrorList`)."""
    if isinstance(node, list):
        return [_one_error_model(item) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.removeprefix("#/components/schemas/") in ERROR_ALIASES:
        return {**node, "$ref": "#/components/schemas/" + ERROR_ALIASES[ref.rpartition("/")[2]]}
    return {key: _one_error_model(value) for key, value in node.items()}


def _drop_unused_components(result: dict[str, Any]) -> None:
    schemas = result["components"]["schemas"]
    used: set[str] = set()
    todo = list(_refs(result.get("paths", {})))
    while todo:
        name = todo.pop()
        if name not in used and name in schemas:
            used.add(name)
            todo.extend(_refs(schemas[name]))
    for name in list(schemas):
        if name not in used:
            del schemas[name]


def add_common_error_responses(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """Every refusal an operation can answer, in the one error model; see the module."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(error_components())
    error_content = {"application/json": {"schema": ERROR_REF}}
    for path, method, operation in _operations(result):
        # A forged Host or an unreadable request (400), a bad token (401), an Accept it
        # cannot meet (406), a server error or an unreachable database (500, 503).
        statuses = ["400", "401", "405", "406", "413", "429", "500", "503"]
        if "{" in path:
            statuses.append("404")
        if method in WRITES:
            statuses.append("403")  # a read-only token
        if method in BODIES:
            statuses.append("415")
        if any(p.get("name") == "If-Match" for p in operation.get("parameters", [])):
            statuses.append("412")
        if any(p.get("name") == "If-None-Match" for p in operation.get("parameters", [])):
            ok = operation["responses"].get("200", {}).get("headers", {})
            operation["responses"].setdefault(
                "304",
                {
                    "description": "Not modified: the `ETag` sent is current.",
                    "headers": {k: v for k, v in ok.items() if k in ("ETag", "Cache-Control")},
                },
            )
        if method in WRITES and path.startswith("/api/v1/campaigns/"):
            statuses += ["409", "404"]  # see dbd_site.errors.HTTP_STATUS
        responses = operation["responses"]
        for status in statuses:
            responses.setdefault(status, {"description": DESCRIPTIONS[status]})
        for status, response in responses.items():
            if int(status) >= 400:
                response["content"] = error_content
                response.setdefault("description", DESCRIPTIONS.get(status, "Refused."))
            if status == "201":
                response.setdefault("headers", {})["Location"] = LOCATION
        if "requestBody" in operation:
            operation["requestBody"]["required"] = True
    result = _one_error_model(_null_as_type(result))
    _drop_unused_components(result)
    return result
