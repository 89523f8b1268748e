"""The software parsers on outputs published from real Sparks (docs/operations.md,
"The software a Spark runs"), and on odd output: they never raise and never
take an error message for a version."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from telemetry.software import (
    _IMAGE_TAG_RE,
    Image,
    SoftwareReading,
    as_image_tag,
    asked_images,
    clean_version,
    docker_name,
    parse_connectx_firmware,
    parse_dgx_release,
    parse_docker,
    parse_host_vllm,
    parse_kernel,
    parse_nccl,
    parse_nvidia_proc,
    parse_nvidia_smi_version,
    parse_software,
    pull_build,
    version_key,
)
from telemetry.software_script import software_lines

# NVlabs/sionna-rk doc/source/setup/spark.rst: a Spark installed from 7.2.3, updated over the air to 7.3.1.
DGX_RELEASE_OTA = """DGX_NAME="DGX Spark"
DGX_PRETTY_NAME="NVIDIA DGX Spark"
DGX_SWBUILD_DATE="2025-09-10-13-50-03"
DGX_SWBUILD_VERSION="7.2.3"
DGX_COMMIT_ID="833b4a7"
DGX_PLATFORM="DGX Server for KVM"

DGX_OTA_VERSION="7.3.1"
DGX_OTA_DATE="Wed Nov 19 05:05:30 PM CET 2025"
"""

# NVIDIA/NemoClaw (its tests of the "release history schema", issue #7103): every
# update appends a version/date pair; the last one is what runs.
DGX_RELEASE_HISTORY = (
    DGX_RELEASE_OTA
    + """DGX_OTA_VERSION="7.4.0"
DGX_OTA_DATE="Thu Apr 16 04:55:25 PM PDT 2026"
DGX_OTA_VERSION="7.5.0"
DGX_OTA_DATE="Mon Jul 13 21:29:13 UTC 2026"
"""
)

# utkuozdemir/nvidia_gpu_exporter internal/captures: `nvidia-smi --version` before and from 610.
SMI_595 = """NVIDIA-SMI version  : 595.71.05
NVML version        : 595.71
DRIVER version      : 595.71.05
CUDA Version        : 13.2
"""
SMI_610 = """NVIDIA-SMI version  : 610.57.04
NVML version        : 610.57
DRIVER version      : Deprecated, see "KMD version" instead
CUDA version        : Deprecated, see "CUDA UMD version" instead
KMD version         : 610.57.04
CUDA UMD version    : 13.3
"""
# The table header (NVIDIA's VSS playbook checks `nvidia-smi | grep "Driver Version"`).
SMI_HEADER = "| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0     |\n"
SMI_MISMATCH = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.126\n"

# /proc/driver/nvidia/version on a Spark (open kernel module) and on an older aarch64 driver.
PROC_SPARK = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.95.05  Release Build  "
    "(dvs-builder@U22-I3-AF03-09-1)  Tue Sep 23 09:47:52 UTC 2025\n"
)
PROC_OLD = "NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.120  Fri Sep 13 11:01:10 UTC 2024\n"

# /sys/class/infiniband/*/fw_ver as the script prints it (dev|fw), and ethtool -i of a Spark twin.
FW_SYSFS = "rocep1s0f0|28.45.4028\nrocep1s0f1|28.45.4028\nroceP2p1s0f0|28.45.4028\nroceP2p1s0f1|28.45.4028\n"
ETHTOOL_I = (
    "driver: mlx5_core\nversion: 6.17.0-1029-nvidia\nfirmware-version: 28.45.4028 (NVD0000000087)\n"
    "expansion-rom-version: \n"
)

# include/nccl.h of a build of NVIDIA's NCCL playbook (git clone -b v2.28.9-1 ...; make src.build).
NCCL_RELEASE = """#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 9
#define NCCL_SUFFIX ""
lib=libnccl.so.2.28.9
describe=v2.28.9-1
branch=HEAD
"""
# NVIDIA's multi-Spark set-up script builds rings from a branch (dgxspark-3node-ring).
NCCL_BRANCH = """#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 3
#define NCCL_SUFFIX ""
lib=libnccl.so.2.28.3
describe=v2.28.3-1-17-g1a2b3c4
branch=dgxspark-3node-ring
"""

VLLM = "nvcr.io/nvidia/vllm:26.05-py3"
DIGEST = "sha256:" + "ab" * 32
DOCKER_IMAGES = (
    f"nvcr.io/nvidia/vllm|26.05-py3|{DIGEST}|0f1e2d3c4b5a\n"
    f"nvcr.io/nvidia/vllm|25.11-py3|sha256:{'cd' * 32}|9a8b7c6d5e4f\n"
    "lmsysorg/sglang|latest-cu130|<none>|112233445566\n"
    "<none>|<none>|<none>|aabbccddeeff\n"
    "@rc=0\n"
)
DOCKER_ENV = f"image={VLLM}\nNCCL_VERSION=2.27.7-1\nCUDA_VERSION=13.0.2.006\n"


def test_dgx_release_prefers_the_latest_over_the_air_release():
    assert parse_dgx_release(DGX_RELEASE_OTA)[:2] == ("7.3.1", "7.2.3")
    assert parse_dgx_release(DGX_RELEASE_HISTORY)[:2] == ("7.5.0", "7.2.3")
    factory = "\n".join(line for line in DGX_RELEASE_OTA.splitlines() if "OTA" not in line)
    assert parse_dgx_release(factory) == ("7.2.3", "7.2.3", [])


def test_dgx_release_missing_is_unknown_with_a_note():
    value, installed, notes = parse_dgx_release("")
    assert (value, installed) == (None, None) and notes == ["dgx_os: /etc/dgx-release missing (not DGX OS)"]


def test_kernel():
    # NVIDIA/workbench-example-llama2-finetune#4:
    # "NVIDIA DGX Spark Version 7.2.3 (GNU/Linux 6.11.0-1016-nvidia aarch64)"
    assert parse_kernel("6.11.0-1016-nvidia\n") == ("6.11.0-1016-nvidia", [])
    assert parse_kernel("sh: uname: not found\n")[0] is None


def test_nvidia_smi_versions_before_and_after_610():
    assert parse_nvidia_smi_version(SMI_595)[:2] == ("595.71.05", "13.2")
    assert parse_nvidia_smi_version(SMI_610)[:2] == ("610.57.04", "13.3")
    assert parse_nvidia_smi_version(SMI_HEADER)[:2] == ("580.95.05", "13.0")


def test_nvidia_smi_mismatch_is_named_and_no_version():
    driver, cuda, notes = parse_nvidia_smi_version(SMI_MISMATCH)
    assert (driver, cuda) == (None, None)
    assert "reboot" in notes[0]


def test_loaded_kernel_module():
    assert parse_nvidia_proc(PROC_SPARK) == "580.95.05"
    assert parse_nvidia_proc(PROC_OLD) == "550.120"
    assert parse_nvidia_proc("") is None


def test_connectx_firmware_from_sysfs_then_ethtool():
    assert parse_connectx_firmware(FW_SYSFS, "") == ("28.45.4028", [])
    assert parse_connectx_firmware("", ETHTOOL_I) == ("28.45.4028", [])
    assert parse_connectx_firmware("", "")[0] is None


def test_nccl_release_and_branch_builds():
    assert parse_nccl(NCCL_RELEASE) == ("2.28.9", "v2.28.9-1", True, [])
    version, build, release, notes = parse_nccl(NCCL_BRANCH)
    assert (version, build, release) == ("2.28.3", "dgxspark-3node-ring v2.28.3-1-17-g1a2b3c4", False)
    assert notes == ["nccl: built from dgxspark-3node-ring v2.28.3-1-17-g1a2b3c4, not a release tag"]
    assert parse_nccl("")[0] is None


def test_docker_images_keep_the_launchers_repositories():
    state, images, notes = parse_docker(DOCKER_IMAGES, DOCKER_ENV, (VLLM,))
    assert state == "ok" and notes == []
    assert images == (
        Image("nvcr.io/nvidia/vllm:25.11-py3", f"sha256:{'cd' * 32}", "9a8b7c6d5e4f", None),
        Image(VLLM, DIGEST, "0f1e2d3c4b5a", "2.27.7"),
    )


def test_docker_images_find_a_tag_with_capitals_and_an_ipv6_registry():
    rc1 = "vllm/vllm-openai:v0.12.0-RC1"
    ipv6 = "[fd00:5::10]:5000/spark/vllm:26.05-py3"
    listed = (
        f"vllm/vllm-openai|v0.12.0-RC1|{DIGEST}|0f1e2d3c4b5a\n"
        f"[fd00:5::10]:5000/spark/vllm|26.05-py3|sha256:{'cd' * 32}|9a8b7c6d5e4f\n@rc=0\n"
    )
    env = f"image={rc1}\nNCCL_VERSION=2.27.7-1\nimage={ipv6}\n"
    state, images, notes = parse_docker(listed, env, asked_images(env))
    assert (state, notes) == ("ok", [])
    assert images == (
        Image(ipv6, f"sha256:{'cd' * 32}", "9a8b7c6d5e4f", None),
        Image(rc1, DIGEST, "0f1e2d3c4b5a", "2.27.7"),
    )


def test_docker_absent_refused_or_down_is_unknown():
    assert parse_docker("docker: not installed\n", "", (VLLM,))[:2] == ("absent", None)
    denied = (
        "permission denied while trying to connect to the Docker daemon socket at "
        "unix:///var/run/docker.sock: Get ...: dial unix /var/run/docker.sock: connect: permission denied\n@rc=1\n"
    )
    assert parse_docker(denied, "", (VLLM,))[:2] == ("denied", None)
    down = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n@rc=1\n"
    assert parse_docker(down, "", (VLLM,))[:2] == ("unreachable", None)
    # Docker 29's words for both
    denied29 = "permission denied while trying to connect to the docker API at unix:///var/run/docker.sock\n@rc=1\n"
    assert parse_docker(denied29, "", (VLLM,))[:2] == ("denied", None)
    down29 = (
        "failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct and if "
        "the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory\n@rc=1\n"
    )
    assert parse_docker(down29, "", (VLLM,))[:2] == ("unreachable", None)
    assert parse_docker("@rc=124\n", "", (VLLM,))[:2] == ("unreachable", None)
    # a permission error that is not the daemon's socket (the client's own config) is not Docker refusing the user
    config = "WARNING: Error loading config file: /home/fleet/.docker/config.json: permission denied\n@rc=1\n"
    assert parse_docker(config, "", (VLLM,)) == ("error", None, ["docker: docker images exited with status 1"])


def _sections(**overrides):
    sections = {
        "dgx_release": DGX_RELEASE_OTA,
        "kernel": "6.17.0-1026-nvidia\n",
        "nvidia_smi": "NVIDIA-SMI version  : 580.95.05\nDRIVER version      : 580.95.05\nCUDA Version        : 13.0\n",
        "nvidia_proc": PROC_SPARK,
        "cx7_fw": FW_SYSFS,
        "ethtool_i": "",
        "nccl": NCCL_RELEASE,
        "docker_images": DOCKER_IMAGES,
        "docker_env": DOCKER_ENV,
    }
    sections.update(overrides)
    return sections


def test_a_whole_reading_and_its_compared_values():
    reading = parse_software(_sections())
    assert reading.values() == {
        "dgx_os": "7.3.1",
        "kernel": "6.17.0-1026-nvidia",
        "driver": "580.95.05",
        "cuda": "13.0",
        "connectx_firmware": "28.45.4028",
        "nccl": "2.28.9",
        f"image:{VLLM}": DIGEST,
    }
    assert reading.notes == ()
    assert SoftwareReading.from_dict(reading.to_dict()) == reading


def test_the_loaded_module_is_the_driver_when_nvidia_smi_disagrees():
    reading = parse_software(_sections(nvidia_smi=SMI_MISMATCH, nvidia_proc=PROC_SPARK))
    assert reading.driver == "580.95.05" and reading.cuda is None
    assert any("reboot" in note for note in reading.notes)


def test_a_spark_without_docker_has_unknown_images_not_different_ones():
    reading = parse_software(_sections(docker_images="docker: not installed\n", docker_env=f"image={VLLM}\n"))
    assert reading.docker == "absent" and reading.images is None
    assert reading.values()[f"image:{VLLM}"] is None
    assert reading.notes == ("docker: not installed",)


def test_a_launch_image_not_pulled_is_absent():
    reading = parse_software(_sections(docker_images="@rc=0\n"))
    assert reading.values()[f"image:{VLLM}"] == "absent"


def test_a_branch_build_compares_apart_from_the_release():
    assert parse_software(_sections(nccl=NCCL_BRANCH)).values()["nccl"] == (
        "2.28.3 (dgxspark-3node-ring v2.28.3-1-17-g1a2b3c4)"
    )


@pytest.mark.parametrize(
    ("section", "state", "path"),
    [
        ("/home/fleet/.local/bin/vllm\n", "present", "/home/fleet/.local/bin/vllm"),
        ("/usr/local/bin/vllm", "present", "/usr/local/bin/vllm"),
        ("vllm: not on PATH\n", "absent", None),
        ("", "unread", None),  # the section was not printed: a poll from before it was asked
        ("alias vllm='docker run ... vllm'\n", "unread", None),  # not a path: no answer
        ("/opt/../bin/vllm\n", "unread", None),
        ("/usr/bin/vllm-old\n", "unread", None),  # another program
        ("vllm\n", "unread", None),  # a function or builtin, not a program
    ],
)
def test_vllm_on_the_hosts_path(section, state, path):
    """``command -v vllm`` in the fleet user's SSH shell: where the benchmark
    client finds its own vllm, or that it runs the launch image instead."""
    assert parse_host_vllm(section) == (state, path)
    reading = parse_software(_sections(host_vllm=section))
    assert (reading.vllm, reading.vllm_path) == (state, path)
    assert SoftwareReading.from_dict(reading.to_dict()) == reading
    # where vllm is, is not a version compared across a group
    assert reading.values() == parse_software(_sections()).values()


SITE = "python3.12/site-packages"


@pytest.mark.parametrize(
    ("section", "told", "note"),
    [
        (f"/home/fleet/.venv/bin/vllm\n{SITE}/vllm-0.11.1.dist-info\n{SITE}/ray-2.49.1.dist-info\n",
         ("0.11.1", "3.12", "2.49.1"), None),
        ("/usr/local/bin/vllm\npython3.12/dist-packages/vllm-0.10.2+cu130.dist-info\n", ("0.10.2+cu130", "3.12", None),
         None),
        ("/usr/local/bin/vllm\nvllm-0.11.1.dist-info\n", ("0.11.1", None, None), None),  # no folder: no Python
        # the same version under two Pythons: the version is told, the Python is not
        (f"/usr/local/bin/vllm\n{SITE}/vllm-0.11.1.dist-info\npython3.11/site-packages/vllm-0.11.1.dist-info\n",
         ("0.11.1", None, None), "several Python versions beside /usr/local/bin/vllm (3.12, 3.11)"),
        ("/usr/local/bin/vllm\n", (None, None, None), None),  # a wrapper script: no package beside it
        (f"/usr/local/bin/vllm\n{SITE}/vllm-0.10.2.dist-info\n{SITE}/vllm-0.11.1.dist-info\n",
         (None, "3.12", None), "several vLLM versions beside /usr/local/bin/vllm (0.10.2, 0.11.1)"),
        (f"/usr/local/bin/vllm\n{SITE}/vllm-$(reboot).dist-info\n", (None, "3.12", None), None),  # not a version
        (f"vllm: not on PATH\n{SITE}/vllm-0.11.1.dist-info\n", (None, None, None), None),  # no vllm: nothing told
        ("", (None, None, None), None),
    ],
)  # fmt: skip
def test_the_hosts_vllm_version_its_python_and_ray_from_the_packages_metadata(section, told, note):
    """The ``[python3.X/site-packages/]<vllm|ray>-<version>.dist-info`` folders
    printed after the path: one value each, or none when there is no package
    beside it or several disagree."""
    reading = parse_software(_sections(host_vllm=section))
    assert (reading.vllm_version, reading.vllm_python, reading.vllm_ray) == told
    said = [n for n in reading.notes if n.startswith("vllm:")]
    assert said == ([] if note is None else [f"vllm: {note}: none is told"])
    assert SoftwareReading.from_dict(reading.to_dict()) == reading
    # not compared across a group: a container launch does not run it
    assert reading.values() == parse_software(_sections()).values()


def test_a_reading_stored_before_vllm_was_asked_reads_as_unread():
    stored = parse_software(_sections()).to_dict()
    for key in ("vllm", "vllm_path"):
        stored.pop(key)
    reading = SoftwareReading.from_dict(stored)
    assert (reading.vllm, reading.vllm_path) == ("unread", None)
    odd = SoftwareReading.from_dict(
        {**stored, "vllm": "maybe", "vllm_path": "rm -rf /", "vllm_version": "a b", "vllm_python": 3, "vllm_ray": ""}
    )
    assert (odd.vllm, odd.vllm_path, odd.vllm_version, odd.vllm_python, odd.vllm_ray) == (
        "unread",
        None,
        None,
        None,
        None,
    )
    assert SoftwareReading.from_dict({**stored, "vllm_version": ["0.11"]}).vllm_version is None


def test_versions_order_as_people_read_them():
    assert version_key("580.95.05") < version_key("580.126.09")
    assert version_key("6.17.0-1014-nvidia") < version_key("6.17.0-1026-nvidia")
    assert version_key("7.2.3") < version_key("7.10.0")


def test_empty_sections_read_as_unknown():
    reading = parse_software({})
    assert all(v is None for v in reading.values().values())
    assert reading.docker == "unread" and reading.images is None  # no section at all: nothing asked


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=400)


@settings(max_examples=200, deadline=None)
@given(text, text, text, text, text, text)
def test_odd_output_never_raises_and_yields_only_versions(a, b, c, d, e, f):
    reading = parse_software(
        {"dgx_release": a, "kernel": b, "nvidia_smi": c, "nvidia_proc": d, "cx7_fw": e, "nccl": f,
         "docker_images": a + b, "docker_env": c, "host_vllm": d + e}
    )  # fmt: skip
    assert reading.vllm in ("present", "absent", "unread")
    assert reading.vllm_path is None or (reading.vllm == "present" and reading.vllm_path.endswith("/vllm"))
    for quantity, value in reading.values().items():
        if value is not None and not quantity.startswith("image:"):
            assert clean_version(value.split(" (")[0].split(", ")[0]) is not None
    assert SoftwareReading.from_dict(reading.to_dict()) == reading


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["DGX_OTA_VERSION", "DGX_SWBUILD_VERSION", "DGX_NAME", "junk"]), max_size=8), text)
def test_dgx_release_with_any_key_order(keys, noise):
    lines = [f'{k}="7.{i}.0"' for i, k in enumerate(keys)] + [noise]
    value, installed, _ = parse_dgx_release("\n".join(lines))
    ota = [i for i, k in enumerate(keys) if k == "DGX_OTA_VERSION"]
    if ota and "DGX_OTA_VERSION" not in noise:
        assert value == f"7.{ota[-1]}.0"


def test_asked_images():
    assert asked_images(f"image={VLLM}\nimage=bad ref!\nNCCL_VERSION=1\n") == (VLLM,)


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("nvcr.io/nvidia/vllm:26.05-py3", "nvcr.io/nvidia/vllm:26.05-py3"),
        ("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.0"),
        ("registry.lab.example:5000/spark/vllm_ring:2026.11", "registry.lab.example:5000/spark/vllm_ring:2026.11"),
        # a tag may hold capitals, a path may not
        ("vllm/vllm-openai:v0.12.0-RC1", "vllm/vllm-openai:v0.12.0-RC1"),
        # a registry by its IPv6 address, with and without a port
        ("[fd00:5::10]:5000/spark/vllm:26.05-py3", "[fd00:5::10]:5000/spark/vllm:26.05-py3"),
        ("[::1]/vllm", "[::1]/vllm:latest"),
        # no tag: the one Docker pulls, as `docker images` lists it
        ("localhost:5000/vllm", "localhost:5000/vllm:latest"),
        ("eugr/spark-vllm-docker", "eugr/spark-vllm-docker:latest"),
        # Docker Hub's registry and library/ as `docker images` leaves them out
        ("docker.io/vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.0"),
        ("index.docker.io/library/ubuntu", "ubuntu:latest"),
        ("library/ubuntu:24.04", "ubuntu:24.04"),
        ("docker.io/library/team/vllm:1", "library/team/vllm:1"),
    ],
)
def test_a_launch_image_named_by_its_tag_is_taken_as_docker_lists_it(written, name):
    assert as_image_tag(f"  {written} ") == name
    assert as_image_tag(name) == name


@given(st.from_regex(_IMAGE_TAG_RE, fullmatch=True))
@settings(max_examples=300, deadline=None)
def test_every_image_the_setting_takes_goes_into_the_software_poll(ref):
    """What start-up accepts the poll round's script accepts too: the setting,
    the script and the reading share one grammar (a tag with capitals once
    passed the check and then failed every poll round)."""
    try:
        name = as_image_tag(ref)
    except ValueError:
        assert len(docker_name(ref)) > 255  # only a name past Docker's length is refused
        return
    assert as_image_tag(name) == name
    assert asked_images(f"image={name}\n") == (name,)
    software_lines(images=[name])


def test_a_pulled_build_is_named_in_words_a_shell_takes():
    digest = "sha256:" + "4f" * 32
    assert pull_build("nvcr.io/nvidia/vllm:26.05-py3", digest) == (
        f"docker pull nvcr.io/nvidia/vllm@{digest} && "
        f"docker tag nvcr.io/nvidia/vllm@{digest} nvcr.io/nvidia/vllm:26.05-py3"
    )
    # brackets are a shell pattern: an IPv6 registry is quoted
    assert pull_build("[fd00::5]:5000/vllm:1", digest) == (
        f"docker pull '[fd00::5]:5000/vllm@{digest}' && "
        f"docker tag '[fd00::5]:5000/vllm@{digest}' '[fd00::5]:5000/vllm:1'"
    )


def test_a_launch_image_named_by_digest_is_refused_with_where_to_pin_it():
    digest = "sha256:" + "3c" * 32
    with pytest.raises(ValueError) as refused:
        as_image_tag(f"nvcr.io/nvidia/vllm@{digest}")
    assert str(refused.value) == (
        "name the image by its tag (nvcr.io/nvidia/vllm:<tag>) and pin the build "
        f"({digest}) on the software page: the launchers pull the pinned build by its digest and tag it under that name"
    )


@pytest.mark.parametrize(
    "ref", ["", "nvcr.io/nvidia/vllm:26.05 py3", "vllm;reboot", "NVIDIA/vllm:1", "vllm:", "vllm:-x", "$(id)", "a//b"]
)
def test_text_that_is_no_image_reference_is_refused(ref):
    with pytest.raises(ValueError, match="^not a Docker image reference such as nvcr.io/nvidia/vllm:26.05-py3$"):
        as_image_tag(ref)
