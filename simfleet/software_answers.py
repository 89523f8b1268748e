"""What a simulated Spark prints for the software sections of a poll
(``telemetry.software_script``), in the shapes real Sparks print
(docs/operations.md, "The software a Spark runs").

A node runs ``DEFAULT_SOFTWARE`` unless its ``software`` overrides some of it
(a scenario's ``software: {driver: 580.82.09}``); ``image_digest: absent``
means the launch image was never pulled there; ``vllm`` is where the fleet
user's shell finds a vllm (``absent`` by default: vLLM in a container, as
NVIDIA's playbooks run it; ``vllm_version``, ``vllm_python`` and ``vllm_ray``
its package's version, its Python and Ray's version beside it), and the
simulated benchmark client follows it
(``client_failure``). Faults change how the tools
answer: ``no-docker``, ``docker-denied``, ``docker-down``, ``smi-mismatch``
(a driver updated without a reboot: nvidia-smi fails, the loaded module
still answers), ``no-dgx-release``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from telemetry.poll_script import MARKER_PREFIX

DEFAULT_SOFTWARE: dict[str, str] = {
    "dgx_os": "7.3.1",
    "dgx_os_installed": "7.2.3",
    "kernel": "6.17.0-1026-nvidia",
    "driver": "580.95.05",
    "cuda": "13.0",
    "connectx_firmware": "28.45.4028",
    "nccl": "2.28.9",
    "nccl_build": "v2.28.9-1",
    "nccl_branch": "HEAD",
    "image_digest": "sha256:" + "4f" * 32,
    "image_id": "0f1e2d3c4b5a",
    "image_nccl": "2.27.7-1",
    "vllm": "absent",
    "vllm_version": "0.11.0",  # the version of a node's own vllm (its package's dist-info), when it has one
    "vllm_python": "3.12",  # the Python it is installed for
    "vllm_ray": "2.49.1",  # Ray's version beside it
}
SOFTWARE_KEYS = frozenset(DEFAULT_SOFTWARE)
SOFTWARE_FAULTS = frozenset({"no-docker", "docker-denied", "docker-down", "smi-mismatch", "no-dgx-release"})

_ASKED_RE = re.compile(r"printf 'image=%s\\n' '?([^' ;]+)'?;")


def asked_images(command: str) -> list[str]:
    """The launch images a software poll asks about (quoted in its docker_env lines)."""
    return _ASKED_RE.findall(command)


def _section(name: str, body: str) -> str:
    return f"\n{MARKER_PREFIX}{name}\n{body}"


# What an NGC container prints on stdout before it runs its command: the
# banner of NVIDIA's entrypoint (nvidia_entrypoint.sh: the project's name, "NVIDIA
# Release <yy.mm> (build <id>)", the licence, and a warning when it was started
# without the GPU, as the benchmark client's container is). Its shape follows the
# entrypoint's public copies; the vLLM image's own lines here are illustrative.
CONTAINER_BANNER = """
==========
== vLLM ==
==========

NVIDIA Release 25.09 (build 212039536)
vLLM Version 0.10.1.1+381074ae.nv25.09
Container image Copyright (c) 2025, NVIDIA CORPORATION & AFFILIATES. All rights reserved.

Various files include modifications (c) NVIDIA CORPORATION & AFFILIATES.  All rights reserved.

This container image and its contents are governed by the NVIDIA Deep Learning Container License.
By pulling and using the container, you accept the terms and conditions of this license:
https://developer.download.nvidia.com/licenses/NVIDIA_Deep_Learning_Container_License.pdf

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use the NVIDIA Container Toolkit to start this container with GPU support; see
   https://docs.nvidia.com/datacenter/cloud-native/ .

"""


def client_in_container(overrides: Mapping[str, str]) -> bool:
    """The benchmark client runs in the launch image (the node has no vllm of its own)."""
    return {**DEFAULT_SOFTWARE, **overrides}["vllm"] == "absent"


def docker_refusal(faults: frozenset[str] | set[str]) -> tuple[str, int] | None:
    """(stderr, exit status) of ``docker run`` on a node whose Docker refuses
    the fleet user (``docker-denied``) or does not answer (``docker-down``), as
    Docker prints them; None otherwise."""
    if "docker-denied" in faults:
        return (
            "docker: permission denied while trying to connect to the Docker daemon socket at "
            'unix:///var/run/docker.sock: Head "http://%2Fvar%2Frun%2Fdocker.sock/_ping": dial unix '
            "/var/run/docker.sock: connect: permission denied.\nSee 'docker run --help'.\n",
            126,
        )
    if "docker-down" in faults:
        return (
            "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
            "running?\nSee 'docker run --help'.\n",
            125,
        )
    return None


def client_failure(
    overrides: Mapping[str, str], faults: frozenset[str] | set[str], image: str
) -> tuple[str, int] | None:
    """(stderr, exit status) of the benchmark command's client on a node that
    cannot start it, as the shell and Docker say it; None when it starts: the
    node's own vllm, or the launch image under a Docker that answers."""
    sw = {**DEFAULT_SOFTWARE, **overrides}
    if sw["vllm"] != "absent":
        return None
    if "no-docker" in faults:
        return "sh: 1: docker: not found\n", 127
    refused = docker_refusal(faults)
    if refused is not None:
        return refused
    if sw["image_digest"] == "absent":
        return (
            f"docker: Error response from daemon: No such image: {image}.\nSee 'docker run --help'.\n",
            125,
        )
    return None


def _host_vllm(sw: Mapping[str, str]) -> str:
    """``command -v vllm`` and its package's metadata folder, as the poll prints them."""
    if sw["vllm"] == "absent":
        return "vllm: not on PATH\n"
    packages = f"python{sw['vllm_python']}/site-packages"
    return f"{sw['vllm']}\n{packages}/vllm-{sw['vllm_version']}.dist-info\n{packages}/ray-{sw['vllm_ray']}.dist-info\n"


def software_text(overrides: Mapping[str, str], faults: frozenset[str] | set[str], images: list[str]) -> str:
    sw = {**DEFAULT_SOFTWARE, **overrides}
    major_minor = ".".join(sw["driver"].split(".")[:2])
    if "no-dgx-release" in faults:
        release = ""
    else:
        release = (
            'DGX_NAME="DGX Spark"\nDGX_PRETTY_NAME="NVIDIA DGX Spark"\nDGX_SWBUILD_DATE="2025-09-10-13-50-03"\n'
            f'DGX_SWBUILD_VERSION="{sw["dgx_os_installed"]}"\nDGX_PLATFORM="DGX Server for KVM"\n'
        )
        if sw["dgx_os"] != sw["dgx_os_installed"]:
            release += f'DGX_OTA_VERSION="{sw["dgx_os"]}"\nDGX_OTA_DATE="Wed Nov 19 05:05:30 PM CET 2025"\n'
    if "smi-mismatch" in faults:
        smi = f"Failed to initialize NVML: Driver/library version mismatch\nNVML library version: {major_minor}\n"
    else:
        smi = (
            f"NVIDIA-SMI version  : {sw['driver']}\nNVML version        : {major_minor}\n"
            f"DRIVER version      : {sw['driver']}\nCUDA Version        : {sw['cuda']}\n"
        )
    proc = (
        f"NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  {sw['driver']}  Release Build  "
        "(dvs-builder@U22-I3-AF03-09-1)  Tue Sep 23 09:47:52 UTC 2025\n"
    )
    fw = "".join(
        f"{dev}|{sw['connectx_firmware']}\n" for dev in ("roceP2p1s0f0", "roceP2p1s0f1", "rocep1s0f0", "rocep1s0f1")
    )
    major, minor, patch = (sw["nccl"].split(".") + ["0", "0", "0"])[:3]
    nccl = (
        f'#define NCCL_MAJOR {major}\n#define NCCL_MINOR {minor}\n#define NCCL_PATCH {patch}\n#define NCCL_SUFFIX ""\n'
        f"lib=libnccl.so.{sw['nccl']}\ndescribe={sw['nccl_build']}\nbranch={sw['nccl_branch']}\n"
    )
    if "no-docker" in faults:
        docker = "docker: not installed\n"
    elif "docker-denied" in faults:
        docker = (
            "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: "
            'Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.51/images/json": dial unix /var/run/docker.sock: connect: '
            "permission denied\n\n@rc=1\n"
        )
    elif "docker-down" in faults:
        docker = (
            "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"
            "\n@rc=1\n"
        )
    else:
        lines = []
        for ref in images:
            repo, _, tag = ref.rpartition(":")
            if sw["image_digest"] != "absent":
                lines.append(f"{repo}|{tag}|{sw['image_digest']}|{sw['image_id']}")
            lines.append(f"{repo}|25.11-py3|sha256:{'9c' * 32}|7a6b5c4d3e2f")  # an older pull, not compared
        lines.append("<none>|<none>|<none>|aabbccddeeff")
        docker = "\n".join(dict.fromkeys(lines)) + "\n@rc=0\n"
    env = ""
    for ref in images:
        env += f"image={ref}\n"
        if docker.endswith("@rc=0\n") and sw["image_digest"] != "absent":
            env += f"NCCL_VERSION={sw['image_nccl']}\nCUDA_VERSION=13.0.2.006\n"
    return (
        _section("dgx_release", release)
        + _section("kernel", sw["kernel"] + "\n")
        + _section("nvidia_smi", smi)
        + _section("nvidia_proc", proc)
        + _section("cx7_fw", fw)
        + _section("ethtool_i", "")
        + _section("nccl", nccl)
        + _section("docker_images", docker)
        + _section("docker_env", env)
        + _section("host_vllm", _host_vllm(sw))
    )
