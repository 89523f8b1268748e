"""The edge for pages and the API: a path or query string holding a NUL or
another control character is refused with 400 before any view runs
(PostgreSQL text cannot hold NUL; no name, filter or date the app knows
contains one), a body is read whole or refused (``ReadWholeBody``); and the
one way a page answers a ``FleetError`` its view lets out (``FleetErrorPages``)."""

from __future__ import annotations

import io
from collections.abc import Callable
from urllib.parse import unquote

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from .errors import FleetError, Forbidden, NotFound, envelope
from .validation import text_problem, whole_number


class RefuseControlCharacters:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = _problem(request)
        if problem is None:
            return self.get_response(request)
        where, message = problem
        return refusal(request, 400, where, message)


def _problem(request: HttpRequest) -> tuple[str, str] | None:
    path_problem = text_problem(request.path)
    if path_problem:
        return "path", path_problem
    for key, values in request.GET.lists():
        for value in (key, *values):
            problem = text_problem(value)
            if problem:
                return f"query.{key[:40]}", problem
    raw = unquote(request.META.get("QUERY_STRING", ""))
    raw_problem = text_problem(raw)
    if raw_problem:
        return "query", raw_problem
    return None


class RefuseNulInForms:
    """A page form's fields (a urlencoded or multipart body; not its files)
    hold no NUL: refused with 400 naming the field, as a NUL in the path or
    query is. PostgreSQL cannot store NUL in text, and a view that looks a
    posted value up before its form checks it (a cable's type, a booking's
    group, a subgroup's Sparks) turned one into a 500. Other control
    characters are left to the forms, which show the error beside the field.
    After ``ReadWholeBody``, which reads a chunked body first; JSON bodies
    (the API) are checked by their schemas."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type in FORM_TYPES and request.path.startswith("/api/"):
            # The API reads JSON alone: a form body read here as one could not be read as JSON after
            # (Django reads a body once), which answered 500. An empty form, or a multipart one without
            # a part (a client's POST with no data), is no body at all. ``request.body`` keeps what it read.
            body = request.body
            if body.strip() and (request.content_type != FORM_TYPES[1] or b"content-disposition" in body.lower()):
                return refusal(
                    request,
                    415,
                    "body",
                    f"the API reads JSON, not {request.content_type}: send Content-Type: application/json",
                )
            return self.get_response(request)
        if request.method == "POST" and request.content_type in FORM_TYPES:
            for key, values in request.POST.lists():
                if any("\x00" in value for value in (key, *values)):
                    return refusal(request, 400, f"form.{key[:40]}", "contains a NUL byte; remove it")
        return self.get_response(request)


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class ReadWholeBody:
    """A request body is read whole whatever its framing, or refused clearly.

    Django reads ``Content-Length`` bytes and nothing else, so a body sent
    with ``Transfer-Encoding: chunked`` (no length) reads as empty: an import
    would see an empty document. Behind a server that decodes chunked bodies
    and ends the stream (gunicorn sets ``wsgi.input_terminated``) the body is
    read here, up to the limit; a server that cannot (the development server)
    answers 411. A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused with
    413 before it is read, in the API's JSON shape on ``/api/``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        meta = request.META
        if "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
            environ = getattr(request, "environ", {})
            if not environ.get("wsgi.input_terminated"):
                return refusal(request, 411, "body", "this server cannot read a chunked body: send a Content-Length")
            data = environ["wsgi.input"].read(limit + 1)
            if len(data) > limit:
                return refusal(request, 413, "body", f"the body is over {limit:,} bytes; the limit is {limit:,} bytes")
            request._stream = io.BytesIO(data)
            meta["CONTENT_LENGTH"] = str(len(data))
            return self.get_response(request)
        declared = meta.get("CONTENT_LENGTH") or "0"
        length = whole_number(declared)
        if length is None:
            return refusal(request, 400, "body", f"Content-Length {declared[:40]!r} is not a number of bytes")
        if length > limit:
            return refusal(request, 413, "body", f"the body is {length:,} bytes; the limit is {limit:,} bytes")
        return self.get_response(request)


class ApiMethods:
    """On ``/api/``, a method an address does not take is answered in the API's
    JSON error shape with its ``Allow`` header (django-ninja answered 405 as
    plain text), and HEAD is taken wherever GET is, as HTTP asks: the GET's
    headers without its body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or not request.path.startswith("/api/"):
            return response
        allowed = [m.strip() for m in response.get("Allow", "").split(",") if m.strip()]
        if request.method == "HEAD" and "GET" in allowed:
            request.method = "GET"
            got = self.get_response(request)
            got.content = b""
            return got
        if request.method == "HEAD" or response.get("Content-Type", "").startswith("application/json"):
            return response
        answer = refusal(
            request, 405, "method", f"{request.method} is not taken here; {', '.join(allowed) or 'nothing'} is"
        )
        answer["Allow"] = ", ".join(allowed)
        return answer


def refusal(request: HttpRequest, status: int, where: str, message: str) -> HttpResponse:
    """A refused request: the API's JSON error shape on ``/api/``, a line of text elsewhere."""
    if request.path.startswith("/api/"):
        body = envelope(f"the request was not applied: {where}: {message}", [(where, message)])
        return JsonResponse(body, status=status)
    text = f"Refused: {where}: {message}.\n"
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")


class FleetErrorPages:
    """A page's view lets a ``FleetError`` out instead of translating it: a
    ``NotFound`` (a getter's miss) becomes the 404 page, a ``Forbidden`` the
    403 page, any other its own status with its message. The API answers
    these itself (``fleet.api``), so ``/api/`` is left alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, FleetError) or request.path.startswith("/api/"):
            return None
        if isinstance(exception, NotFound):
            raise Http404(exception.text) from exception
        template = "403.html" if isinstance(exception, Forbidden) else "error.html"
        context = {
            "need": exception.text,
            "message": exception.text,
            "status": exception.status,
            "wrote": request.method not in ("GET", "HEAD"),  # a read changes nothing to begin with
        }
        return render(request, template, context, status=exception.status)
