"""Errors users can cause in placement: (field, message) pairs.

A subclass of the inventory's error so the API root answers it the same way
(400, ``{"message", "errors": [{"path", "message"}]}``) without new handlers.
"""
from __future__ import annotations

from inventory.errors import InventoryError


class PlacementError(InventoryError):
    @property
    def text(self) -> str:
        """The messages without their field names (for a page's message bar)."""
        return "; ".join(message for _, message in self.errors)

    def onto(self, field: str) -> PlacementError:
        """The same errors with ``field.sub`` paths folded onto ``field`` (a form's
        file input), the sub-path kept in the message: "file: mean_ttft_ms: ..."."""
        folded = []
        for path, message in self.errors:
            head, dot, rest = path.partition(".")
            folded.append((field, f"{rest}: {message}") if head == field and dot else (path, message))
        return PlacementError(folded)
