"""Reading software over real SSH from simulated Sparks: only the targets that
are due get the software sections; what they print parses into the reading;
a Spark without Docker, with nvidia-smi failing or [N/A] gauges still polls cleanly."""

import dataclasses
import platform
import subprocess
import time
from pathlib import Path

import pytest

from simfleet.simulator import SimNode
from simfleet.software_answers import DEFAULT_SOFTWARE
from telemetry import conf
from telemetry.parsers import parse_poll_output, split_sections
from telemetry.poller import poll_nodes
from telemetry.software import as_image_tag
from telemetry.software_script import SOFTWARE_SECTIONS, SoftwareScriptError, software_lines, software_poll_script
from tests.tools import tool

VLLM = "nvcr.io/nvidia/vllm:26.05-py3"
SCRIPT = software_poll_script(images=(VLLM,))


def _poll(running, due, script=SCRIPT, **kwargs):
    targets = [dataclasses.replace(t, software=t.name in due) for t in running.targets()]
    return poll_nodes(
        targets,
        client_keys=[running.client_key.path],
        known_hosts=running.accepted(),
        software_script=script,
        **kwargs,
    )


def test_only_due_sparks_read_their_software(run_fleet):
    nodes = [SimNode("a", cabled_ports={"p0": ("b", "p0")}), SimNode("b", cabled_ports={"p0": ("a", "p0")})]

    async def body(running):
        return await _poll(running, {"a"})

    a, b = run_fleet(nodes, body)
    assert a.error == "" and a.sample.errors == () and b.sample.errors == ()
    assert b.sample.software is None
    sw = a.sample.software
    assert sw.values() == {
        "dgx_os": DEFAULT_SOFTWARE["dgx_os"],
        "kernel": DEFAULT_SOFTWARE["kernel"],
        "driver": DEFAULT_SOFTWARE["driver"],
        "cuda": DEFAULT_SOFTWARE["cuda"],
        "connectx_firmware": DEFAULT_SOFTWARE["connectx_firmware"],
        "nccl": DEFAULT_SOFTWARE["nccl"],
        f"image:{VLLM}": DEFAULT_SOFTWARE["image_digest"],
    }
    assert sw.nccl_build == "v2.28.9-1" and sw.nccl_release is True
    assert sw.image(VLLM).nccl == "2.27.7" and sw.docker == "ok" and sw.notes == ()
    assert sw.dgx_os_installed == "7.2.3"
    assert (sw.vllm, sw.vllm_path) == ("absent", None)  # vLLM in a container, as NVIDIA's playbooks run it


def test_images_named_with_capitals_or_an_ipv6_registry_are_read_over_ssh(run_fleet):
    """Both names pass start-up's check; the poll's script asks Docker about them
    (quoted: brackets are a shell pattern) and the reading finds them."""
    rc1, ipv6 = as_image_tag("vllm/vllm-openai:v0.12.0-RC1"), as_image_tag("[fd00:5::10]:5000/spark/vllm")
    assert ipv6 == "[fd00:5::10]:5000/spark/vllm:latest"
    script = software_poll_script(images=(rc1, ipv6))
    assert f"printf 'image=%s\\n' '{ipv6}';" in script

    async def body(running):
        return await _poll(running, {"a"}, script=script)

    (a,) = run_fleet([SimNode("a")], body)
    assert a.error == "" and a.sample.errors == ()
    sw = a.sample.software
    assert sw.launch_images == (rc1, ipv6)
    assert (sw.values()[f"image:{rc1}"], sw.values()[f"image:{ipv6}"]) == (DEFAULT_SOFTWARE["image_digest"],) * 2


def test_odd_tools_still_poll_cleanly(run_fleet):
    nodes = [
        SimNode("nodocker", faults={"no-docker"}),
        SimNode("denied", faults={"docker-denied"}),
        SimNode("mismatch", faults={"smi-mismatch"}, software={"driver": "580.126.09"}),
        SimNode("plain", faults={"no-dgx-release"}, software={"image_digest": "absent"}),
        SimNode("hostvllm", faults={"no-docker"}, software={"vllm": "/home/fleet/.local/bin/vllm"}),
    ]

    async def body(running):
        return {r.name: r for r in await _poll(running, {n.name for n in nodes})}

    results = run_fleet(nodes, body)
    for result in results.values():
        # the gauges, links and memory are read as on any poll: nothing here is a parse error
        assert result.error == "" and result.sample.errors == () and result.sample.memory is not None
    assert results["nodocker"].sample.software.docker == "absent"
    assert results["nodocker"].sample.software.values()[f"image:{VLLM}"] is None
    assert results["denied"].sample.software.docker == "denied"
    mismatch = results["mismatch"].sample.software
    assert mismatch.driver == "580.126.09" and mismatch.cuda is None  # the loaded module answers
    assert any("reboot" in note for note in mismatch.notes)
    plain = results["plain"].sample.software
    assert plain.dgx_os is None and plain.values()[f"image:{VLLM}"] == "absent"
    host = results["hostvllm"].sample.software
    assert (host.vllm, host.vllm_path, host.docker) == ("present", "/home/fleet/.local/bin/vllm", "absent")
    assert (results["nodocker"].sample.software.vllm, plain.vllm) == ("absent", "absent")


def test_one_node_differs_in_every_quantity(run_fleet):
    odd = {
        "dgx_os": "7.2.3",
        "kernel": "6.11.0-1016-nvidia",
        "driver": "580.82.09",
        "cuda": "12.9",
        "connectx_firmware": "28.43.1014",
        "nccl": "2.27.7",
        "nccl_build": "v2.27.7-1",
        "image_digest": "sha256:" + "cd" * 32,
    }
    nodes = [SimNode("ok"), SimNode("odd", software=odd)]

    async def body(running):
        return {r.name: r.sample.software for r in await _poll(running, {"ok", "odd"})}

    readings = run_fleet(nodes, body)
    ok, other = readings["ok"].values(), readings["odd"].values()
    assert {q for q in ok if ok[q] != other[q]} == set(ok)  # every quantity differs
    assert other["driver"] == "580.82.09" and other[f"image:{VLLM}"] == "sha256:" + "cd" * 32


def test_the_script_refuses_values_that_are_not_plain():
    for home in ("$(reboot)/x", "/a/../etc", "$USER/nccl", "a b"):
        try:
            software_lines(nccl_home=home)
        except SoftwareScriptError as exc:
            assert "FLEET_NCCL_HOME" in str(exc)
        else:
            raise AssertionError(home)
    try:
        software_lines(images=["nvcr.io/x:1; reboot"])
    except SoftwareScriptError as exc:
        assert "not an image reference" in str(exc)
    else:
        raise AssertionError("image accepted")
    assert "'\"$HOME\"/nccl/build'" not in SCRIPT and 'h="$HOME"/nccl/build' in SCRIPT


def test_the_script_runs_here_under_sh_and_passes_shellcheck(tmp_path):
    """This machine has no GPU, no ConnectX-7 and no Docker daemon: every section
    still prints, the script ends with its marker, and the parsers read it."""
    script = tmp_path / "software.sh"
    script.write_text("#!/bin/sh\n" + "\n".join(software_lines(images=[VLLM])) + "\n")
    check = subprocess.run(
        [tool("shellcheck"), "--shell=sh", "--severity=style", "--format=gcc", str(script)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    started = time.monotonic()
    run = subprocess.run(["/bin/sh", "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0 and time.monotonic() - started < 20
    sections = split_sections(run.stdout)
    assert set(SOFTWARE_SECTIONS) <= set(sections) and "end" in sections
    sample = parse_poll_output(run.stdout)
    assert sample.software is not None and sample.software.launch_images == (VLLM,)
    assert sample.software.kernel == platform.release()


def run_script(first: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The software poll's script under a real /bin/sh whose PATH is the system's, ``first`` before it."""
    base = "/usr/local/bin:/usr/bin:/bin"
    path = f"{first}:{base}" if first is not None else base
    return subprocess.run(
        ["/bin/sh", "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False, env={"PATH": path}
    )


def test_the_script_finds_vllm_where_the_fleet_users_shell_does(tmp_path):
    """The same PATH lookup the benchmark client makes, by a real shell: a
    vllm on the PATH is found with its path, none reads as absent."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    without = run_script()
    stand_in = bin_dir / "vllm"
    stand_in.write_text("#!/bin/sh\nexit 0\n")
    stand_in.chmod(0o755)
    found = run_script(bin_dir)
    assert without.returncode == 0 and found.returncode == 0
    absent, present = parse_poll_output(without.stdout).software, parse_poll_output(found.stdout).software
    assert absent is not None and present is not None
    assert (absent.vllm, absent.vllm_path) == ("absent", None)
    assert (present.vllm, present.vllm_path) == ("present", str(stand_in))


@pytest.mark.parametrize(
    ("layout", "version"),
    [
        ("venv", "0.11.1"),  # python -m venv; pip install vllm
        ("uv-tool", "0.10.2+cu130"),  # uv tool install: ~/.local/bin/vllm links into the tool's own venv
        ("debian", "0.11.0"),  # pip on Debian or Ubuntu's system python: dist-packages
        ("wrapper", None),  # a script of the lab's own (docker run ... vllm "$@"): no package beside it
    ],
)
def test_the_script_reads_the_hosts_vllm_version_from_its_package_without_running_it(tmp_path, layout, version):
    """A real shell runs the script with a vllm that would fail if run: the
    version comes from the package's metadata folder beside it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if layout == "uv-tool":
        home = tmp_path / "share" / "uv" / "tools" / "vllm"
        (home / "bin").mkdir(parents=True)
        program = home / "bin" / "vllm"
        (bin_dir / "vllm").symlink_to(program)
        (home / "lib" / "python3.12" / "site-packages" / f"vllm-{version}.dist-info").mkdir(parents=True)
    else:
        program = bin_dir / "vllm"
        packages = {"venv": "site-packages", "debian": "dist-packages"}.get(layout)
        if packages is not None:
            (tmp_path / "lib" / "python3.12" / packages / f"vllm-{version}.dist-info").mkdir(parents=True)
            (tmp_path / "lib" / "python3.12" / packages / "torch-2.9.0.dist-info").mkdir()
            (tmp_path / "lib" / "python3.12" / packages / "ray-2.49.1.dist-info").mkdir()
    program.write_text("#!/bin/sh\necho ran >&2\nexit 3\n")
    program.chmod(0o755)
    run = run_script(bin_dir)
    assert run.returncode == 0 and "ran" not in run.stderr
    software = parse_poll_output(run.stdout).software
    assert software is not None
    assert (software.vllm, software.vllm_path, software.vllm_version) == ("present", str(bin_dir / "vllm"), version)
    assert (software.vllm_python, software.vllm_ray) == (
        (None, None) if version is None else ("3.12", None if layout == "uv-tool" else "2.49.1")
    )


def test_a_launch_image_named_by_digest_stops_start_up_with_the_fix(settings):
    """FLEET_VLLM_IMAGE by digest: `manage.py check` (and migrate, which the compose
    stack runs first) refuses it, naming the variable and where a build is pinned."""
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    digest = "sha256:" + "4f" * 32
    settings.FLEET_VLLM_IMAGE = f"nvcr.io/nvidia/vllm@{digest}"
    with pytest.raises(SystemCheckError) as stopped:
        call_command("check")
    assert (
        f"(core.E001) FLEET_VLLM_IMAGE='nvcr.io/nvidia/vllm@{digest}' cannot be read: name the image by its tag"
        in str(stopped.value)
    )
    settings.FLEET_VLLM_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"
    call_command("check")  # a tag passes


def test_settings_the_software_poll_cannot_take_stop_start_up(settings):
    """A launch image start-up takes, the poll's script takes: a tag with capitals
    passes both; an NCCL folder the script cannot quote stops `manage.py check`
    (it would otherwise fail every poll round)."""
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    settings.FLEET_VLLM_IMAGE = "vllm/vllm-openai:v0.12.0-RC1"
    call_command("check")
    software_poll_script(images=conf.launch_images())  # the poll round's own call
    settings.FLEET_NCCL_HOME = "$(reboot)/nccl"
    with pytest.raises(SystemCheckError) as stopped:
        call_command("check")
    assert "(telemetry.E002) FLEET_NCCL_HOME '$(reboot)/nccl' is not a plain folder path" in str(stopped.value)


def test_the_launchers_and_the_software_reading_default_to_one_image():
    from fabric.command import VerifySettings
    from placement.launch import DEFAULT_MGMT_IFACE, DEFAULT_VLLM_IMAGE
    from telemetry.conf import DEFAULT_LAUNCH_IMAGE
    from telemetry.conf import DEFAULT_MGMT_IFACE as READ_MGMT_IFACE

    assert DEFAULT_LAUNCH_IMAGE == DEFAULT_VLLM_IMAGE
    # and to one management interface, the launches' and the fabric verification's
    assert READ_MGMT_IFACE == DEFAULT_MGMT_IFACE == VerifySettings().mgmt_iface == conf.mgmt_iface()
