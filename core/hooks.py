"""The one way a higher floor extends a lower one without the lower one
importing it: the lower app declares a ``Hook`` (a named, typed list of
callables) in its own module, and the higher app adds its callable from its
``AppConfig.ready``. Imports keep pointing downwards; the call goes up.

    # topology/services.py (the lower floor declares it)
    GROUP_FINDINGS: Hook[GroupFindings] = Hook("topology.group_findings")
    # bookings/apps.py (a higher floor adds to it, once)
    GROUP_FINDINGS.add(busy_findings)
    # the lower floor asks every entry
    for provider in GROUP_FINDINGS: ...

Adding the same callable twice keeps one entry (``ready`` may run again in
tests). Tests add or swap entries for the length of a block with
``hook.added(fn)`` / ``hook.replaced(fn, ...)``, which restore what was there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Hook(Generic[F]):
    """A named extension point: callables kept in ``order`` (lower first)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._entries: list[tuple[int, F]] = []
        self.version = 0  # bumps on every change, for readers that cache what the entries give

    def _set(self, entries: list[tuple[int, F]]) -> None:
        self._entries = sorted(entries, key=lambda entry: entry[0])
        self.version += 1

    def add(self, fn: F, *, order: int = 50) -> F:
        """Add ``fn`` (once: a second add of the same callable changes nothing)."""
        if fn not in self:
            self._set([*self._entries, (order, fn)])
        return fn

    def first(self) -> F | None:
        """The first entry (a hook one app fills: the reader of the one state), or None."""
        return self._entries[0][1] if self._entries else None

    def __iter__(self) -> Iterator[F]:
        return iter([fn for _, fn in self._entries])

    def __contains__(self, fn: object) -> bool:
        return any(entry is fn for _, entry in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Hook({self.name!r}, {len(self)} entries)"

    @contextmanager
    def added(self, fn: F, *, order: int = 50) -> Iterator[F]:
        """``fn`` added for the length of the block (tests)."""
        saved = list(self._entries)
        self.add(fn, order=order)
        try:
            yield fn
        finally:
            self._set(saved)

    @contextmanager
    def replaced(self, *fns: F) -> Iterator[None]:
        """Only ``fns`` (none: an empty hook) for the length of the block (tests)."""
        saved = list(self._entries)
        self._set([(50, fn) for fn in fns])
        try:
            yield
        finally:
            self._set(saved)
