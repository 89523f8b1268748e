"""The edge for pages: a path or query string holding a NUL or another
control character is refused with 400 before any view runs (PostgreSQL text
cannot hold NUL; no name, filter or date the app knows contains one)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse, JsonResponse

from .validation import text_problem


class RefuseControlCharacters:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = _problem(request)
        if problem is None:
            return self.get_response(request)
        where, message = problem
        if request.path.startswith("/api/"):
            body = {
                "message": f"the request was not applied: {where}: {message}",
                "errors": [{"path": where, "message": message}],
            }
            return JsonResponse(body, status=400)
        return HttpResponse(f"Bad request: {where} {message}.\n", status=400, content_type="text/plain; charset=utf-8")


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
