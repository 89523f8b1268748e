"""``netplan generate`` (Debian's netplan.io, the real tool) reads every netplan
file the product generates: each Spark of the demo lab's groups (the group
page's zip) and each Spark of every lab-designer candidate from 2 to 8
Sparks. Each file goes alone into its own root (one Spark, one machine) as
``/etc/netplan/40-cx7.yaml``; netplan must accept it without a warning and
write systemd-networkd units that carry exactly the file's addresses and
MTU 9000 on every twin.

    demo: a direct pair (spark-01/02), a 4-ring (spark-03..06), eight Sparks on
    sw-804 through breakouts (spark-07..14), a 100G pair (spark-15/16).
"""

from __future__ import annotations

import io
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from design.generate import Request, designs, netplans
from inventory.models import NodeGroup
from tests.tools import tool


def networkd(folder: Path, text: str) -> tuple[int, str, dict[str, dict[str, list[str]]]]:
    """Run netplan generate on one Spark's file: (exit code, stderr, unit key -> values per interface)."""
    netplan_dir = folder / "etc" / "netplan"
    netplan_dir.mkdir(parents=True)
    path = netplan_dir / "40-cx7.yaml"
    path.write_text(text)
    path.chmod(0o600)  # as the file's install line says; netplan warns about anything wider
    run = subprocess.run(
        [tool("netplan"), "generate", "--root-dir", str(folder)], capture_output=True, text=True, check=False
    )
    units: dict[str, dict[str, list[str]]] = {}
    for unit in sorted((folder / "run" / "systemd" / "network").glob("10-netplan-*.network")):
        iface = unit.name.removeprefix("10-netplan-").removesuffix(".network")
        values: dict[str, list[str]] = {}
        for line in unit.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep:
                values.setdefault(key, []).append(value)
        units[iface] = values
    return run.returncode, run.stderr, units


def check_all(files: dict[str, str], tmp_path: Path) -> None:
    """Every file through netplan, four at a time; each interface's unit matches its YAML."""
    assert files
    labels = sorted(files)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda i: networkd(tmp_path / f"root-{i}", files[labels[i]]), range(len(labels))))
    for label, (code, stderr, units) in zip(labels, results, strict=True):
        assert code == 0 and stderr.strip() == "", f"{label}: netplan generate failed ({code}): {stderr}"
        ethernets = yaml.safe_load(files[label])["network"]["ethernets"]
        assert set(units) == set(ethernets), label
        for iface, conf in ethernets.items():
            assert units[iface]["Address"] == conf["addresses"], f"{label} {iface}"
            assert units[iface]["MTUBytes"] == ["9000"], f"{label} {iface}"


@pytest.mark.django_db
def test_netplan_reads_every_demo_group_file(import_lab, client, viewer_user, tmp_path):
    import_lab("demo.yaml")
    client.force_login(viewer_user)
    files = {}
    groups = [
        g for g in NodeGroup.objects.filter(retired_at__isnull=True, parent__isnull=True) if g.members.count() > 1
    ]
    assert {g.kind for g in groups} >= {"direct", "ring", "switched"}
    for group in groups:
        response = client.get(f"/groups/{group.pk}/netplan.zip")
        assert response.status_code == 200, group.name
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        for name in archive.namelist():
            files[f"{group.name}/{name}"] = archive.read(name).decode()
    assert len(files) >= 16
    check_all(files, tmp_path)


@pytest.mark.parametrize("sparks", range(2, 9))
def test_netplan_reads_every_designed_spark_file(sparks, tmp_path):
    files = {
        f"{design.key}/{node}": text
        for design in designs(Request(sparks_128=sparks))
        for node, text in netplans(design).items()
    }
    check_all(files, tmp_path)


def test_netplan_refuses_a_broken_file(tmp_path):
    """The check is not blind: a file netplan cannot read fails with its reason."""
    bad = "network:\n  version: 2\n  ethernets:\n    enp1s0f0np0:\n      mtu: nine-thousand\n"
    code, stderr, _ = networkd(tmp_path, bad)
    assert code == 1 and "invalid unsigned int value 'nine-thousand'" in stderr
