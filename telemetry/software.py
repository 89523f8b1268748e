"""What software a Spark runs, read from the software sections of a poll.

Pure: plain text in, a frozen ``SoftwareReading`` out; no Django. The
sections are printed by ``telemetry.software_script`` (one line of shell per
source) and their real formats, with their public sources, are in
docs/operations.md ("The software a Spark runs"). Every parser survives a
missing tool (an empty section), odd output and the quirks of each tool:

- ``/etc/dgx-release``: ``KEY="value"`` lines; ``DGX_OTA_VERSION`` (the
  release after over-the-air updates) wins over ``DGX_SWBUILD_VERSION`` (the
  image the node was installed from). Only the release keys leave the node
  (the script never prints ``DGX_SERIAL_NUMBER``).
- ``nvidia-smi --version``: ``DRIVER version : 580.95.05`` and ``CUDA Version
  : 13.0`` up to the 59x drivers; from 610 both say ``Deprecated`` and the
  values move to ``KMD version`` and ``CUDA UMD version``. After a driver
  update without a reboot nvidia-smi fails (``Driver/library version
  mismatch``): the loaded kernel module (``/proc/driver/nvidia/version``) is
  what runs, so it is the driver read.
- ConnectX-7 firmware: ``/sys/class/infiniband/<dev>/fw_ver`` (``28.45.4028``),
  else ``ethtool -i`` (``firmware-version: 28.45.4028 (NVD0000000087)``).
- NCCL: the ``#define NCCL_MAJOR/MINOR/PATCH/SUFFIX`` lines of the build's
  ``include/nccl.h`` and ``git describe`` of its source tree (a release tag
  such as ``v2.28.9-1``, or a branch).
- Docker: ``docker images --digests`` lines ``repo|tag|digest|id`` (digest
  ``<none>`` for an image built or loaded locally), each launch image's
  ``NCCL_VERSION`` from its configuration (``2.27.7-1`` or ``2.27.7``), and
  no Docker, a daemon that does not answer or a fleet user Docker refuses.
- vLLM on the host: ``command -v vllm`` in the fleet user's SSH shell (the
  shell and PATH the benchmark client runs in): an absolute path, or
  ``vllm: not on PATH``; after the path, the ``vllm-<version>.dist-info``
  and ``ray-<version>.dist-info`` folders beside it, under their
  ``python3.X/site-packages`` (its version, Ray's and their Python, read
  without running it).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final, TypeGuard

from .docker_start import DENIED, UNREACHABLE

# What may be shown and compared: versions, tags, digests. Anything else
# (a line of garbage, an error message) is not a version.
_VERSION_RE: Final = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+~:-]{0,79}")
_NUMERIC_RE: Final = re.compile(r"[0-9]+(?:\.[0-9]+)+")
_DIGEST_RE: Final = re.compile(r"sha256:[0-9a-f]{64}")
_IMAGE_ID_RE: Final = re.compile(r"(?:sha256:)?[0-9a-f]{12,64}")

DOCKER_STATES: Final = ("ok", "absent", "denied", "unreachable", "error", "unread")
# vLLM on the node's own PATH: "present" (vllm_path says where), "absent", or
# "unread" (a reading from before the poll asked, or an answer that was not a path).
VLLM_STATES: Final = ("present", "absent", "unread")
IMAGE_ABSENT: Final = "absent"  # a launch image's value on a Spark that does not hold it
_PATH_RE: Final = re.compile(r"/[A-Za-z0-9._/+@-]{1,255}")


@dataclass(frozen=True, slots=True)
class Image:
    """One image of a launcher's repository present on the node."""

    ref: str  # repository:tag
    digest: str | None  # the repository digest; None for an image built or loaded locally
    image_id: str | None
    nccl: str | None = None  # NCCL_VERSION of its configuration (launch images only)


@dataclass(frozen=True, slots=True)
class SoftwareReading:
    """Everything one software reading learnt; None where a value could not be read."""

    dgx_os: str | None
    kernel: str | None
    driver: str | None
    cuda: str | None
    connectx_firmware: str | None
    nccl: str | None  # e.g. "2.28.9"
    nccl_build: str | None  # git describe of its source tree, e.g. "v2.28.9-1"
    nccl_release: bool | None  # built from a release tag; None: cannot tell
    docker: str  # one of DOCKER_STATES
    images: tuple[Image, ...] | None  # None: Docker could not be asked
    launch_images: tuple[str, ...] = ()  # the refs the launchers name (asked for)
    dgx_os_installed: str | None = None  # DGX_SWBUILD_VERSION: what the node was installed from
    notes: tuple[str, ...] = field(default=())  # what could not be read, and why
    vllm: str = "unread"  # one of VLLM_STATES
    vllm_path: str | None = None  # where the fleet user's shell finds vllm, when present
    vllm_version: str | None = None  # its package's version (dist-info), when it could be told
    vllm_python: str | None = None  # the Python it is installed for ("3.12")
    vllm_ray: str | None = None  # Ray's version installed beside it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SoftwareReading:
        images = data.get("images")
        return cls(
            dgx_os=data.get("dgx_os"),
            kernel=data.get("kernel"),
            driver=data.get("driver"),
            cuda=data.get("cuda"),
            connectx_firmware=data.get("connectx_firmware"),
            nccl=data.get("nccl"),
            nccl_build=data.get("nccl_build"),
            nccl_release=data.get("nccl_release"),
            docker=data.get("docker", "unread"),
            images=tuple(Image(**i) for i in images) if images is not None else None,
            launch_images=tuple(data.get("launch_images", ())),
            dgx_os_installed=data.get("dgx_os_installed"),
            notes=tuple(data.get("notes", ())),
            vllm=data.get("vllm", "unread") if data.get("vllm") in VLLM_STATES else "unread",
            vllm_path=data["vllm_path"] if _is_path(data.get("vllm_path")) else None,
            vllm_version=clean_version(v) if isinstance(v := data.get("vllm_version"), str) else None,
            vllm_python=clean_version(v) if isinstance(v := data.get("vllm_python"), str) else None,
            vllm_ray=clean_version(v) if isinstance(v := data.get("vllm_ray"), str) else None,
        )

    def image(self, ref: str) -> Image | None:
        return next((i for i in self.images or () if i.ref == ref), None)

    @property
    def nccl_value(self) -> str | None:
        """NCCL as compared across a group: the version, and the build when it
        is not a release tag (a branch build of the same version differs)."""
        if self.nccl is None:
            return None
        if self.nccl_release is False and self.nccl_build:
            return f"{self.nccl} ({self.nccl_build})"
        return self.nccl

    def image_value(self, ref: str) -> str | None:
        """A launch image as compared: its digest, "absent", or None when Docker
        could not be asked (no Docker, refused): unknown, never "different"."""
        if self.docker != "ok" or self.images is None:
            return None
        found = self.image(ref)
        if found is None:
            return IMAGE_ABSENT
        return found.digest or (f"local {found.image_id}" if found.image_id else "local build")

    def values(self) -> dict[str, str | None]:
        """quantity -> the value compared across a group ("image:<ref>" per launch image)."""
        out: dict[str, str | None] = {
            "dgx_os": self.dgx_os,
            "kernel": self.kernel,
            "driver": self.driver,
            "cuda": self.cuda,
            "connectx_firmware": self.connectx_firmware,
            "nccl": self.nccl_value,
        }
        for ref in self.launch_images:
            out[f"image:{ref}"] = self.image_value(ref)
        return out


def is_digest(value: object) -> TypeGuard[str]:
    """A registry digest as Docker prints one, and as a lab pins a launch image: sha256: and 64 hex digits."""
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


# Docker's image reference grammar, by tag (distribution/reference): an
# optional registry (a first component with a dot or a port, localhost, or an
# IPv6 address in brackets), then slash-separated lower-case path components,
# then an optional tag (Docker's default is "latest").
_COMPONENT: Final = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST: Final = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_IPV6: Final = r"\[[0-9A-Fa-f:]+\]"
_IMAGE_TAG_RE: Final = re.compile(
    rf"(?:(?:{_HOST}(?:\.{_HOST})+(?::[0-9]+)?|{_HOST}:[0-9]+|localhost|{_IPV6}(?::[0-9]+)?)/)?"
    rf"{_COMPONENT}(?:/{_COMPONENT})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{{0,127}})?"
)
DOCKER_HUB: Final = ("docker.io", "index.docker.io")


def is_image_tag(ref: object) -> TypeGuard[str]:
    """An image reference by tag as Docker reads one (not by digest)."""
    return isinstance(ref, str) and len(ref) <= 255 and _IMAGE_TAG_RE.fullmatch(ref) is not None


def docker_name(ref: str) -> str:
    """A reference by tag as ``docker images`` prints it: Docker Hub's registry
    and its ``library/`` left out, and the tag Docker pulls when none is named
    (``docker.io/library/ubuntu`` -> ``ubuntu:latest``), so that the name a lab
    sets is the name a Spark's reading finds."""
    first, slash, rest = ref.partition("/")
    if slash and first in DOCKER_HUB:
        ref = rest
    if ref.startswith("library/") and ref.count("/") == 1:
        ref = ref.removeprefix("library/")
    last = ref.rpartition("/")[2]
    return ref if ":" in last else f"{ref}:latest"


def as_image_tag(value: object) -> str:
    """A launch image named by its tag (nvcr.io/nvidia/vllm:26.05-py3), as the
    launchers, serving and the software reading use it: in the form ``docker
    images`` prints (``docker_name``). A reference by digest is refused with
    where a build is pinned instead: the launchers tag the pinned build under
    this name, and a digest cannot be a tag."""
    text = str(value).strip()
    if "@" in text:
        raise ValueError(
            f"name the image by its tag ({image_repository(text)}:<tag>) and pin the build "
            f"({text.split('@', 1)[1]}) on the software page: the launchers pull the pinned build "
            "by its digest and tag it under that name"
        )
    if not is_image_tag(text) or not is_image_tag(name := docker_name(text)):
        raise ValueError("not a Docker image reference such as nvcr.io/nvidia/vllm:26.05-py3")
    return name


def image_repository(ref: str) -> str:
    """An image reference without its tag or digest: nvcr.io/nvidia/vllm:25.11-py3 ->
    nvcr.io/nvidia/vllm (a registry's port stays: the tag follows the last slash)."""
    head, _, last = ref.split("@", 1)[0].rpartition("/")
    name = last.split(":", 1)[0]
    return f"{head}/{name}" if head else name


def pull_build(ref: str, digest: str) -> str:
    """The commands that bring one build of an image, by its registry digest,
    under the image's own tag (``docker pull REF`` brings whatever the tag
    names today)."""
    pulled = shlex.quote(f"{image_repository(ref)}@{digest}")
    return f"docker pull {pulled} && docker tag {pulled} {shlex.quote(ref)}"


def version_key(value: str) -> tuple[tuple[int, int | str], ...]:
    """Order versions as people read them: 580.95.05 < 580.126.09, 6.17.0-1014 < 6.17.0-1026."""
    parts = re.findall(r"[0-9]+|[A-Za-z]+", value)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def clean_version(text: str | None) -> str | None:
    """A version-looking token, or None (garbage, an error message, N/A)."""
    if text is None:
        return None
    text = text.strip().strip('"').strip("'").strip()
    if not text or text.lower() in {"n/a", "[n/a]", "not supported", "[not supported]", "unknown"}:
        return None
    return text if _VERSION_RE.fullmatch(text) else None


# --------------------------------------------------------------------------- sections


def parse_dgx_release(text: str) -> tuple[str | None, str | None, list[str]]:
    """(release, installed build, notes) from /etc/dgx-release's release keys."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key.startswith("DGX_"):
            # Each over-the-air update appends a DGX_OTA_VERSION/DGX_OTA_DATE
            # pair: the last one is the release the node runs now.
            values[key] = value.strip().strip('"').strip("'")
    installed = clean_version(values.get("DGX_SWBUILD_VERSION"))
    ota = clean_version(values.get("DGX_OTA_VERSION"))
    notes = []
    if not text.strip():
        notes.append("dgx_os: /etc/dgx-release missing (not DGX OS)")
    elif ota is None and installed is None:
        notes.append("dgx_os: no DGX_SWBUILD_VERSION or DGX_OTA_VERSION in /etc/dgx-release")
    return ota or installed, installed, notes


def parse_kernel(text: str) -> tuple[str | None, list[str]]:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    value = clean_version(line) if line and line[0].isdigit() else None
    return value, ([] if value else [f"kernel: unreadable uname -r {line[:60]!r}"])


_SMI_LINE_RE: Final = re.compile(r"^\s*([A-Za-z][A-Za-z -]*?)\s*:\s*(.*?)\s*$")
_SMI_HEADER_RE: Final = re.compile(r"Driver Version:\s*([0-9.]+)\s+CUDA Version:\s*([0-9.]+)")
_PROC_RE: Final = re.compile(r"Kernel Module\b.*?\s([0-9]{2,4}(?:\.[0-9]+){1,2})(?=\s|$)")


def parse_nvidia_smi_version(text: str) -> tuple[str | None, str | None, list[str]]:
    """(driver, cuda, notes) from ``nvidia-smi --version`` (or its table header)."""
    driver = cuda = None
    for line in text.splitlines():
        match = _SMI_LINE_RE.match(line)
        if match is None:
            continue
        key, value = match[1].strip().lower(), match[2]
        if value.lower().startswith("deprecated"):
            continue  # 610 and later point elsewhere ("see KMD version")
        if key in ("driver version", "kmd version") and driver is None:
            driver = clean_version(value)
        elif key in ("cuda version", "cuda umd version", "cuda driver version") and cuda is None:
            cuda = clean_version(value)
    if driver is None or cuda is None:
        header = _SMI_HEADER_RE.search(text)
        if header is not None:
            driver, cuda = driver or header[1], cuda or header[2]
    notes = []
    lowered = text.lower()
    if "version mismatch" in lowered:
        notes.append(
            "driver: nvidia-smi reports a driver/library version mismatch: the driver was updated "
            "without a reboot; reboot to load it"
        )
    elif driver is None and cuda is None:
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        notes.append(f"driver: nvidia-smi gave no version ({first[:80]!r})" if first else "driver: nvidia-smi missing")
    return driver, cuda, notes


def parse_nvidia_proc(text: str) -> str | None:
    """The loaded kernel module's version from /proc/driver/nvidia/version."""
    match = _PROC_RE.search(text)
    return match[1] if match else None


def parse_connectx_firmware(fw_text: str, ethtool_text: str) -> tuple[str | None, list[str]]:
    """The ConnectX-7 firmware from ``dev|fw_ver`` lines (all devices of one NIC
    agree), else from ``ethtool -i``'s ``firmware-version:`` line."""
    found = set()
    for line in fw_text.splitlines():
        _, sep, value = line.partition("|")
        version = clean_version(value.split()[0]) if sep and value.split() else None
        if version and _NUMERIC_RE.fullmatch(version):
            found.add(version)
    if not found:
        for line in ethtool_text.splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() == "firmware-version" and value.split():
                version = clean_version(value.split()[0])
                if version and _NUMERIC_RE.fullmatch(version):
                    found.add(version)
    if not found:
        return None, ["connectx_firmware: no fw_ver under /sys/class/infiniband and no ethtool -i answer"]
    if len(found) > 1:
        return ", ".join(sorted(found, key=version_key)), [
            "connectx_firmware: the RDMA devices report different firmware"
        ]
    return found.pop(), []


_DEFINE_RE: Final = re.compile(r'^#define\s+NCCL_(MAJOR|MINOR|PATCH|SUFFIX)\s+("?)([^"\s]*)\2\s*$')
_LIB_RE: Final = re.compile(r"^lib=libnccl\.so\.([0-9]+\.[0-9]+\.[0-9]+)$")
_RELEASE_TAG_RE: Final = re.compile(r"v[0-9]+\.[0-9]+\.[0-9]+-[0-9]+")


def parse_nccl(text: str) -> tuple[str | None, str | None, bool | None, list[str]]:
    """(version, build, release, notes) of the NCCL build the launch and the
    fabric verification use (FLEET_NCCL_HOME)."""
    parts: dict[str, str] = {}
    lib = describe = branch = None
    for raw in text.splitlines():
        line = raw.strip()
        match = _DEFINE_RE.match(line)
        if match:
            parts.setdefault(match[1], match[3])
            continue
        lib_match = _LIB_RE.match(line)
        if lib_match and lib is None:
            lib = lib_match[1]
        elif line.startswith("describe="):
            describe = clean_version(line[len("describe=") :])
        elif line.startswith("branch="):
            branch = clean_version(line[len("branch=") :])
    version = None
    if all(parts.get(k, "").isascii() and parts.get(k, "").isdigit() for k in ("MAJOR", "MINOR", "PATCH")):
        version = f"{int(parts['MAJOR'])}.{int(parts['MINOR'])}.{int(parts['PATCH'])}"
        suffix = parts.get("SUFFIX", "")
        if suffix and clean_version(suffix):
            version += suffix
    elif lib is not None:
        version = lib
    notes = []
    if version is None:
        notes.append("nccl: no NCCL build (include/nccl.h) at FLEET_NCCL_HOME")
        return None, None, None, notes
    release: bool | None = None
    build = describe
    if describe is not None:
        release = bool(_RELEASE_TAG_RE.fullmatch(describe.removesuffix("-dirty"))) and not describe.endswith("-dirty")
        if branch and branch != "HEAD" and not release:
            build = f"{branch} {describe}"
    if release is False:
        notes.append(f"nccl: built from {build}, not a release tag")
    return version, build, release, notes


def _docker_state(text: str) -> tuple[str, str | None]:
    lowered = text.lower()
    if "docker: not installed" in lowered:
        return "absent", "docker: not installed"
    if any(words in lowered for words in DENIED):
        return "denied", "docker: the fleet user may not read Docker (permission denied on its socket)"
    if any(words in lowered for words in UNREACHABLE) or "is the docker daemon running" in lowered:
        return "unreachable", "docker: the Docker daemon does not answer"
    rc = re.search(r"^@rc=([0-9]+)\s*$", text, re.M)
    if rc is not None and rc[1] == "124":
        return "unreachable", "docker: docker images timed out"
    if rc is not None and rc[1] != "0":
        return "error", f"docker: docker images exited with status {rc[1]}"
    return "ok", None


def parse_docker(
    images_text: str, env_text: str, launch_images: tuple[str, ...]
) -> tuple[str, tuple[Image, ...] | None, list[str]]:
    """(docker state, images of the launchers' repositories, notes)."""
    if not images_text.strip():
        return "unread", None, []  # the section was not printed: nothing was asked
    state, note = _docker_state(images_text)
    notes = [note] if note else []
    if state != "ok":
        return state, None, notes
    repositories = {image_repository(ref) for ref in launch_images}
    nccl: dict[str, str | None] = {}
    current: str | None = None
    for line in env_text.splitlines():
        line = line.strip()
        if line.startswith("image="):
            current = line[len("image=") :]
            nccl.setdefault(current, None)
        elif current is not None and line.startswith("NCCL_VERSION="):
            numeric = _NUMERIC_RE.match(line[len("NCCL_VERSION=") :])
            nccl[current] = numeric[0] if numeric else None
    images: list[Image] = []
    seen: set[str] = set()
    for line in images_text.splitlines():
        fields = line.strip().split("|")
        if len(fields) != 4 or line.startswith("@rc="):
            continue
        repo, tag, digest, image_id = (f.strip() for f in fields)
        ref = f"{repo}:{tag}"
        if repo not in repositories or tag in ("", "<none>") or ref in seen or not is_image_tag(ref):
            continue
        seen.add(ref)
        images.append(
            Image(
                ref=ref,
                digest=digest if _DIGEST_RE.fullmatch(digest) else None,
                image_id=image_id if _IMAGE_ID_RE.fullmatch(image_id) else None,
                nccl=nccl.get(ref),
            )
        )
    return state, tuple(sorted(images, key=lambda i: i.ref)), notes


def _is_path(value: Any) -> bool:
    return isinstance(value, str) and bool(_PATH_RE.fullmatch(value)) and ".." not in value.split("/")


def parse_host_vllm(text: str) -> tuple[str, str | None]:
    """(state, path) from ``command -v vllm`` (see VLLM_STATES)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "unread", None  # the section was not printed: nothing was asked
    if lines[0] == "vllm: not on PATH":
        return "absent", None
    if _is_path(lines[0]) and lines[0].rsplit("/", 1)[-1] == "vllm":
        return "present", lines[0]
    return "unread", None  # an alias or garbage is not an answer


_DIST_INFO_RE: Final = re.compile(r"(?:python(3\.[0-9]{1,3})/[a-z]+-packages/)?(vllm|ray)-(.+)\.dist-info")


@dataclass(frozen=True, slots=True)
class HostVllm:
    """What the metadata folders beside the host's vllm tell: its version, the
    Python it is installed for and Ray's version there (None: not told)."""

    version: str | None = None
    python: str | None = None
    ray: str | None = None


def parse_host_vllm_packages(text: str) -> tuple[HostVllm, list[str]]:
    """(what the ``[python3.X/site-packages/]<vllm|ray>-<version>.dist-info``
    lines printed after the path tell, notes): a value is None when none was
    found, or several disagree (two installs beside one program)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or parse_host_vllm(text)[0] != "present":
        return HostVllm(), []
    found: dict[str, list[str]] = {"vllm": [], "ray": [], "python": []}
    for line in lines[1:]:
        match = _DIST_INFO_RE.fullmatch(line)
        if match is None:
            continue
        python, package, version = match.group(1), match.group(2), clean_version(match.group(3))
        for key, value in ((package, version), ("python", python)):
            if value is not None and value not in found[key]:
                found[key].append(value)
    notes = [
        f"vllm: several {what} versions beside {lines[0]} ({', '.join(values)}): none is told"
        for what, values in (("vLLM", found["vllm"]), ("Ray", found["ray"]), ("Python", found["python"]))
        if len(values) > 1
    ]
    one = {k: v[0] if len(v) == 1 else None for k, v in found.items()}
    return HostVllm(version=one["vllm"], python=one["python"], ray=one["ray"]), notes


def asked_images(env_text: str) -> tuple[str, ...]:
    """The launch images the script asked about (its ``image=`` lines)."""
    refs = [ln.strip()[len("image=") :] for ln in env_text.splitlines() if ln.strip().startswith("image=")]
    return tuple(dict.fromkeys(r for r in refs if is_image_tag(r)))


def parse_software(sections: Mapping[str, str]) -> SoftwareReading:
    """The software sections of one poll answer -> SoftwareReading. Never raises."""
    notes: list[str] = []
    launch_images = asked_images(sections.get("docker_env", ""))
    dgx_os, installed, more = parse_dgx_release(sections.get("dgx_release", ""))
    notes += more
    kernel, more = parse_kernel(sections.get("kernel", ""))
    notes += more
    smi_driver, cuda, more = parse_nvidia_smi_version(sections.get("nvidia_smi", ""))
    loaded = parse_nvidia_proc(sections.get("nvidia_proc", ""))
    driver = loaded or smi_driver
    if loaded and smi_driver and loaded != smi_driver:
        more = [
            f"driver: the loaded kernel module is {loaded} but nvidia-smi's library is {smi_driver}: "
            "reboot to run the installed driver"
        ]
    elif driver is not None:
        more = [n for n in more if "no version" not in n and "missing" not in n]
    notes += more
    firmware, more = parse_connectx_firmware(sections.get("cx7_fw", ""), sections.get("ethtool_i", ""))
    notes += more
    nccl, build, release, more = parse_nccl(sections.get("nccl", ""))
    notes += more
    docker, images, more = parse_docker(
        sections.get("docker_images", ""), sections.get("docker_env", ""), launch_images
    )
    notes += more
    vllm, vllm_path = parse_host_vllm(sections.get("host_vllm", ""))
    host_vllm, more = parse_host_vllm_packages(sections.get("host_vllm", ""))
    notes += more
    return SoftwareReading(
        dgx_os=dgx_os,
        kernel=kernel,
        driver=driver,
        cuda=cuda,
        connectx_firmware=firmware,
        nccl=nccl,
        nccl_build=build,
        nccl_release=release,
        docker=docker,
        images=images,
        launch_images=launch_images,
        dgx_os_installed=installed,
        notes=tuple(n[:300] for n in notes[:20]),
        vllm=vllm,
        vllm_path=vllm_path,
        vllm_version=host_vllm.version,
        vllm_python=host_vllm.python,
        vllm_ray=host_vllm.ray,
    )
