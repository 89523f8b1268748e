"""Telemetry settings with their defaults, read from Django settings first
(tests override them there) and the environment second (``core.config``).

Only the *path* of the fleet's private SSH key is configuration; the key
itself never enters the database, a page or a log line.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from core.config import as_bool, number, read_at_start, setting, whole
from telemetry.software import as_image_tag


@read_at_start
def poll_interval_s() -> int:
    return max(5, setting("FLEET_POLL_INTERVAL_S", 30, whole(1)))


@read_at_start
def connect_timeout_s() -> float:
    return setting("FLEET_CONNECT_TIMEOUT_S", 5.0, number(0, above=True))


@read_at_start
def command_timeout_s() -> float:
    return setting("FLEET_COMMAND_TIMEOUT_S", 10.0, number(0, above=True))


@read_at_start
def max_output_bytes() -> int:
    # A real answer is ~20 kB; a megabyte leaves room for big LLDP tables.
    return setting("FLEET_MAX_OUTPUT_BYTES", 1_000_000, whole(1))


@read_at_start
def pool_connections() -> bool:
    """Workers keep each node's SSH connection open between polls (FLEET_SSH_POOL)."""
    return setting("FLEET_SSH_POOL", True, as_bool)


@read_at_start
def ssh_concurrency() -> int:
    """SSH polls in flight per worker process (FLEET_SSH_CONCURRENCY)."""
    return setting("FLEET_SSH_CONCURRENCY", 64, whole(1))


@read_at_start
def connect_spread() -> float:
    """Share of the poll interval over which a round's NEW connections (key
    exchanges) are spread (FLEET_CONNECT_SPREAD, 0 to 0.9; 0 = all at once)."""
    return min(0.9, setting("FLEET_CONNECT_SPREAD", 0.5, number(0)))


@read_at_start
def poll_shards() -> int:
    """FLEET_POLL_SHARDS: 0 (default) sends every chunk to the default queue, where
    any worker process takes it. N > 0 sends chunk k to queue ``telemetry.poll.<k mod N>``
    every round, so the process consuming that queue keeps its SSH connections
    to the same Sparks (start N single-process workers, one per queue)."""
    return setting("FLEET_POLL_SHARDS", 0, whole(0))


@read_at_start
def chunk_size() -> int:
    return setting("FLEET_POLL_CHUNK", 50, whole(1))


@read_at_start
def raw_retention_h() -> float:
    return setting("FLEET_RAW_RETENTION_H", 48.0, number(0, above=True))


@read_at_start
def aggregate_retention_d() -> float:
    return setting("FLEET_AGGREGATE_RETENTION_D", 90.0, number(0, above=True))


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


@read_at_start
def metrics_token_readable() -> None:
    """Start-up's reading of metrics_token: a named file that cannot be read
    stops start-up too (the endpoint itself then refuses every scrape)."""
    from django.core.exceptions import ImproperlyConfigured

    try:
        metrics_token()
    except OSError as exc:
        raise ImproperlyConfigured(
            f"FLEET_METRICS_TOKEN_FILE cannot be read ({exc.strerror}): /metrics would refuse every scrape"
        ) from None


@read_at_start
def ssh_key_path() -> Path:
    """FLEET_SSH_KEY, or var/fleet_ssh_key: where the poller's private key lives."""
    configured = str(setting("FLEET_SSH_KEY", "", str))
    return Path(configured) if configured else Path(settings.VAR_DIR) / "fleet_ssh_key"


@read_at_start
def software_interval_s() -> int:
    """How often a Spark's software is read again (FLEET_SOFTWARE_INTERVAL_S,
    default an hour); a reboot (its uptime going back) makes it due at once."""
    return max(60, setting("FLEET_SOFTWARE_INTERVAL_S", 3600, whole(1)))


# The launch image a software reading asks Docker about when FLEET_VLLM_IMAGE
# is not set: the vLLM launch's default (placement.launch.DEFAULT_VLLM_IMAGE).
DEFAULT_LAUNCH_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"


@read_at_start
def launch_image() -> str:
    """FLEET_VLLM_IMAGE: the vLLM image the container launches, serving and (on a
    head without vllm) the benchmark client run, named by its tag; a build is
    pinned on the software page, never here (telemetry.software.as_image_tag)."""
    return setting("FLEET_VLLM_IMAGE", DEFAULT_LAUNCH_IMAGE, as_image_tag)


@read_at_start
def launch_images() -> tuple[str, ...]:
    """The images the launchers name (FLEET_VLLM_IMAGE, the vLLM launch's image)."""
    return (launch_image(),)


@read_at_start
def nccl_home() -> str:
    """FLEET_NCCL_HOME: the NCCL build the fabric verification and bare-metal launches use."""
    return str(setting("FLEET_NCCL_HOME", "$HOME/nccl/build", str)).strip() or "$HOME/nccl/build"


DEFAULT_MGMT_IFACE = "enP7s7"


def as_interface_name(value: object) -> str:
    """A network interface name as Linux takes one: 1 to 15 printable
    characters, no space, slash or colon, not "." or ".."."""
    text = str(value).strip()
    if not 1 <= len(text) <= 15 or text in (".", "..") or any(not ("!" <= ch <= "~") or ch in "/:" for ch in text):
        raise ValueError("expected an interface name such as enP7s7 (1 to 15 characters, no space, / or :)")
    return text


@read_at_start
def mgmt_iface() -> str:
    """FLEET_MGMT_IFACE: the management interface, the same name on every node
    (enP7s7 wired, wlP9s9 on Wi-Fi): the launches' and the fabric verification's."""
    return setting("FLEET_MGMT_IFACE", DEFAULT_MGMT_IFACE, as_interface_name)
