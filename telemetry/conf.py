"""Telemetry settings with their defaults, read from Django settings first
(tests override them there) and the environment second (``core.config``).

Only the *path* of the fleet's private SSH key is configuration; the key
itself never enters the database, a page or a log line.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from core.config import as_bool, setting
from telemetry.software import as_image_tag


def poll_interval_s() -> int:
    return max(5, int(setting("FLEET_POLL_INTERVAL_S", 30, int)))


def connect_timeout_s() -> float:
    return float(setting("FLEET_CONNECT_TIMEOUT_S", 5.0, float))


def command_timeout_s() -> float:
    return float(setting("FLEET_COMMAND_TIMEOUT_S", 10.0, float))


def max_output_bytes() -> int:
    # A real answer is ~20 kB; a megabyte leaves room for big LLDP tables.
    return int(setting("FLEET_MAX_OUTPUT_BYTES", 1_000_000, int))


def pool_connections() -> bool:
    """Workers keep each node's SSH connection open between polls (FLEET_SSH_POOL)."""
    return bool(setting("FLEET_SSH_POOL", True, as_bool))


def ssh_concurrency() -> int:
    """SSH polls in flight per worker process (FLEET_SSH_CONCURRENCY)."""
    return max(1, int(setting("FLEET_SSH_CONCURRENCY", 64, int)))


def connect_spread() -> float:
    """Share of the poll interval over which a round's NEW connections (key
    exchanges) are spread (FLEET_CONNECT_SPREAD, 0 to 0.9; 0 = all at once)."""
    return min(0.9, max(0.0, float(setting("FLEET_CONNECT_SPREAD", 0.5, float))))


def poll_shards() -> int:
    """FLEET_POLL_SHARDS: 0 (default) sends every chunk to the default queue, where
    any worker process takes it. N > 0 sends chunk k to queue ``telemetry.poll.<k mod N>``
    every round, so the process consuming that queue keeps its SSH connections
    to the same Sparks (start N single-process workers, one per queue)."""
    return max(0, int(setting("FLEET_POLL_SHARDS", 0, int)))


def chunk_size() -> int:
    return max(1, int(setting("FLEET_POLL_CHUNK", 50, int)))


def raw_retention_h() -> float:
    return float(setting("FLEET_RAW_RETENTION_H", 48.0, float))


def aggregate_retention_d() -> float:
    return float(setting("FLEET_AGGREGATE_RETENTION_D", 90.0, float))


AGGREGATE_BUCKET_S = 300  # five-minute aggregates


def metrics_token() -> str:
    """The bearer token /metrics asks for: FLEET_METRICS_TOKEN, else the contents
    of the file FLEET_METRICS_TOKEN_FILE names (docker-compose's secret); empty:
    /metrics is open. A named file that cannot be read raises OSError: the
    endpoint then refuses everyone rather than opening up."""
    token = str(setting("FLEET_METRICS_TOKEN", "", str)).strip()
    if token:
        return token
    path = str(setting("FLEET_METRICS_TOKEN_FILE", "", str)).strip()
    return Path(path).read_text().strip() if path else ""


def ssh_key_path() -> Path:
    """FLEET_SSH_KEY, or var/fleet_ssh_key: where the poller's private key lives."""
    configured = str(setting("FLEET_SSH_KEY", "", str))
    return Path(configured) if configured else Path(settings.VAR_DIR) / "fleet_ssh_key"


def software_interval_s() -> int:
    """How often a Spark's software is read again (FLEET_SOFTWARE_INTERVAL_S,
    default an hour); a reboot (its uptime going back) makes it due at once."""
    return max(60, int(setting("FLEET_SOFTWARE_INTERVAL_S", 3600, int)))


# The launch image a software reading asks Docker about when FLEET_VLLM_IMAGE
# is not set: the vLLM launch's default (placement.launch.DEFAULT_VLLM_IMAGE).
DEFAULT_LAUNCH_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"


def launch_image() -> str:
    """FLEET_VLLM_IMAGE: the vLLM image the container launches, serving and (on a
    head without vllm) the benchmark client run, named by its tag; a build is
    pinned on the software page, never here (telemetry.software.as_image_tag)."""
    return setting("FLEET_VLLM_IMAGE", DEFAULT_LAUNCH_IMAGE, as_image_tag)


def launch_images() -> tuple[str, ...]:
    """The images the launchers name (FLEET_VLLM_IMAGE, the vLLM launch's image)."""
    return (launch_image(),)


def nccl_home() -> str:
    """FLEET_NCCL_HOME: the NCCL build the fabric verification and bare-metal launches use."""
    return str(setting("FLEET_NCCL_HOME", "$HOME/nccl/build", str)).strip() or "$HOME/nccl/build"
