"""shellcheck (Debian's, the real tool) on every launch script the product
generates for the lab shapes below: each seed model, each launcher, every plan
that fits, every node's script. No finding at any level (style included).

    single:     spark-00
    direct:     spark-00:p1 ===== spark-01:p1
    ring3:      spark-00 - spark-01 - spark-02 - back (p0 and p1), management addresses unknown (placeholders)
    ring4:      four in a ring, management addresses known, 8 streams
    switched4:  spark-00..03:p1 ===== switch
    switched8:  spark-00..07:p1 ===== switch, 8 streams
    eager2:     the direct pair, its plans made for eager mode (no CUDA graphs)
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from placement.launch import LAUNCH_ENGINES, PLANNER_ENGINE, LaunchError, LaunchSettings, launch_commands
from placement.model_catalogue import SEED_MODELS, choose_variant
from placement.planner import SPARK_128_USABLE_GB, GroupSpec, NodeSpec, plan_placement
from tests.tools import tool

PORTS = {
    "p0": (("enp1s0f0np0", "enP2p1s0f0np0"), ("rocep1s0f0", "roceP2p1s0f0")),
    "p1": (("enp1s0f1np1", "enP2p1s0f1np1"), ("rocep1s0f1", "roceP2p1s0f1")),
}


def node(i: int, ports: list[str]) -> NodeSpec:
    return NodeSpec(
        f"spark-{i:02d}",
        SPARK_128_USABLE_GB,
        True,
        {p: PORTS[p][0] for p in ports},
        {p: PORTS[p][1] for p in ports},
        f"192.168.{100 + i}.{10 + i}" if ports else None,
    )


DIGITS = re.compile(r"\d+")


def mgmt(n: int) -> dict[str, str]:
    return {f"spark-{i:02d}": f"10.20.0.{11 + i}" for i in range(n)}


# name -> (group, launch settings, concurrent streams); "eager" shapes plan in eager mode
SHAPES = {
    "single": (GroupSpec("single", "single", (node(0, []),)), LaunchSettings(), 1),
    "direct": (GroupSpec("direct", "direct", (node(0, ["p1"]), node(1, ["p1"]))), LaunchSettings(), 1),
    "ring3": (GroupSpec("ring3", "ring", tuple(node(i, ["p0", "p1"]) for i in range(3))), LaunchSettings(), 1),
    "ring4": (
        GroupSpec("ring4", "ring", tuple(node(i, ["p0", "p1"]) for i in range(4))),
        LaunchSettings(mgmt_ips=mgmt(4)),
        8,
    ),
    "switched4": (
        GroupSpec("sw4", "switched", tuple(node(i, ["p1"]) for i in range(4)), 200.0, "nccl"),
        LaunchSettings(),
        1,
    ),
    "switched8": (
        GroupSpec("sw8", "switched", tuple(node(i, ["p1"]) for i in range(8)), 200.0, "nccl"),
        LaunchSettings(mgmt_ips=mgmt(8)),
        8,
    ),
    "eager2": (GroupSpec("direct", "direct", (node(0, ["p1"]), node(1, ["p1"]))), LaunchSettings(), 4),
    # the lab pins the launch image: the commands run it by its digest
    "pinned2": (
        GroupSpec("direct", "direct", (node(0, ["p1"]), node(1, ["p1"]))),
        LaunchSettings(vllm_pin="sha256:" + "3c" * 32),
        1,
    ),
}


def scripts(shape: str, launcher: str) -> dict[str, str]:
    """Every script of every fitting plan of every seed model: label -> text.
    Scripts that differ only in their numbers (node names, addresses, sizes,
    ranks) are checked once: a digit never changes what shellcheck reads."""
    group, settings, streams = SHAPES[shape]
    out: dict[str, str] = {}
    seen: set[str] = set()
    for seed in SEED_MODELS:
        model = choose_variant(
            seed, PLANNER_ENGINE[launcher]
        ).spec  # the variant the engine loads, as the planner picks
        result = plan_placement(
            group,
            model,
            context_tokens=8192,
            concurrency=streams,
            engine=PLANNER_ENGINE[launcher],
            mode="eager" if shape.startswith("eager") else "graphs",
        )
        for index, plan in enumerate(result.plans):
            if not plan.fits:
                continue
            try:
                made = launch_commands(plan, group, model, engine=launcher, settings=settings)
            except LaunchError:
                continue  # a combination the engine cannot load: refused with its reason (tests/placement)
            for node_name, text in made.items():
                shape_key = DIGITS.sub("0", text)
                if shape_key not in seen:
                    seen.add(shape_key)
                    out[f"{model.slug}-{plan.strategy}-{index}-{node_name}.sh"] = text
    return out


def shellcheck(files: dict[str, str], folder: Path) -> list[str]:
    """shellcheck's findings on these scripts, one line each (gcc format), all levels."""
    paths = []
    for name, text in files.items():
        path = folder / name
        path.write_text(text)
        paths.append(str(path))
    run = subprocess.run(
        [tool("shellcheck"), "--shell=bash", "--severity=style", "--format=gcc", *paths],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr  # 0: clean, 1: findings; anything else: shellcheck itself failed
    findings = [line for line in run.stdout.splitlines() if line.strip()]
    assert (run.returncode == 0) == (not findings), run.stdout
    return findings


# the pin changes the vLLM container recipe's image only: the other launchers are checked once, without it
PINNED_ONLY = {"pinned2": ("vllm-container",)}


@pytest.mark.parametrize(
    ("shape", "launcher"),
    [(shape, launcher) for shape in SHAPES for launcher in PINNED_ONLY.get(shape, LAUNCH_ENGINES)],
)
def test_shellcheck_finds_nothing_in_any_generated_script(shape, launcher, tmp_path):
    files = scripts(shape, launcher)
    assert files, f"{shape}/{launcher}: no script generated at all"
    findings = shellcheck(files, tmp_path)
    assert not findings, f"{shape}/{launcher}: {len(findings)} findings in {len(files)} scripts:\n" + "\n".join(
        findings[:20]
    )


def test_the_check_reports_what_shellcheck_finds(tmp_path):
    """The harness is not blind: a script with an unquoted expansion is reported."""
    bad = "#!/usr/bin/env bash\nset -euo pipefail\nMODEL=$1\nls $MODEL\n"
    findings = shellcheck({"bad.sh": bad}, tmp_path)
    codes = {m.group(1) for m in (re.search(r"\[(SC\d+)\]", f) for f in findings) if m}
    assert codes == {"SC2086"}, findings


def test_shellcheck_finds_nothing_in_the_benchmark_runners_command(tmp_path):
    """The one command a benchmark run executes over SSH on the head node (its
    questions to the server, then vLLM's client), for the head node's port
    and for a serving's address."""
    from benchmarks.command import BenchSpec, bench_command

    files = {
        f"bench-{i}.sh": "#!/bin/bash\n" + bench_command(spec) + "\n"
        for i, spec in enumerate(
            (
                BenchSpec("qwen3-32b", "Qwen/Qwen3-32B-FP8", 4, 512, 256, 20),
                BenchSpec("llama-3.1-8b", "nvidia/Llama-3.1-8B-Instruct-NVFP4", base_url="http://10.0.0.7:8003"),
            )
        )
    }
    assert shellcheck(files, tmp_path) == []
