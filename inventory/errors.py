"""The inventory's errors: bad input to a write (400) and a missing object
(404), both on the ground floor's error base (``core.errors``)."""

from __future__ import annotations

from core import errors


class InventoryError(errors.BadInput):
    """Bad input. ``errors`` holds (path, message) pairs: a form field name
    (``name``, ``ssh_host``) or a document path (``cables[2].ends[1]``)."""


class NotFound(InventoryError, errors.NotFound):
    """A named Spark, switch, cable or group does not exist (404). Still an
    ``InventoryError``: a batch (an import) reports it at its place like any other."""

    status = 404
    prefix = ""


class Held(InventoryError, errors.Conflict):
    """A Spark something still holds (a booking that has not ended) is not
    deleted (409); in an import it is reported at its place like any other."""

    status = 409
    prefix = "the request was not applied: "
