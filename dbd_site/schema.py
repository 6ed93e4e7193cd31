"""OpenAPI post-processing: what every operation shares, said once.

Any operation that reads credentials can meet a bad token (401), any the throttle (429),
and any with a path parameter a missing object (404); all answer in the one error shape,
with the rate-limit headers (`HEADERS`). The hooks here also make the document one that
strict JSON Schema 2020-12 and client generators read the same way (issue #32): `null`
is a type (`type: [..., "null"]`, not 3.0's `nullable`), every refusal is the one
`ErrorList` model, every 201 declares its `Location`, every request body is required,
and components no operation names are dropped.

Error codes (docs/api-errors.md, "Which codes an operation answers"): the one
`ErrorCode` enum lists every declared code (`dbd_site.errors.declared_codes`), and each
operation's refusals narrow it, per status, to the codes that operation may answer: the
groups its view names (`answers`, next to the view), the ones its pipeline brings
(`@idempotent`, a request serializer, a list's paginator, its authentication: a bad
token, a read-only token or a session without its CSRF token on a write), and the ones
every operation may meet (the throttle, a missing object at a path parameter, ...), each
under the status of its kind (`dbd_site.errors.HTTP_STATUS`).
"""

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from drf_spectacular import openapi
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication

from dbd_site import inputs
from dbd_site.api_codes import CODES as REQUEST_CODES
from dbd_site.api_codes import PERMISSION_CODES, UNAUTHENTICATED_CODES, serializer_codes
from dbd_site.error_docs import load_every_declaring_module
from dbd_site.errors import (
    DOMAIN_KINDS,
    HTTP_STATUS,
    INPUT_CODES,
    NOT_FOUND_CODES,
    PRECONDITION_CODES,
    Codes,
    Kind,
    codes_of,
    declared_codes,
)

V = TypeVar("V")
# Where the groups an operation may answer are kept: on its view class or its handler.
CODES_ATTRIBUTE = "error_codes"
# Kept on the operation while the document is built; the hook turns it into the enums.
CODES_KEY = "x-error-codes"


# A group of codes, or a function giving groups known only once every app is ready (the
# policies other apps register for the roster's forces: `roster.policy.policy_codes`).
Answers = Codes | Callable[[], Iterable[Codes]]


def answers(*groups: Answers) -> Callable[[V], V]:
    """Say, next to a view (its class, a handler method, or an `@api_view` function, put
    above the decorator), which declared codes it may answer besides the common ones: the
    groups `declare_codes` returned, or some of one (`Codes.only`). The schema lists them
    on the operation's refusals, each under its kind's status."""

    def mark(view: V) -> V:
        target = getattr(view, "cls", view)  # an `@api_view` function's view class
        setattr(target, CODES_ATTRIBUTE, (*getattr(target, CODES_ATTRIBUTE, ()), *groups))
        return view

    return mark


def _by_status(groups: Iterable[Answers]) -> dict[str, set[str]]:
    statuses: dict[str, set[str]] = {}
    for named in groups:
        for group in [named] if isinstance(named, Codes) else named():
            statuses.setdefault(str(HTTP_STATUS[group.kind]), set()).update(group)
    return statuses


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

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        """The operation, with the codes its view and pipeline may answer (`CODES_KEY`,
        per status; the hook adds the common ones and turns them into the enums)."""
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        # A viewset's handler is its action (`list`, `retrieve`), not the method's name.
        handler = getattr(self.view, getattr(self.view, "action", None) or method.lower(), None)
        groups: list[Answers] = [
            *getattr(self.view, CODES_ATTRIBUTE, ()),
            *getattr(handler, CODES_ATTRIBUTE, ()),
            *self._authentication_codes(method.lower()),
        ]
        paginator = getattr(self.view, "pagination_class", None)
        if paginator is not None and method.lower() == "get" and self._is_list_view():
            groups += getattr(paginator, "error_codes", ())
        body = self.get_request_serializer() if method.lower() in BODIES else None
        if isinstance(body, serializers.BaseSerializer) or (
            isinstance(body, type) and issubclass(body, serializers.BaseSerializer)
        ):
            groups.append(serializer_codes)  # its fields' codes (required, null, ...)
        operation[CODES_KEY] = {k: sorted(v) for k, v in _by_status(groups).items()}
        return operation

    def _authentication_codes(self, method: str) -> list[Answers]:
        """What the view's authentication may refuse: a bad token (401); on a write, a
        read-only token (`write_error_codes`, accounts.authentication) and a session
        without its CSRF token, which DRF refuses with 403 `permission-denied` (its views
        are exempt from Django's own check, whose `csrf-failed` is for the site's other
        views under /api/). A view that reads no credentials answers none of them."""
        authenticators = list(getattr(self.view, "authentication_classes", ()))
        groups: list[Answers] = [UNAUTHENTICATED_CODES] if authenticators else []
        for authenticator in authenticators if method in WRITES else []:
            groups += getattr(authenticator, "write_error_codes", ())
            if issubclass(authenticator, SessionAuthentication):
                groups.append(PERMISSION_CODES)
        return groups

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
    """The one error model; its codes are the declared ones, so a new code shows here.
    Open to keys added later, as every answer is (docs/api.md): a client must tolerate
    them."""
    return {
        "ErrorCode": {
            "type": "string",
            "title": "ErrorCode",
            "enum": list(declared_codes()),
            "description": "A stable code: what the refusal is about (docs/api-errors.md). "
            "Every code is here; each operation's refusals list, per status, the ones it "
            "answers.",
        },
        "Error": {
            "type": "object",
            "title": "Error",
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


def etag_header(description: str, *, statuses: Iterable[int] = (200, 201)) -> OpenApiParameter:
    """The `ETag` an operation's answers carry, with what its version covers: one shape
    for every API object's tag (strong, as `dbd_site.preconditions` makes them)."""
    return OpenApiParameter(
        "ETag",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=list(statuses),
        description=description,
    )


LOCATION = {
    "description": "The address of what was made (or of what shows it).",
    "schema": {"type": "string", "format": "uri"},
}
# What `dbd_site.throttles.ApiRateLimitMiddleware` sends on every answer under /api/, and
# what a 429 or a 503 (`dbd_site.health`) adds: declared once, named by every response.
_SECONDS = {"type": "integer", "minimum": 1}
HEADERS = {
    "RateLimit-Limit": {
        "description": "Requests allowed in the current window (per user when signed in, "
        "else per client address).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Remaining": {
        "description": "Requests left in the current window.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Reset": {
        "description": "Seconds until the current window ends.",
        "schema": _SECONDS,
    },
    "Retry-After": {
        "description": "Seconds to wait before trying again (a 429, or a 503 while the "
        "database or the cache is out of reach).",
        "schema": _SECONDS,
    },
}
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


def _header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def _declare_headers(status: str, response: dict[str, Any]) -> None:
    """The rate-limit headers on every answer, `Retry-After` on a 429 or a 503."""
    headers = response.setdefault("headers", {})
    for name in RATE_LIMIT_HEADERS:
        headers[name] = _header_ref(name)
    if status in ("429", "503"):
        headers["Retry-After"] = _header_ref("Retry-After")


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


def _common_codes(path: str, method: str, operation: dict[str, Any]) -> list[Codes]:
    """What any operation like this one may meet, whatever its view says."""
    groups = [REQUEST_CODES, inputs.CODES.only("bad-character")]  # a forged Host, a NUL
    if "{" in path:
        groups.append(NOT_FOUND_CODES)
    if method in BODIES:
        groups += [inputs.CODES, INPUT_CODES]  # the JSON parser, unknown keys
    if any(p.get("name") == "If-Match" for p in operation.get("parameters", [])):
        groups.append(PRECONDITION_CODES)
    return groups


def _codes(path: str, method: str, operation: dict[str, Any]) -> dict[str, list[str]]:
    """Per status, every code this operation may answer: its own and the common ones."""
    statuses = _by_status(_common_codes(path, method, operation))
    for status, codes in operation.pop(CODES_KEY, {}).items():
        statuses.setdefault(status, set()).update(codes)
    # Answered around every view (401 comes from the view's authentication, above).
    for kind in set(Kind) - DOMAIN_KINDS - {Kind.UNAUTHENTICATED}:
        statuses.setdefault(str(HTTP_STATUS[kind]), set()).update(codes_of(kind))
    if method not in BODIES:
        statuses.pop("415", None)
    # In order of status: the schema is the same document on every run (a set of kinds
    # above iterates in an order of its own), so tools can diff it.
    return {status: sorted(codes) for status, codes in sorted(statuses.items()) if codes}


def error_content(codes: list[str]) -> dict[str, Any]:
    """The one error model, its `code` narrowed to these codes (a `$ref` with siblings, as
    JSON Schema 2020-12 reads it: a generator keeps the one model and its `ErrorCode`)."""
    narrowed = {"errors": {"items": {"properties": {"code": {"enum": codes}}}}}
    return {"application/json": {"schema": {**ERROR_REF, "properties": narrowed}}}


def add_common_error_responses(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """Every refusal an operation can answer, in the one error model; see the module."""
    load_every_declaring_module()  # the middleware's codes too, before any request
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(error_components())
    result["components"].setdefault("headers", {}).update(HEADERS)
    unnamed: list[str] = []
    for path, method, operation in _operations(result):
        codes = _codes(path, method, operation)
        if any(p.get("name") == "If-None-Match" for p in operation.get("parameters", [])):
            ok = operation["responses"].get("200", {}).get("headers", {})
            operation["responses"].setdefault(
                "304",
                {
                    "description": "Not modified: the `ETag` sent is current.",
                    "headers": {k: v for k, v in ok.items() if k in ("ETag", "Cache-Control")},
                },
            )
        responses = operation["responses"]
        for status in codes:
            responses.setdefault(status, {"description": DESCRIPTIONS[status]})
        for status, response in responses.items():
            if int(status) >= 400:
                if status not in codes:
                    unnamed.append(f"{method.upper()} {path} {status}")
                    continue
                response["content"] = error_content(codes[status])
                response.setdefault("description", DESCRIPTIONS.get(status, "Refused."))
            if status == "201":
                response.setdefault("headers", {})["Location"] = LOCATION
            _declare_headers(status, response)
        if "requestBody" in operation:
            operation["requestBody"]["required"] = True
    if unnamed:  # a refusal listed with no code: its view names none (`answers`)
        raise ValueError("Statuses listed with no code named for them: " + ", ".join(unnamed))
    result = _one_error_model(_null_as_type(result))
    _drop_unused_components(result)
    return result
