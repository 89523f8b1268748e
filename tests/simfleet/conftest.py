"""The simulated fleet's tests use telemetry's fixtures: a real client key
and a real fleet of asyncssh servers on 127.0.0.1."""

from tests.telemetry.conftest import client_key, run_fleet

__all__ = ["client_key", "run_fleet"]
