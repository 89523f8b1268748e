"""Why ``docker run`` could not start a container, read from what the shell
and Docker printed and the command's exit status.

Pure: plain text in, one word out; no Django. The words are those of
``telemetry.software_store.docker_gap`` (what a software reading says would
stand in the way), so a failure and a warning before it speak alike:

- ``absent``: no ``docker`` on the PATH, status 127; dash says
  ``sh: 1: docker: not found``, bash ``bash: line 3: docker: command not found``.
- ``denied``: the daemon's socket refused to the user (``permission denied while
  trying to connect to the Docker daemon socket``; from Docker 29 ``... to the
  docker API``), status 126 from ``docker run``.
- ``unreachable``: the daemon does not answer (``Cannot connect to the Docker
  daemon``; from Docker 29 ``failed to connect to the docker API at ...; check
  if the path is correct and if the daemon is running``), status 125.
- ``image``: ``--pull never`` and the image is not there (``No such image``), 125.
- ``pull``: the image was not there and could not be downloaded (``Unable to
  find image ... locally`` then the daemon's error), 125.
- ``gpu``: ``--gpus all`` and Docker has no NVIDIA runtime (``could not select
  device driver "" with capabilities: [[gpu]]``), 125.
- ``""``: anything else, including a failure of the program inside the container.

docker/cli's ``runStartContainerErr`` sets the 125, 126 and 127.

``docker pull`` (serving's image step) exits 1 whatever went wrong, so its
failures read as ``absent``, ``denied`` or ``unreachable`` by the same words,
else ``download`` (``pull_failure``). Without a terminal it prints one line
per layer and change (``a3be5d4ce401: Pull complete``), which
``pull_layers`` counts.
"""

from __future__ import annotations

import re

__all__ = ["DENIED", "UNREACHABLE", "pull_failure", "pull_layers", "pulled_image", "reading"]

# how the Docker client says the daemon's socket refused the user, before and from Docker 29 (lower case)
DENIED = (
    "permission denied while trying to connect to the docker daemon",
    "permission denied while trying to connect to the docker api",
)
# how the Docker client says its daemon does not answer, before and from Docker 29 (lower case)
UNREACHABLE = ("cannot connect to the docker daemon", "failed to connect to the docker api")
_MISSING = re.compile(r"\bdocker: (?:command )?not found")
_NOT_LOCAL = re.compile(r"Unable to find image '([^']+)' locally")
_PULL = re.compile(_NOT_LOCAL.pattern + r"\s*\n(?:.*\n)*?.*Error response from daemon", re.IGNORECASE)


def reading(status: int | None, text: str) -> str:
    """What stood in ``docker run``'s way: absent, denied, unreachable, image, pull, gpu or ""."""
    if status is None or status == 0:
        return ""
    lower = text.lower()
    if status == 127 and _MISSING.search(text):
        return "absent"
    if any(words in lower for words in DENIED):
        return "denied"
    if any(words in lower for words in UNREACHABLE):
        return "unreachable"
    if status != 125:
        return ""
    if "no such image" in lower:
        return "image"
    if _PULL.search(text):
        return "pull"
    if 'could not select device driver "" with capabilities: [[gpu]]' in lower:
        return "gpu"
    return ""


def pulled_image(text: str) -> str:
    """The image Docker said it could not find locally (and so began to
    download: ``docker run`` pulls a missing image unless told not to), or ""."""
    match = _NOT_LOCAL.search(text)
    return match.group(1) if match else ""


def pull_failure(status: int | None, text: str) -> str:
    """What stood in ``docker pull``'s way: absent, denied, unreachable,
    disk (the disk filled while layers were written: a Spark's disk also
    holds the models' weights), download (the registry's or the daemon's
    other errors: Docker's words say which) or "" (it did not fail)."""
    if status is None or status == 0:
        return ""
    kind = reading(status, text)
    if kind in ("absent", "denied", "unreachable"):
        return kind
    return "disk" if "no space left on device" in text.lower() else "download"


# a layer's line in docker pull's output without a terminal
_LAYER = re.compile(
    r"^([0-9a-f]{12}): (Pulling fs layer|Waiting|Downloading|Verifying Checksum|Download complete|Extracting|"
    r"Pull complete|Already exists)\b",
    re.MULTILINE,
)
_READY = ("Pull complete", "Already exists")


def pull_layers(text: str) -> tuple[int, int] | None:
    """(layers ready, layers named) in what ``docker pull`` has printed so
    far, or None before it names a layer. It names every layer of the image
    when it begins, so the second number does not grow."""
    last: dict[str, str] = {}
    for match in _LAYER.finditer(text):
        last[match[1]] = match[2]
    if not last:
        return None
    return sum(1 for state in last.values() if state in _READY), len(last)
