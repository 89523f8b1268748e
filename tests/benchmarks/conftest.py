"""Fixtures for the benchmarks Django tests: placement's (the demo lab by
group kind, a stand-in module)."""

from tests.placement.conftest import demo, fake_module

__all__ = ["demo", "fake_module"]
