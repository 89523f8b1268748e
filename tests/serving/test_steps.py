"""What serving sends a node, read as bash reads it: no value from the
inventory or a user ever becomes a word of its own on a command line."""

from __future__ import annotations

import shlex

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


def _image_step(node: str = "n1"):
    from types import SimpleNamespace

    plan = SimpleNamespace(nodes=(node, "n2"))
    settings = SimpleNamespace(vllm_image=IMAGE)
    found = steps.image_steps(plan, settings)  # type: ignore[arg-type]
    assert [(s.node, s.label, s.image) for s in found] == [(node, "image", IMAGE), ("n2", "image", IMAGE)]
    return found[0]


def test_the_image_step_passes_shellcheck(tmp_path):
    _shellcheck(tmp_path, _image_step().script)


# A docker for a real bash: it logs its arguments, has the image when HAS_IMAGE=1 or
# once pulled, and its pull prints what docker pull prints without a terminal, or fails as told.
FAKE_DOCKER = """#!/bin/sh
echo "$*" >> "$HOME/docker.log"
has() { [ "$HAS_IMAGE" = 1 ] || [ -f "$HOME/pulled" ]; }
case "$1 $2" in
  "image inspect")
    if ! has; then echo "Error: No such image: $3" >&2; exit 1; fi
    if [ "$3" = --format ]; then echo "image id: sha256:$BUILD"; else echo '[{"Id": "sha256:0f1e"}]'; fi
    exit 0 ;;
  "pull "*)
    if [ -n "$PULL_ERROR" ]; then echo "Error response from daemon: $PULL_ERROR" >&2; exit 1; fi
    echo "25.11-py3: Pulling from nvidia/vllm"
    echo "a3be5d4ce401: Pulling fs layer"; echo "a3be5d4ce401: Pull complete"
    echo "Status: Downloaded newer image for $2"; : > "$HOME/pulled"; exit 0 ;;
esac
exit 2
"""
BUILD = "ab" * 32


def _run_image_step(tmp_path, with_docker: bool = True, **env: str):
    import shutil
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if with_docker:
        docker = bin_dir / "docker"
        docker.write_text(FAKE_DOCKER)
        docker.chmod(0o755)
    for name in ("cat", "sh"):
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(shutil.which(name))
    (tmp_path / "docker.log").write_text("")
    (tmp_path / "pulled").unlink(missing_ok=True)
    done = subprocess.run(
        ["bash", "-s"],  # as the fleet user's shell runs serving's one command
        executable="/bin/bash",
        input="exec 2>&1\n" + _image_step().script,
        capture_output=True,
        text=True,
        env={"PATH": str(bin_dir), "HOME": str(tmp_path), "BUILD": BUILD, **env},
        check=False,
    )
    return done.returncode, done.stdout, (tmp_path / "docker.log").read_text().splitlines()


def test_the_image_step_downloads_only_an_image_that_is_not_there(tmp_path):
    """Run by a real bash: an image already there is not asked of the registry
    (a lab without the registry serves from what it has); a missing one is
    pulled, and its layers count; a failed pull fails the step with Docker's
    words; without docker, bash's."""
    from telemetry.docker_start import pull_failure, pull_layers

    build = f"image id: sha256:{BUILD}\n"  # the last line: which build the node now has
    inspect_id = f"image inspect --format image id: {{{{.Id}}}} {IMAGE}"
    status, output, calls = _run_image_step(tmp_path, HAS_IMAGE="1")
    assert (status, output) == (0, f"{IMAGE} is already on this Spark\n{build}")
    assert calls == [f"image inspect {IMAGE}", inspect_id]
    assert steps.image_id_in(output) == f"sha256:{BUILD}"

    status, output, calls = _run_image_step(tmp_path, HAS_IMAGE="0")
    assert status == 0 and output.endswith(f"Status: Downloaded newer image for {IMAGE}\n{build}")
    assert calls == [f"image inspect {IMAGE}", f"pull {IMAGE}", inspect_id]
    assert "No such image" not in output  # the inspect's own complaint stays out of the step's output
    assert pull_layers(output) == (1, 1)

    status, output, _ = _run_image_step(tmp_path, HAS_IMAGE="0", PULL_ERROR="manifest unknown")
    assert (status, output) == (1, "Error response from daemon: manifest unknown\n")
    assert pull_failure(status, output) == "download"

    bare = tmp_path / "bare"
    bare.mkdir()
    status, output, _ = _run_image_step(bare, with_docker=False)
    assert status == 127 and output.endswith("docker: command not found\n")
    assert pull_failure(status, output) == "absent"


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
