"""Settings of the fabric app (Django settings, else the environment, else the default)."""

from __future__ import annotations

from core.config import number, read_at_start, setting, whole
from telemetry.conf import mgmt_iface

from .command import VerifySettings


@read_at_start
def verify_settings() -> VerifySettings:
    d = VerifySettings()
    return VerifySettings(
        mgmt_iface=mgmt_iface(),
        all_gather=setting("FLEET_NCCL_TESTS_ALL_GATHER", d.all_gather, str),
        nccl_home=setting("FLEET_NCCL_HOME", d.nccl_home, str),
        mpi_home=setting("FLEET_MPI_HOME", d.mpi_home, str),
        cuda_home=setting("FLEET_CUDA_HOME", d.cuda_home, str),
        timeout_s=setting("FLEET_VERIFY_TIMEOUT_S", d.timeout_s, whole(1, 24 * 3600)),
    )


@read_at_start
def grace_s() -> float:
    """How long past the head node's own timeout the SSH read waits (the
    remote `timeout` should end the run first; this catches a head that hangs)."""
    return setting("FLEET_VERIFY_GRACE_S", 30.0, number(0, above=True))
