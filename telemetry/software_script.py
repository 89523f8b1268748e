"""The software sections a poll adds when a Spark's software is due.

Software changes rarely (an update, a rebuild, a pull), so the steady-state
poll (``POLL_SCRIPT``) does not read it: when a Spark is due (never read,
``FLEET_SOFTWARE_INTERVAL_S`` elapsed, or its uptime went back: a reboot),
the poller sends ``software_poll_script(...)`` instead, the same script with
these sections before its end marker, still one exec on one channel.

Every line is read-only and bounded: ``timeout`` around each tool that can
hang (nvidia-smi, docker, git), output heads, and ``2>/dev/null || true`` so
a missing tool prints an empty section. From /etc/dgx-release only the
release keys are printed, never its serial number. The two values taken from
the configuration (the NCCL build's folder, the launch images) are quoted;
nothing a user typed reaches this script. Parsed by ``telemetry.software``.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterable
from typing import Final

from telemetry.poll_script import END_SECTION, POLL_SCRIPT, marker
from telemetry.software import is_image_tag

SOFTWARE_SECTIONS: Final[tuple[str, ...]] = (
    "dgx_release",
    "kernel",
    "nvidia_smi",
    "nvidia_proc",
    "cx7_fw",
    "ethtool_i",
    "nccl",
    "docker_images",
    "docker_env",
    "host_vllm",
)

DEFAULT_NCCL_HOME: Final = "$HOME/nccl/build"
TIMEOUT_S: Final = 5
_HOME_RE: Final = re.compile(r"(\$HOME)?/?[A-Za-z0-9._/+-]{0,255}")


class SoftwareScriptError(ValueError):
    """A configured value that cannot go into the script (it names which)."""


def _home_path(value: str) -> str:
    """A configured folder, quoted; a leading $HOME stays expandable."""
    if not value or not _HOME_RE.fullmatch(value) or ".." in value.split("/"):
        raise SoftwareScriptError(f"FLEET_NCCL_HOME {value!r} is not a plain folder path")
    if value.startswith("$HOME/"):
        return '"$HOME"/' + shlex.quote(value[len("$HOME/") :])
    if value.startswith("$"):
        raise SoftwareScriptError(f"FLEET_NCCL_HOME {value!r}: only $HOME may be expanded")
    return shlex.quote(value)


def software_lines(*, nccl_home: str = DEFAULT_NCCL_HOME, images: Iterable[str] = ()) -> list[str]:
    refs = list(dict.fromkeys(images))
    for ref in refs:
        if not is_image_tag(ref):
            raise SoftwareScriptError(f"image {ref!r} is not an image reference by tag")
    home = _home_path(nccl_home)
    fmt = shlex.quote("{{.Repository}}|{{.Tag}}|{{.Digest}}|{{.ID}}")
    env_fmt = shlex.quote("{{range .Config.Env}}{{println .}}{{end}}")
    lines = [
        # timeout(1) where it exists: a hung tool must not turn into an unreachable node.
        f't() {{ if command -v timeout >/dev/null 2>&1; then timeout {TIMEOUT_S} "$@"; else "$@"; fi; }}',
        marker("dgx_release"),
        "grep -E '^DGX_(NAME|PRETTY_NAME|SWBUILD_VERSION|SWBUILD_DATE|OTA_VERSION|OTA_DATE|PLATFORM)=' "
        "/etc/dgx-release 2>/dev/null || true",
        marker("kernel"),
        "uname -r 2>/dev/null || true",
        marker("nvidia_smi"),
        "t nvidia-smi --version 2>&1 | head -n 12 || true",
        marker("nvidia_proc"),
        "head -n 1 /proc/driver/nvidia/version 2>/dev/null || true",
        marker("cx7_fw"),
        'fw=""; for d in /sys/class/infiniband/*; do [ -r "$d/fw_ver" ] || continue;'
        ' fw=1; printf \'%s|%s\\n\' "${d##*/}" "$(cat "$d/fw_ver" 2>/dev/null)"; done',
        marker("ethtool_i"),
        '[ -n "$fw" ] || t ethtool -i enp1s0f0np0 2>/dev/null | head -n 4 || true',
        marker("nccl"),
        f"h={home}",
        "grep -E '^#define NCCL_(MAJOR|MINOR|PATCH|SUFFIX)' \"$h/include/nccl.h\" 2>/dev/null || true",
        'for f in "$h"/lib/libnccl.so.*.*.*; do [ -e "$f" ] && echo "lib=${f##*/}"; done',
        'if [ -e "$h/../.git" ] && command -v git >/dev/null 2>&1; then'
        ' echo "describe=$(t git -c safe.directory=\'*\' -C "$h/.." describe --tags --always --dirty 2>/dev/null)";'
        ' echo "branch=$(t git -c safe.directory=\'*\' -C "$h/.." rev-parse --abbrev-ref HEAD 2>/dev/null)"; fi',
        marker("docker_images"),
        "if command -v docker >/dev/null 2>&1; then"
        f" out=$(t docker images --digests --format {fmt} 2>&1); rc=$?;"
        ' printf \'%s\\n\' "$out" | head -n 300; echo "@rc=$rc";'
        " else echo 'docker: not installed'; fi",
        marker("docker_env"),
    ]
    for ref in refs:
        quoted = shlex.quote(ref)
        lines.append(
            f"printf 'image=%s\\n' {quoted}; if command -v docker >/dev/null 2>&1; then"
            f" t docker image inspect --format {env_fmt} {quoted} 2>/dev/null"
            " | grep -E '^(NCCL_VERSION|CUDA_VERSION)='; fi"
        )
    # Whether the fleet user's own shell finds a vllm, exactly as the benchmark
    # command's client asks it (benchmarks.command): the same non-interactive
    # SSH shell with its own PATH (kept by the poll before it fixes its own), in
    # a subshell. Its version, Ray's beside it and their Python are read from
    # the installed packages' metadata folders (python3.X/site-packages/
    # vllm-<version>.dist-info beside the program's bin folder: a venv, pip
    # --user, uv tool, conda or Debian's dist-packages), never by running it:
    # `vllm --version` imports torch and can take longer than a poll may.
    lines += [
        marker("host_vllm"),
        "vllm_bin=$(PATH=\"${user_path:-$PATH}\"; command -v vllm 2>/dev/null) || vllm_bin=''",
        'if [ -n "$vllm_bin" ]; then echo "$vllm_bin";'
        ' vllm_dir=$(dirname "$(readlink -f "$vllm_bin" 2>/dev/null || echo "$vllm_bin")");'
        ' for f in "$vllm_dir"/../lib/python3*/*-packages/vllm-*.dist-info'
        ' "$vllm_dir"/../lib/python3*/*-packages/ray-*.dist-info;'
        ' do if [ -d "$f" ]; then echo "${f#"$vllm_dir"/../lib/}"; fi; done | head -n 8;'
        " else echo 'vllm: not on PATH'; fi",
    ]
    return lines


_END_LINE: Final = marker(END_SECTION) + "\n"
POLL_BODY: Final = POLL_SCRIPT.removesuffix(_END_LINE)


@functools.lru_cache(maxsize=16)
def software_poll_script(*, nccl_home: str = DEFAULT_NCCL_HOME, images: tuple[str, ...] = ()) -> str:
    """POLL_SCRIPT with the software sections before its end marker."""
    assert POLL_SCRIPT.endswith(_END_LINE), "POLL_SCRIPT must end with its end marker"
    return POLL_BODY + "\n".join(software_lines(nccl_home=nccl_home, images=images)) + "\n" + _END_LINE
