"""What serving sends a node, read as bash reads it: no value from the
inventory or a user ever becomes a word of its own on a command line."""

from __future__ import annotations

import re
import shlex

import pytest

from serving import steps


def test_router_and_stop_scripts_quote_every_value():
    step = steps.router_step(
        "n1", serving_id=7, port=9001, metrics_port=9002, workers=["http://a:1", "http://b:2; rm -rf /"]
    )
    line = next(x for x in step.script.splitlines() if "vllm-router" in x)
    words = shlex.split(line)
    assert words[words.index("--worker-urls") + 2] == "http://b:2; rm -rf /"  # one argument, never a command
    assert steps.stop_script(7).splitlines()[0] == (
        "docker ps -aq --filter label=spark-fleet.serving=7 | xargs -r docker rm -f"
    )


def test_what_runs_is_read_line_by_line():
    output = "12 spark-fleet-12-1-0\n12 router\ngarbage line\n3 spark-fleet-3-2-1\n"
    assert steps.read_what_runs(output) == {12: {"spark-fleet-12-1-0", "router"}, 3: {"spark-fleet-3-2-1"}}
    assert steps.container(12, 0, 1) == "spark-fleet-12-1-1"


def test_a_multi_node_instance_reads_each_ranks_nccl_network_from_its_own_container():
    """One step per rank of a multi-node instance, on its own node: grep its
    Ray worker's log in its container for the network its NCCL chose; one-node
    copies read nothing; the step never fails (|| true)."""
    from types import SimpleNamespace

    plan = SimpleNamespace(instances=(("a", "b"), ("c",)))
    found = steps.network_steps(plan, serving_id=9)  # type: ignore[arg-type]
    assert [(s.node, s.label) for s in found] == [("a", "NCCL network"), ("b", "NCCL network")]
    assert found[1].script == (
        "docker exec spark-fleet-9-1-1 sh -c 'grep -ahE '\"'\"'NCCL INFO (Using network |NET/(IB|Socket) : Using )'"
        "\"'\"' /tmp/ray/session_latest/logs/worker-*.out 2>/dev/null | head -n 32' || true\n"
    )
    words = shlex.split(found[0].script)
    assert words[:5] == ["docker", "exec", "spark-fleet-9-1-0", "sh", "-c"] and words[-2:] == ["||", "true"]
    assert shlex.split(words[5])[:3] == ["grep", "-ahE", steps.NCCL_NETWORK_LINES]


def _shellcheck(tmp_path, script: str) -> None:
    """shellcheck (Debian's, the real tool) reads the step as the node's bash -s does: no finding."""
    import subprocess

    from tests.tools import tool

    path = tmp_path / "step.sh"
    path.write_text("#!/usr/bin/env bash\n" + script)
    run = subprocess.run(
        [tool("shellcheck"), "--shell=bash", "--severity=style", "--format=gcc", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, ""), run.stdout + run.stderr


def test_the_nccl_network_step_passes_shellcheck(tmp_path):
    from types import SimpleNamespace

    (step,) = steps.network_steps(SimpleNamespace(instances=(("a", "b"),)), serving_id=3)[:1]  # type: ignore[arg-type]
    _shellcheck(tmp_path, step.script)


IMAGE = "nvcr.io/nvidia/vllm:25.11-py3"


def _image_step(node: str = "n1", pinned: str = ""):
    from types import SimpleNamespace

    plan = SimpleNamespace(nodes=(node, "n2"))
    settings = SimpleNamespace(vllm_image=IMAGE)
    found = steps.image_steps(plan, settings, pinned=pinned)  # type: ignore[arg-type]
    assert [(s.node, s.label, s.image, s.pinned) for s in found] == [
        (node, "image", IMAGE, pinned),
        ("n2", "image", IMAGE, pinned),
    ]
    return found[0]


@pytest.mark.parametrize("pinned", ["", "sha256:" + "cd" * 32])
def test_the_image_step_passes_shellcheck(tmp_path, pinned):
    _shellcheck(tmp_path, _image_step(pinned=pinned).script)


# A docker for a real bash: it logs its arguments, has the image when HAS_IMAGE=1 or
# once pulled, and its pull prints what docker pull prints without a terminal, or fails as told.
FAKE_DOCKER = """#!/bin/sh
echo "$*" >> "$HOME/docker.log"
has() { [ "$HAS_IMAGE" = 1 ] || [ -f "$HOME/pulled" ]; }
case "$1 $2" in
  "image inspect")
    if ! has; then echo "Error: No such image: $3" >&2; exit 1; fi
    case "$3 $4" in
      "--format image id: "*) echo "image id: sha256:$BUILD" ;;
      "--format repo digests: "*) echo "repo digests: nvcr.io/nvidia/vllm@sha256:$DIGEST" ;;
      *) echo '[{"Id": "sha256:0f1e"}]' ;;
    esac
    exit 0 ;;
  "tag "*) exit 0 ;;
  "pull "*)
    if [ -n "$PULL_ERROR" ]; then echo "Error response from daemon: $PULL_ERROR" >&2; exit 1; fi
    echo "25.11-py3: Pulling from nvidia/vllm"
    echo "a3be5d4ce401: Pulling fs layer"; echo "a3be5d4ce401: Pull complete"
    echo "Status: Downloaded newer image for $2"; : > "$HOME/pulled"; exit 0 ;;
esac
exit 2
"""
BUILD, DIGEST = "ab" * 32, "cd" * 32


def _run_image_step(tmp_path, with_docker: bool = True, pinned: str = "", **env: str):
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if with_docker:
        docker = bin_dir / "docker"
        docker.write_text(FAKE_DOCKER)
        docker.chmod(0o755)
    for name in ("cat", "sh"):
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(shutil.which(name))
    (tmp_path / "pulled").unlink(missing_ok=True)
    script = _image_step(pinned=pinned).script
    status, output, calls = _real_bash(
        tmp_path, script, {"PATH": str(bin_dir), "BUILD": BUILD, "DIGEST": DIGEST, **env}
    )
    return status, output, calls.splitlines()


def _real_bash(home, script: str, env: dict[str, str]) -> tuple[int, str, str]:
    """The step's script under a real ``bash -s``, as the fleet user's shell runs serving's one command:
    its status, its output, and what the stand-in docker was asked."""
    import subprocess

    (home / "docker.log").write_text("")
    done = subprocess.run(
        ["bash", "-s"],
        executable="/bin/bash",
        input="exec 2>&1\n" + script,
        capture_output=True,
        text=True,
        env={"HOME": str(home), **env},
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout, (home / "docker.log").read_text()


def test_the_image_step_downloads_only_an_image_that_is_not_there(tmp_path):
    """Run by a real bash: an image already there is not asked of the registry
    (a lab without the registry serves from what it has); a missing one is
    pulled, and its layers count; a failed pull fails the step with Docker's
    words; without docker, bash's."""
    from telemetry.docker_start import pull_failure, pull_layers

    # the last lines: which build the node now has, and the registry digests it is known by
    build = f"image id: sha256:{BUILD}\nrepo digests: nvcr.io/nvidia/vllm@sha256:{DIGEST}\n"
    inspect = [f"image inspect --format image id: {{{{.Id}}}} {IMAGE}",
               f'image inspect --format repo digests: {{{{join .RepoDigests " "}}}} {IMAGE}']  # fmt: skip
    status, output, calls = _run_image_step(tmp_path, HAS_IMAGE="1")
    assert (status, output) == (0, f"{IMAGE} is already on this Spark\n{build}")
    assert calls == [f"image inspect {IMAGE}", *inspect]
    assert steps.image_id_in(output) == f"sha256:{BUILD}"
    assert steps.repo_digests_in(output) == [f"sha256:{DIGEST}"]

    status, output, calls = _run_image_step(tmp_path, HAS_IMAGE="0")
    assert status == 0 and output.endswith(f"Status: Downloaded newer image for {IMAGE}\n{build}")
    assert calls == [f"image inspect {IMAGE}", f"pull {IMAGE}", *inspect]
    assert "No such image" not in output  # the inspect's own complaint stays out of the step's output
    assert pull_layers(output) == (1, 1)

    status, output, _ = _run_image_step(tmp_path, HAS_IMAGE="0", PULL_ERROR="manifest unknown")
    assert (status, output) == (1, "Error response from daemon: manifest unknown\n")
    assert pull_failure(status, output) == "download"
    full = "failed to register layer: write /usr/lib/libcudnn.so.9: no space left on device"
    status, output, _ = _run_image_step(tmp_path, HAS_IMAGE="0", PULL_ERROR=full)
    assert (status, pull_failure(status, output)) == (1, "disk")

    bare = tmp_path / "bare"
    bare.mkdir()
    status, output, _ = _run_image_step(bare, with_docker=False)
    assert status == 127 and output.endswith("docker: command not found\n")
    assert pull_failure(status, output) == "absent"


def test_a_pinned_image_is_pulled_by_its_digest_and_tagged(tmp_path):
    """Run by a real bash: with the lab's pin, a node without the image pulls
    the pinned build by its digest and tags it as the image the engines
    start (a tag moves; the pin does not); a node with the image is left as
    it is (the runner then compares its digests with the pin)."""
    pinned = f"sha256:{DIGEST}"
    by_digest = f"nvcr.io/nvidia/vllm@{pinned}"
    inspect = [f"image inspect --format image id: {{{{.Id}}}} {IMAGE}",
               f'image inspect --format repo digests: {{{{join .RepoDigests " "}}}} {IMAGE}']  # fmt: skip
    status, output, calls = _run_image_step(tmp_path, pinned=pinned, HAS_IMAGE="0")
    assert status == 0 and output.endswith(f"Status: Downloaded newer image for {by_digest}\nimage id: sha256:{BUILD}\n"
                                           f"repo digests: {by_digest}\n")  # fmt: skip
    assert calls == [f"image inspect {IMAGE}", f"pull {by_digest}", f"tag {by_digest} {IMAGE}", *inspect]
    assert steps.repo_digests_in(output) == [pinned]

    status, output, calls = _run_image_step(tmp_path, pinned=pinned, HAS_IMAGE="1")
    assert (status, calls) == (0, [f"image inspect {IMAGE}", *inspect])

    status, output, _ = _run_image_step(tmp_path, pinned=pinned, HAS_IMAGE="0", PULL_ERROR="manifest unknown")
    assert (status, output) == (1, "Error response from daemon: manifest unknown\n")


@pytest.mark.parametrize("pin", ["25.11-py3", "sha256:" + "cd" * 31, "sha256:" + "CD" * 32, "cd" * 32])
def test_a_pin_that_is_not_a_digest_builds_no_image_step(pin):
    from types import SimpleNamespace

    from placement.launch import LaunchError

    with pytest.raises(LaunchError) as refused:
        steps.image_steps(SimpleNamespace(nodes=("a",)), SimpleNamespace(vllm_image=IMAGE), pinned=pin)  # type: ignore[arg-type]
    assert refused.value.problems == [
        ("image", f"the pin {pin!r} is not a registry digest (sha256: and 64 hex digits)")
    ]


@pytest.mark.parametrize(
    ("ref", "repository"),
    [
        ("nvcr.io/nvidia/vllm:25.11-py3", "nvcr.io/nvidia/vllm"),
        ("registry.lab:5000/vllm:25.11", "registry.lab:5000/vllm"),
        ("registry.lab:5000/vllm", "registry.lab:5000/vllm"),
        ("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai"),
        ("vllm:latest", "vllm"),
        ("nvcr.io/nvidia/vllm@sha256:" + "cd" * 32, "nvcr.io/nvidia/vllm"),
    ],
)
def test_an_images_repository_is_its_reference_without_tag_or_digest(ref, repository):
    from telemetry.software import image_repository

    assert image_repository(ref) == repository


def test_a_node_off_the_pinned_build_is_named_with_the_pull_that_mends_it():
    """The registry digests each node's image step printed, against the pin:
    the first node off it, in name order, is named with the digests it holds
    and the commands that bring the pinned build; unknown digests (not
    printed) are not a difference; a build no registry knows is said so."""
    pin, other = "sha256:" + "cd" * 32, "sha256:" + "4f" * 32
    assert steps.repo_digests_in(f"x\nrepo digests: {IMAGE}@{other} nvcr.io/nvidia/vllm@{pin}\n") == [other, pin]
    assert steps.repo_digests_in("repo digests: \n") == []
    assert steps.repo_digests_in("image id: sha256:" + "ab" * 32 + "\n") is None
    assert steps.off_pin({"a": [pin], "b": None, "c": [other, pin]}, IMAGE, pin) is None
    assert steps.off_pin({"c": [other], "b": [pin], "a": None}, IMAGE, pin) == (
        "c",
        f"c holds {IMAGE} as 4f4f4f4f4f4f, not the build the lab pins (cdcdcdcdcdcd): run `docker pull "
        f"nvcr.io/nvidia/vllm@{pin} && docker tag nvcr.io/nvidia/vllm@{pin} {IMAGE}` there, or move the pin on the "
        "software page, and serve again",
    )
    assert steps.off_pin({"a": []}, IMAGE, pin)[1].startswith(  # type: ignore[index]
        f"a holds {IMAGE} as a build no registry knows (built or loaded), not the build the lab pins"
    )


def test_a_ray_instance_needs_one_build_of_the_image_on_every_node():
    """A tag pulled months apart can name two builds: a multi-node instance
    whose nodes differ is refused, naming each node's build; one-node copies
    may differ (each runs alone); an unknown ID is not a difference."""
    old, new = "sha256:" + "0f" * 32, "sha256:" + "9a" * 32
    tp2 = [["a", "b"]]
    assert steps.one_build(tp2, {"a": old, "b": old}, IMAGE) is None
    assert steps.one_build([["a"], ["b"]], {"a": old, "b": new}, IMAGE) is None
    assert steps.one_build(tp2, {"a": old, "b": ""}, IMAGE) is None
    assert steps.one_build([["c"], ["a", "b"]], {"a": old, "b": new, "c": new}, IMAGE) == (
        "b",
        f"the nodes of instance 2 hold different builds of {IMAGE} (0f0f0f0f0f0f on a, 9a9a9a9a9a9a on b): a Ray "
        f"cluster needs one build on every node; run `docker pull {IMAGE}` on a, b (the registry's current build) "
        "and serve again",
    )
    assert steps.image_id_in(f"image id: {old}\nnoise\nimage id: {new}\n") == new
    assert steps.image_id_in("image id: sha256:short\n") == ""


def test_an_engines_state_and_last_lines_are_read_and_its_crash_named(tmp_path):
    """The wait for an engine reads its container's state, exit code and last
    lines; the line that names the crash is vLLM's engine-core error, not the
    API server's "See root cause above" after it."""
    script = steps.engine_watch_script("spark-fleet-4-1-0")
    assert script.splitlines() == [
        "docker inspect --format 'state: {{.State.Status}} {{.State.ExitCode}}' spark-fleet-4-1-0",
        "docker logs --tail 30 spark-fleet-4-1-0 2>&1",
    ]
    _shellcheck(tmp_path, script)
    logs = (
        "(APIServer pid=1) INFO vLLM API server version 0.11.0\n"
        "(EngineCore_DP0 pid=266) ERROR [core.py:708] ValueError: To serve at least one request with the model's "
        "max seq len (131072), (16.00 GiB KV cache is needed\n"
        "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above.\n"
    )
    state = steps.read_engine_state("state: exited 1\n" + logs)
    assert (state.status, state.exit_code, state.ended, state.lines) == ("exited", 1, True, logs)
    assert steps.crash_line(state.lines) == logs.splitlines()[1].split("[core.py:708] ")[1]
    assert steps.crash_line(state.lines).startswith("ValueError: To serve at least one request")
    assert steps.read_engine_state("state: running 0\nStarting vLLM API server\n").ended is False
    # a node that did not say (no such container, no docker): nothing read, the wait goes on
    assert steps.read_engine_state("Error: No such object: spark-fleet-4-1-0\n") == steps.EngineState("", 0, "")
    # a multi-node copy's vllm serve, run in Ray's head container: whether it ended, and with what
    in_ray = steps.engine_watch_script("spark-fleet-4-1-0", in_ray=True)
    assert in_ray.splitlines()[1] == (
        "docker exec spark-fleet-4-1-0 sh -c 'if [ -f /tmp/spark-fleet-serve.exit ]; then echo \"serve ended: "
        "$(cat /tmp/spark-fleet-serve.exit)\"; fi' 2>/dev/null"
    )
    _shellcheck(tmp_path, in_ray)
    ended = steps.read_engine_state("state: running 0\nserve ended: 1\nRay runtime started.\n" + logs)
    assert (ended.status, ended.exit_code, ended.serve_ended, ended.ended) == ("running", 1, True, True)
    assert ended.lines == "Ray runtime started.\n" + logs
    assert steps.read_engine_state("state: running 0\nRay runtime started.\n").ended is False
    assert steps.crash_line("loading\n\nkilled\n") == "killed"
    assert steps.crash_line("") == ""


# A docker for the weights step under a real bash: it checks the repository came in the environment
# (never in the command's text), writes the files into the mounted cache as hf download does, prints
# tqdm's bars (carriage returns, no terminal) and the snapshot's folder, or hf's error, as told.
FAKE_HF_DOCKER = r"""#!/bin/bash
echo "$*" >> "$HOME/docker.log"
repo=""; cache=""
while [ $# -gt 0 ]; do
  case "$1" in
    -e) case "$2" in SPARK_FLEET_REPO=*) repo="${2#SPARK_FLEET_REPO=}" ;; esac; shift 2 ;;
    -v) cache="${2%%:*}"; shift 2 ;;
    -c) inner="$2"; shift 2 ;;
    *) shift ;;
  esac
done
case "$inner" in *'hf download "$SPARK_FLEET_REPO"'*) ;; *) echo "unexpected command: $inner"; exit 2 ;; esac
folder="$cache/hub/models--${repo//\//--}"
mkdir -p "$folder/blobs" "$folder/snapshots/5d5d"
if [ -n "$HF_ERROR" ]; then
  printf 'Fetching 9 files:   0%%|          | 0/9 [00:00<?, ?it/s]\r'
  echo "huggingface_hub.errors.$HF_ERROR"
  exit 1
fi
head -c 300000 /dev/zero > "$folder/blobs/a.incomplete"
sleep "${HF_SLOW:-0}"
mv "$folder/blobs/a.incomplete" "$folder/blobs/a"
printf 'Fetching 9 files:   0%%|          | 0/9 [00:00<?, ?it/s]\r'
printf 'Fetching 9 files: 100%%|##########| 9/9 [00:01<00:00,  8.1it/s]\n'
echo "/root/.cache/huggingface/hub/models--${repo//\//--}/snapshots/5d5d"
"""


def _weights_step():
    from types import SimpleNamespace

    from placement.launch import LaunchSettings
    from placement.model_catalogue import get_seed_model

    plan = SimpleNamespace(nodes=("a", "b"))  # the steps read only the plan's nodes
    model = get_seed_model("llama-3.1-8b")
    found = steps.weights_steps(plan, model, LaunchSettings(vllm_image=IMAGE), serving_id=12)  # type: ignore[arg-type]
    repo = "meta-llama/Llama-3.1-8B-Instruct"
    assert [(s.node, s.label, s.weights, s.expected_bytes) for s in found] == [
        ("a", "weights", repo, 16_060_000_000),
        ("b", "weights", repo, 16_060_000_000),
    ]
    assert found[0].script == found[1].script
    return found[0]


# df as POSIX prints it (-P, -B1) for the cache's file system, with the room the test gives it
FAKE_DF = """#!/bin/sh
echo "Filesystem 1-blocks Used Available Capacity Mounted on"
echo "/dev/nvme0n1p2 3936000000000 1000 ${FREE:-3000000000000} 1% /"
"""


def _run_weights_step(tmp_path, **env: str):
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("docker", FAKE_HF_DOCKER), ("df", FAKE_DF)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    path = f"{bin_dir}:{shutil.which('du').rsplit('/', 1)[0]}:/bin"
    return _real_bash(tmp_path, _weights_step().script, {"PATH": path, **env})


def test_the_weights_step_downloads_into_the_nodes_cache_and_says_how_much_is_there(tmp_path):
    """Run by a real bash with a stand-in docker: the repository reaches hf
    download in the container's environment, never in a command's text; the
    step reports the bytes in the repository's cache folder while it runs and
    at its end, then hf download's last lines (its carriage-return bars split);
    hf's failure is the step's, in its own words."""
    import subprocess

    status, output, calls = _run_weights_step(tmp_path, HF_SLOW="0.3")
    folder = tmp_path / ".cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct"
    size = int(subprocess.run(["du", "-sb", str(folder)], capture_output=True, text=True, check=True).stdout.split()[0])
    assert size > 300_000 and status == 0
    lines = output.splitlines()
    assert re.fullmatch(r"weights on disk: \d+ bytes", lines[0])
    assert lines[1:] == [
        "Fetching 9 files:   0%|          | 0/9 [00:00<?, ?it/s]",
        "Fetching 9 files: 100%|##########| 9/9 [00:01<00:00,  8.1it/s]",
        "/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/5d5d",
        f"weights on disk: {size} bytes",
    ]
    assert steps.weights_on_disk(output) == size
    assert "meta-llama" not in calls.split(" -c ")[1]  # the repository is not in the command run in the container
    assert "--name spark-fleet-12-weights --label spark-fleet.serving=12 --network host -e HF_TOKEN" in calls
    assert f"-e SPARK_FLEET_REPO=meta-llama/Llama-3.1-8B-Instruct -v {tmp_path}/.cache/huggingface:" in calls
    assert "hf download \"$SPARK_FLEET_REPO\" --exclude 'original/*' '*.pth' '*.gguf'; " in calls

    gated = tmp_path / "gated"
    gated.mkdir()
    error = "GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/x."
    status, output, _ = _run_weights_step(gated, HF_ERROR=error)
    assert status == 1
    assert output.splitlines()[1:] == [
        "Fetching 9 files:   0%|          | 0/9 [00:00<?, ?it/s]",
        f"huggingface_hub.errors.{error}",
        output.splitlines()[-1],
    ]
    assert steps.weights_failure(output) == "gated"

    # too little room for what is still to come: refused before any download, docker never asked
    full = tmp_path / "full"
    full.mkdir()
    status, output, calls = _run_weights_step(full, FREE="9500000000")
    assert (status, calls) == (1, "")
    assert output == (
        "not enough disk: 9500000000 bytes free for the Hugging Face cache, about 16060000000 more needed\n"
    )
    assert (steps.weights_failure(output), steps.weights_room(output)) == ("room", (9_500_000_000, 16_060_000_000))


def test_the_weights_step_passes_shellcheck_and_its_failures_read_by_hf_words(tmp_path):
    _shellcheck(tmp_path, _weights_step().script)
    assert steps.hub_folder("nvidia/Llama-3.3-70B-Instruct-NVFP4") == "models--nvidia--Llama-3.3-70B-Instruct-NVFP4"
    table = {
        "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error.": "missing",
        "OSError: [Errno 28] No space left on device": "disk",
        "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the files": "offline",
        "Access to model meta-llama/x is restricted. You must have access to it and be authenticated": "gated",
        "KeyboardInterrupt": "",
    }
    assert {words: steps.weights_failure(words) for words in table} == table
    assert steps.weights_on_disk("weights on disk: 12 bytes\nx\nweights on disk: 40 bytes\n") == 40
    assert steps.weights_on_disk("Fetching 9 files\n") is None


def test_a_reference_that_is_not_a_hugging_face_repository_downloads_nothing():
    from dataclasses import replace
    from types import SimpleNamespace

    from placement.launch import LaunchSettings
    from placement.model_catalogue import get_seed_model

    model = get_seed_model("llama-3.1-8b")
    plan = SimpleNamespace(nodes=("a",))
    kept = replace(model, hf_repo="org/name", variants=())
    found = steps.weights_steps(plan, kept, LaunchSettings(vllm_image=IMAGE), serving_id=1)  # type: ignore[arg-type]
    assert [s.weights for s in found] == ["org/name"]
    for odd in ("/models/llama", "../x/y", "a/b/c", "org/name; rm -rf ~"):
        local = replace(model, hf_repo=odd, variants=())
        found = steps.weights_steps(plan, local, LaunchSettings(vllm_image=IMAGE), serving_id=1)  # type: ignore[arg-type]
        assert found == [], odd
