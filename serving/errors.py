"""The errors serving raises (``core.errors`` kinds: the API answers each in the one envelope)."""

from __future__ import annotations

from core import errors


class ServingError(errors.BadInput):
    """A bad request (400), naming the field."""


class ServingRefused(errors.Conflict):
    """The fleet's state refuses it now (409): busy, down or drifting Sparks."""


class ServingForbidden(errors.Forbidden):
    """Not this person's booking, nor a lab admin (403)."""
