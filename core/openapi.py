"""An honest /api/openapi.json: every operation lists the errors it can
answer with, in the one error shape, and JSON bodies are parsed with a
depth limit.

Which errors an operation can answer follows from how it is declared, the
same rules the API root applies:

- 401, 403 and 429: it needs a signed-in user (every operation: ``auth=`` on
  the root), and a wrong token repeated, or many from one address, are paused
  (a valid token never is);
- 503: the database or the task queue is unavailable (with Retry-After);
- 422: it takes parameters or a body (the schema's own constraints);
- 400: any parameter, path or body (control characters, bad JSON, a rule of
  the service);
- 404: it names an object in its path;
- 409: it writes (the request clashes with what is stored);
- 411 and 413: it writes (a chunked body the server cannot read, a body over
  the size limit; ``/api/import`` also has its document limit).
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest
from ninja import NinjaAPI
from ninja.parser import Parser

from .errors import BadInput
from .validation import MAX_JSON_DEPTH, json_too_deep

ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "what went wrong, for people"},
        "errors": {
            "type": "array",
            "description": "each problem with its place: a field, a query or path parameter, or a document path",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
                "required": ["path", "message"],
            },
        },
    },
    "required": ["message", "errors"],
}
DESCRIPTIONS = {
    400: "Bad input: a rule of the service, a control character, bad JSON; nothing was changed",
    401: "Not signed in: send a personal API token as 'Authorization: Bearer <token>'",
    403: "The signed-in person's role does not allow this",
    404: "No such object",
    409: "The request clashes with what is stored; nothing was changed",
    411: "A chunked body this server cannot read: send it with a Content-Length",
    413: "The body is larger than the limit (a lab document: FLEET_IMPORT_MAX_BYTES)",
    422: "A field, query or path parameter breaks the schema (type, length, range); nothing was changed",
    429: "This wrong token, or wrong tokens from this address, are paused for a while (Retry-After); "
    "a valid token is never refused",
    503: "The database or the task queue is unavailable (Retry-After); nothing was changed",
}
WRITES = {"post", "put", "patch", "delete"}


def error_codes(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    codes = [400, 401, 403, 429, 503]
    if operation.get("parameters") or operation.get("requestBody") or method in WRITES:
        codes.append(422)
    if "{" in path:
        codes.append(404)
    if method in WRITES:
        codes += [409, 411, 413]
    return sorted(codes)


def declare_errors(schema: dict[str, Any]) -> dict[str, Any]:
    schema.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    ref = {"$ref": "#/components/schemas/Error"}
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code in error_codes(path, method, operation):
                responses.setdefault(
                    str(code), {"description": DESCRIPTIONS[code], "content": {"application/json": {"schema": ref}}}
                )
    return schema


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


# Where a body that could not be read says why: django-ninja answers any
# parser failure with a bare "Cannot parse request body"; the API's 400 adds this.
BODY_ERROR = "fleet_body_error"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else "a number"


class EdgeParser(Parser):
    """JSON bodies nested deeper than ``MAX_JSON_DEPTH`` are refused before
    parsing (the lab document's YAML path has the same limit), and so are
    Python's extensions to JSON (NaN, Infinity, -Infinity), which no column
    or JSON column of the database takes. Why is kept on the request."""

    def parse_querydict(self, data: Any, list_fields: list[str], request: HttpRequest) -> Any:
        """A query parameter that takes one value, given twice with different
        values, is refused (400): django-ninja kept the last one silently, so
        ``nodes=a&nodes=b`` checked b alone."""
        for key in data.keys():
            values = data.getlist(key)
            if key not in list_fields and len(set(values)) > 1:
                raise BadInput(f"{key} is given {len(values)} times; give it once", key)
        return super().parse_querydict(data, list_fields, request)

    def parse_body(self, request: HttpRequest) -> Any:
        try:
            if json_too_deep(request.body):
                raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
            data = json.loads(request.body, parse_constant=_no_constant)
            if not isinstance(data, dict):
                # django-ninja read [], null, "x" or 1 as {} where every field has a default
                # (POST /api/designs then said "0 Sparks in all")
                raise ValueError(f"the body must be a JSON object ({{...}}), not {_json_kind(data)}")
            return data
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            setattr(request, BODY_ERROR, str(exc))
            raise


class FleetAPI(NinjaAPI):
    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        return declare_errors(super().get_openapi_schema(*args, **kwargs))
