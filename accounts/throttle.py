"""Sign-in throttling with django-axes.

The login page and the admin sign in through ``authenticate(request, ...)``,
which this backend checks first: a username and address cooling off are
refused even with the right password. Code that authenticates without a
request (a shell, Django's test client ``login()``) has no address to count
and is left to the next backend.
"""
from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend


class ThrottledSignIn(AxesStandaloneBackend):
    def authenticate(self, request: Any, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
