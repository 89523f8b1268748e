"""Errors users can cause in benchmarks: (field, message) pairs, 400. A kind
of ``PlacementError``, since a record names placement's models and groups
(and those lookups raise ``PlacementError``): one ``except`` catches both."""

from __future__ import annotations

from placement.errors import PlacementError


class BenchmarkError(PlacementError):
    pass
