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


def test_the_nccl_network_step_passes_shellcheck(tmp_path):
    """shellcheck (Debian's, the real tool) reads the step as the node's bash -s does: no finding."""
    import subprocess
    from types import SimpleNamespace

    from tests.tools import tool

    (step,) = steps.network_steps(SimpleNamespace(instances=(("a", "b"),)), serving_id=3)[:1]  # type: ignore[arg-type]
    path = tmp_path / "nccl-network.sh"
    path.write_text("#!/usr/bin/env bash\n" + step.script)
    run = subprocess.run(
        [tool("shellcheck"), "--shell=bash", "--severity=style", "--format=gcc", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, ""), run.stdout + run.stderr
