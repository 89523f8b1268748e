"""The shell scripts the repository ships (the two set-up commands, CI, the
deployment helpers) pass shellcheck, the real tool, with no finding."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.tools import tool

ROOT = Path(__file__).resolve().parent.parent


def shipped_scripts() -> list[Path]:
    found = [ROOT / "run", ROOT / ".ci" / "run"]
    found += sorted((ROOT / "deploy").rglob("*.sh"))
    return found


def test_every_shipped_shell_script_passes_shellcheck():
    scripts = shipped_scripts()
    for path in scripts:
        assert path.read_text().startswith(("#!/usr/bin/env bash", "#!/bin/sh")), path
    run = subprocess.run(
        [tool("shellcheck"), "--severity=style", "--format=gcc", *map(str, scripts)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
