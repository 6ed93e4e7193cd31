"""Every answer the API tests receive, checked against the published schema (issue #32).

`tests/conftest.py` hooks `check_answer` into Django's test client (the API client is
one), so any test that calls `/api/v1/` also proves the schema right about the answer:
its status is one the operation lists, its body holds under strict JSON Schema 2020-12
(formats checked; 1.0 is not an integer; no key the schema does not name; a refusal's
code is one its operation lists for that status), a 201 says where (`Location`), the
`Location` and `ETag` headers it sends are ones the schema declares, and a success the
schema says carries an `ETag` carries one.
"""

import gzip
import re
from functools import cache
from typing import Any

import brotli
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator, validators
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

API = "/api/v1/"
BASE = "urn:dbd-api"
# Headers a tool reads; sent, each must be declared on the answer.
DECLARED_HEADERS = (
    "Location",
    "ETag",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)

_StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int
    ),
)


@cache
def published_schema() -> dict[str, Any]:
    """The OpenAPI document `/api/schema/` serves, built in-process once."""
    return SchemaGenerator().get_schema(request=None, public=True)


def _no_extra_keys(node: Any) -> Any:
    """`node` with `unevaluatedProperties: false` in each object schema that lists its
    properties and says nothing of others: an answer then holds only if the schema names
    every key it sends. For the tests only: the published schema leaves answers open, so
    that a client tolerates keys added later (docs/api.md)."""
    if isinstance(node, list):
        return [_no_extra_keys(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _no_extra_keys(value) for key, value in node.items()}
    types = node.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    open_ended = "additionalProperties" in node or "unevaluatedProperties" in node
    if is_object and "properties" in node and not open_ended:
        node["unevaluatedProperties"] = False
    return node


@cache
def _registry() -> Registry:
    strict = _no_extra_keys(published_schema())
    return Registry().with_resource(BASE, Resource(contents=strict, specification=DRAFT202012))


@cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    routes = []
    for template in published_schema()["paths"]:
        pattern = re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template))
        routes.append((re.compile(f"^{pattern}$"), template))
    # Fixed paths first (`/battles/invitations/` before `/battles/{battle_id}/`).
    routes.sort(key=lambda route: route[1].count("{"))
    return routes


def operation_for(path: str, method: str) -> tuple[str, dict[str, Any]] | None:
    paths = published_schema()["paths"]
    for pattern, template in _routes():
        if pattern.match(path) and method.lower() in paths[template]:
            return template, paths[template][method.lower()]
    for pattern, template in _routes():  # a skill's key holds a slash
        loose = re.compile(pattern.pattern.replace("[^/]+", ".+"))
        if loose.match(path) and method.lower() in paths[template]:
            return template, paths[template][method.lower()]
    return None


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


@cache
def _validator(pointer: str) -> Draft202012Validator:
    return _StrictValidator(
        {"$ref": f"{BASE}#{pointer}"},
        registry=_registry(),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def problems_with(path: str, method: str, status: int, headers: Any, body: bytes) -> list[str]:
    """What about this answer the schema does not say (empty: it holds)."""
    import json

    found = operation_for(path, "GET" if method == "HEAD" else method)  # HEAD: GET, no body
    error_list = "/components/schemas/ErrorList"
    if found is None:
        if status >= 400:  # no such address or method: the error shape still holds
            return [e.message for e in _validator(error_list).iter_errors(json.loads(body))]
        return [f"{method} {path}: no operation in the schema"]
    template, operation = found
    where = f"{method} {template} {status}"
    response = operation["responses"].get(str(status))
    if response is None:
        return [f"{where}: the status is not listed"]
    problems = []
    for header in DECLARED_HEADERS:
        if header in headers and header not in response.get("headers", {}):
            problems.append(f"{where}: {header} sent, not declared")
    if status == 201 and "Location" not in headers:
        problems.append(f"{where}: a 201 without Location")
    if 200 <= status < 300 and "ETag" in response.get("headers", {}) and "ETag" not in headers:
        problems.append(f"{where}: ETag declared, not sent")
    content = response.get("content", {})
    if not body:
        if content and method != "HEAD":
            problems.append(f"{where}: no body, where the schema says one")
        return problems
    media = headers.get("Content-Type", "").split(";")[0].strip()
    if media != "application/json":
        return problems  # the browsable API's page, for people
    if "application/json" not in content:
        return [*problems, f"{where}: a JSON body, where the schema says none"]
    pointer = "/".join(
        [
            "/paths",
            _escape(template),
            method.lower(),
            "responses",
            str(status),
            "content",
            _escape("application/json"),
            "schema",
        ]
    )
    for error in _validator(pointer).iter_errors(json.loads(body)):
        at = "/" + "/".join(str(p) for p in error.absolute_path)
        problems.append(f"{where}: at {at}: {error.message[:300]}")
    return problems


def check_answer(response: Any) -> None:
    """Fail the test when an API answer breaks its schema."""
    request = response.wsgi_request
    if not request.path.startswith(API) or getattr(response, "streaming", False):
        return
    if request.method == "OPTIONS":  # CORS's preflight: answered before any operation
        return
    body = response.content
    encoding = response.get("Content-Encoding", "")
    if encoding == "gzip":
        body = gzip.decompress(body)
    elif encoding == "br":
        body = brotli.decompress(body)
    problems = problems_with(request.path, request.method, response.status_code, response, body)
    assert not problems, "The answer breaks the published schema:\n" + "\n".join(problems)
