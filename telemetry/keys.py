"""The fleet's client key pair on disk, and host key fingerprints.

The private key is made once (ed25519, mode 0600) at ``conf.ssh_key_path()``
with its public half beside it (``.pub``); nothing here reads the private key
into anything but asyncssh.
"""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh


def client_key_ensure(path: Path) -> str:
    """The OpenSSH public key of the key pair at ``path``, making the pair if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519", comment="spark-fleet")
        # Create with 0600 from the start: never a moment where others could read it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.export_private_key())
        path.with_suffix(".pub").write_bytes(key.export_public_key("openssh"))
    else:
        key = asyncssh.read_private_key(path)
    return key.export_public_key("openssh").decode().strip()


def fingerprint(public_key: str | None) -> str:
    """``SHA256:...`` of an OpenSSH public key, or "" if there is none or it does not parse."""
    if not public_key:
        return ""
    try:
        return str(asyncssh.import_public_key(public_key).get_fingerprint("sha256"))
    except (asyncssh.KeyImportError, ValueError):
        return "(not a valid key)"
