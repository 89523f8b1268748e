"""The real tools the suite checks shipped files with (Debian packages that
`./run test` installs when missing): a test that needs one fails, naming the
package, rather than skipping, so CI can never pass without the check."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

# command -> Debian package
PACKAGES = {
    "promtool": "prometheus",
    "prometheus": "prometheus",
    "prometheus-alertmanager": "prometheus-alertmanager",
    "amtool": "prometheus-alertmanager",
    "prometheus-node-exporter": "prometheus-node-exporter",
    "netplan": "netplan.io",
    "shellcheck": "shellcheck",
}


def tool(name: str) -> str:
    """The path of a real tool, or the test fails saying how to install it."""
    found = shutil.which(name)
    for folder in ("/usr/sbin", "/sbin"):  # netplan lives in sbin, which a user's PATH may lack
        if found is None and (Path(folder) / name).is_file():
            found = str(Path(folder) / name)
    if found is None:
        package = PACKAGES.get(name, name)
        pytest.fail(f"{name} is not installed: `./run test` installs Debian's {package} (apt-get install -y {package})")
    return found


def free_port_below_ephemeral() -> int:
    """A free port outside the range the OS hands out for port 0 (32768 and up on Linux), for a
    server another program starts later: nothing that asks the OS for a free port can take it meanwhile."""
    import random

    for _ in range(200):
        port = random.randint(20000, 32000)  # noqa: S311 - a port number, not a secret
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
