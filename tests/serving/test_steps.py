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
