"""Errors users can cause in placement: (field, message) pairs, on the
ground floor's error base (400; the API root answers every one the same way)."""

from __future__ import annotations

from core.errors import BadInput


class PlacementError(BadInput):
    def onto(self, field: str) -> PlacementError:
        """The same errors with ``field.sub`` paths folded onto ``field`` (a form's
        file input), the sub-path kept in the message: "file: mean_ttft_ms: ..."."""
        folded = []
        for path, message in self.errors:
            head, dot, rest = path.partition(".")
            folded.append((field, f"{rest}: {message}") if head == field and dot else (path, message))
        return PlacementError(folded)
