"""Errors users can cause: a list of (where, what) pairs, never a traceback."""
from __future__ import annotations


class InventoryError(Exception):
    """Bad input. ``errors`` holds (path, message) pairs: a form field name
    (``name``, ``ssh_host``) or a document path (``cables[2].ends[1]``)."""

    def __init__(self, errors: list[tuple[str, str]] | str, path: str = "") -> None:
        if isinstance(errors, str):
            errors = [(path, errors)]
        self.errors = errors
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in errors))

    def as_list(self) -> list[dict[str, str]]:
        return [{"path": p, "message": m} for p, m in self.errors]


class NotFound(InventoryError):
    pass
