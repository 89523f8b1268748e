"""The profile page: the user's role and personal API tokens (shown once)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.types import AuthedRequest
from core.validation import text_problem

from .tokens import token_create, token_revoke


@require_http_methods(["GET", "POST"])
def profile(request: AuthedRequest) -> HttpResponse:
    new_token, status = None, 200
    if request.method == "POST":
        name = request.POST.get("name", "")
        if (problem := text_problem(name)) is not None:  # a control character listed as a token's name
            messages.error(request, f"No token made: its name {problem}")
            status = 400
        else:
            _, new_token = token_create(user=request.user, name=name)
    tokens = request.user.api_tokens.all()
    response = render(request, "accounts/profile.html", {"tokens": tokens, "new_token": new_token}, status=status)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def token_delete(request: AuthedRequest, token_id: int) -> HttpResponse:
    if token_revoke(user=request.user, token_id=token_id):
        messages.success(request, "Token revoked.")
    return redirect("accounts:profile")
