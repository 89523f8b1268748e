"""Generated launch scripts, per topology kind: bash accepts every one, and the
bootstrap, RoCE and ring rules of NVIDIA's playbooks hold.

    direct:    spark-0:p1 ===== spark-1:p1
    ring:      spark-0 -- spark-1 -- spark-2 -- spark-3 -- back to spark-0 (p0 and p1 cabled)
    switched:  spark-0..3:p1 ===== switch
"""

import math
import re
import shlex
import shutil
import subprocess
from dataclasses import replace

import pytest

from placement.launch import (
    LAUNCH_ENGINES,
    LaunchError,
    LaunchSettings,
    launch_commands,
    model_ref_problem,
)
from placement.model_catalogue import get_seed_model
from placement.planner import SPARK_128_USABLE_GB, GroupSpec, NodeSpec, plan_placement

PORTS = {
    "p0": (("enp1s0f0np0", "enP2p1s0f0np0"), ("rocep1s0f0", "roceP2p1s0f0")),
    "p1": (("enp1s0f1np1", "enP2p1s0f1np1"), ("rocep1s0f1", "roceP2p1s0f1")),
}
MGMT = {f"spark-{i}": f"10.20.0.{11 + i}" for i in range(4)}
SETTINGS = LaunchSettings(mgmt_ips=MGMT, vllm_image="nvcr.io/nvidia/vllm:25.11-py3")
BASH = shutil.which("bash")


def node(i, ports):
    return NodeSpec(
        f"spark-{i}",
        SPARK_128_USABLE_GB,
        True,
        {p: PORTS[p][0] for p in ports},
        {p: PORTS[p][1] for p in ports},
        f"192.168.{100 + i}.{10 + i}",
    )


GROUPS = {
    "direct": GroupSpec("d", "direct", (node(0, ["p1"]), node(1, ["p1"])), 200.0),
    "ring": GroupSpec("r", "ring", tuple(node(i, ["p0", "p1"]) for i in range(4)), 200.0),
    "switched": GroupSpec("s", "switched", tuple(node(i, ["p1"]) for i in range(4)), 200.0, "nccl"),
}
LLAMA = get_seed_model("llama-3.3-70b")  # NVFP4, nvidia/Llama-3.3-70B-Instruct-NVFP4
GPT_OSS = get_seed_model("gpt-oss-120b")  # MXFP4
GGUF = "ggml-org/gpt-oss-120b-GGUF"


def scripts_for(kind, engine):
    group = GROUPS[kind]
    model = GPT_OSS if engine == "llama.cpp-rpc" else LLAMA
    planner_engine = "llama.cpp" if engine == "llama.cpp-rpc" else "sglang" if engine == "sglang" else "vllm"
    strategy = "pp" if engine == "llama.cpp-rpc" else "tp"
    result = plan_placement(group, model, context_tokens=8192, engine=planner_engine)
    plan = next(p for p in result.plans if p.strategy == strategy and p.nodes_per_instance == len(group.nodes))
    ref = GGUF if engine == "llama.cpp-rpc" else None
    return launch_commands(plan, group, model, engine=engine, model_ref=ref, settings=SETTINGS)


def environment(script):
    """VAR -> value as the script sets it (export lines, or docker's -e)."""
    env = {}
    for line in script.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        for i, word in enumerate(words):
            target = word if i and words[i - 1] in ("export", "-e") else None
            if target and "=" in target:
                var, _, value = target.partition("=")
                env[var] = value
    return env


CASES = [(kind, engine) for kind in GROUPS for engine in LAUNCH_ENGINES]


@pytest.mark.skipif(BASH is None, reason="bash is needed to check the scripts")
@pytest.mark.parametrize(("kind", "engine"), CASES)
def test_every_generated_script_is_valid_bash(kind, engine):
    for name, script in scripts_for(kind, engine).items():
        run = subprocess.run([BASH, "-n"], input=script, capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{kind}/{engine}/{name}: {run.stderr}"
        assert script.startswith("#!/usr/bin/env bash\nset -euo pipefail\n")


NCCL_ENGINES = [e for e in LAUNCH_ENGINES if e != "llama.cpp-rpc"]


@pytest.mark.parametrize("engine", NCCL_ENGINES)
@pytest.mark.parametrize("kind", ["direct", "switched"])
def test_cabled_groups_bootstrap_on_the_cluster_link(kind, engine):
    """A direct pair or a switch: the cluster link reaches every node (NVIDIA's
    two-Spark vLLM recipe bootstraps on enp1s0f1np1 and its address)."""
    scripts = scripts_for(kind, engine)
    head_ip = GROUPS[kind].nodes[0].cluster_ip
    for spec in GROUPS[kind].nodes:
        env = environment(scripts[spec.name])
        for var in (
            "NCCL_SOCKET_IFNAME",
            "GLOO_SOCKET_IFNAME",
            "UCX_NET_DEVICES",
            "TP_SOCKET_IFNAME",
            "OMPI_MCA_btl_tcp_if_include",
        ):
            assert env[var] == "enp1s0f1np1", (spec.name, var)
        assert env["MASTER_ADDR"] == head_ip
        assert env["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1"  # both twins of the cabled port
        assert env["NCCL_IB_SUBNET_AWARE_ROUTING"] == "1"
        assert "NCCL_NET_PLUGIN" not in env and "NCCL_IB_MERGE_NICS" not in env
        if engine.startswith("vllm"):
            assert env["VLLM_HOST_IP"] == spec.cluster_ip
            assert env["RAY_memory_monitor_refresh_ms"] == "0"
        assert "10.20.0." not in scripts[spec.name]  # the management network is not needed


@pytest.mark.parametrize("engine", LAUNCH_ENGINES)
def test_ring_bootstraps_on_the_management_network(engine):
    """A ring link reaches only the two neighbours: spark-2 has no route to
    spark-0's cluster addresses, so every bootstrap path is enP7s7."""
    scripts = scripts_for("ring", engine)
    cluster_ips = {n.cluster_ip for n in GROUPS["ring"].nodes}
    for spec in GROUPS["ring"].nodes:
        script = scripts[spec.name]
        assert not any(ip in script for ip in cluster_ips), spec.name
        if engine == "llama.cpp-rpc":
            continue
        env = environment(script)
        for var in (
            "NCCL_SOCKET_IFNAME",
            "GLOO_SOCKET_IFNAME",
            "UCX_NET_DEVICES",
            "TP_SOCKET_IFNAME",
            "OMPI_MCA_btl_tcp_if_include",
        ):
            assert env[var] == "enP7s7"
        assert env["MASTER_ADDR"] == MGMT["spark-0"]
        assert env["NCCL_IB_HCA"] == "rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1"
        assert env["NCCL_IB_SUBNET_AWARE_ROUTING"] == "1"
        assert env["NCCL_NET_PLUGIN"] == "none"
        assert env["NCCL_IB_MERGE_NICS"] == "0"
        if engine.startswith("vllm"):
            assert env["VLLM_HOST_IP"] == MGMT[spec.name]
    if engine == "llama.cpp-rpc":
        assert "--rpc 10.20.0.12:50052,10.20.0.13:50052,10.20.0.14:50052" in scripts["spark-0"]
        assert "rpc-server --host 10.20.0.13 --port 50052" in scripts["spark-2"]


def test_ring_without_management_addresses_names_what_to_fill_in():
    group = GROUPS["ring"]
    plan = next(p for p in plan_placement(group, LLAMA, context_tokens=8192).plans if p.strategy == "tp")
    scripts = launch_commands(plan, group, LLAMA, engine="vllm-ray", settings=LaunchSettings(mgmt_iface="wlP9s9"))
    env = environment(scripts["spark-2"])
    assert env["VLLM_HOST_IP"] == "<ip of spark-2 on wlP9s9>"
    assert env["MASTER_ADDR"] == "<ip of spark-0 on wlP9s9>"
    assert env["NCCL_SOCKET_IFNAME"] == "wlP9s9"


def preflight_lines(script):
    """The script's checks before anything starts: the MTU loop and the bootstrap check."""
    lines = script.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("for dev in "))
    end = next(i for i, line in enumerate(lines) if line.startswith("if [ ! -e /sys/class/net/"))
    return lines[start : end + 3]


def run_preflight(script, tmp_path, mtu):
    """Run a script's preflight against a fake /sys/class/net whose twins
    have ``mtu``; (exit code, stdout, stderr)."""
    net = tmp_path / "net"
    body = "\n".join(preflight_lines(script)).replace("/sys/class/net", str(net))
    for dev in re.findall(r"/sys/class/net/(\S+?) \]", "\n".join(preflight_lines(script))):
        (net / dev).mkdir(parents=True, exist_ok=True)
    for dev in shlex.split(preflight_lines(script)[0].removesuffix("; do"))[3:]:
        (net / dev).mkdir(parents=True, exist_ok=True)
        (net / dev / "mtu").write_text(f"{mtu}\n")
    run = subprocess.run(
        [BASH, "-c", f"set -euo pipefail\n{body}\necho started"], capture_output=True, text=True, check=False
    )
    return run.returncode, run.stdout, run.stderr


@pytest.mark.skipif(BASH is None, reason="bash is needed to run the checks")
@pytest.mark.parametrize(("kind", "engine"), [c for c in CASES if c[1] != "llama.cpp-rpc"])
def test_mtu_below_9000_is_a_warning_naming_the_switch_setting_not_a_refusal(kind, engine, tmp_path):
    """NVIDIA's playbooks never set an MTU (their examples show 1500): a twin
    at 1500 gets a warning and the launch goes on; on a switch the warning
    names the switch-side setting. At 9000 nothing is said."""
    for spec in GROUPS[kind].nodes:
        script = scripts_for(kind, engine)[spec.name]
        twins = [name for pair in spec.port_ifaces.values() for name in pair]
        check = preflight_lines(script)[0]
        assert shlex.split(check.removesuffix("; do"))[3:] == twins
        first_command = next(
            i
            for i, line in enumerate(script.splitlines())
            if line.startswith(("export ", "ray ", "vllm ", "python3 ", "RUN_CLUSTER=", "docker "))
        )
        assert script.splitlines().index(check) < first_command
        code, out, err = run_preflight(script, tmp_path / spec.name / "low", 1500)
        assert (code, out) == (0, "started\n"), err
        warnings = [line for line in err.splitlines() if line.startswith("warning: MTU of ")]
        assert [w.split()[3] for w in warnings] == twins
        assert all(", not 9000: apply this node's netplan file (MTU 9000)" in w for w in warnings)
        assert all(w.endswith("; starting anyway") for w in warnings)
        assert all(("MikroTik RouterOS: the port's mtu and l2mtu" in w) == (kind == "switched") for w in warnings)
        assert run_preflight(script, tmp_path / spec.name / "jumbo", 9000) == (0, "started\n", "")


@pytest.mark.parametrize("kind", list(GROUPS))
def test_container_recipe_is_nvidias(kind):
    """run_cluster.sh IMAGE HEAD_IP --head|--worker HF_CACHE -e VAR=..., then
    vllm serve inside the head's container once Ray sees every node."""
    scripts = scripts_for(kind, "vllm-container")
    group = GROUPS[kind]
    head_address = MGMT["spark-0"] if kind == "ring" else group.nodes[0].cluster_ip
    for rank, spec in enumerate(group.nodes):
        script = scripts[spec.name]
        start = next(line for line in script.splitlines() if line.startswith('bash "$RUN_CLUSTER"'))
        words = shlex.split(start.replace('"$RUN_CLUSTER"', "run_cluster.sh").replace('"$HOME"', "/home/u"))
        assert words[1:6] == [
            "run_cluster.sh",
            "nvcr.io/nvidia/vllm:25.11-py3",
            head_address,
            "--head" if rank == 0 else "--worker",
            "/home/u/.cache/huggingface",
        ]
        assert 'RUN_CLUSTER="$HOME"/run_cluster.sh' in script
        assert "examples/ray_serving/run_cluster.sh" in script  # fetched when missing
        if rank == 0:
            assert start.endswith("> run_cluster.log 2>&1 &")
            serve = next(line for line in script.splitlines() if line.startswith('docker exec "$container" vllm'))
            assert "vllm serve nvidia/Llama-3.3-70B-Instruct-NVFP4" in serve
            assert f"--tensor-parallel-size {len(group.nodes)}" in serve
            assert "--distributed-executor-backend ray" in serve
            assert script.index("ray status") < script.index(serve)
        else:
            assert "vllm serve" not in script and not start.endswith("&")


def test_container_recipe_is_the_default_vllm_launcher():
    assert LAUNCH_ENGINES[0] == "vllm-container"


def test_no_model_reference_no_script():
    """No fallback to the catalogue slug: `vllm serve glm-5.3` would not start."""
    glm = replace(get_seed_model("llama-3.1-8b"), slug="no-repo", hf_repo="", variants=())
    group = GROUPS["direct"]
    plan = plan_placement(group, glm, context_tokens=8192).plans[0]
    with pytest.raises(LaunchError) as err:
        launch_commands(plan, group, glm, engine="vllm-container")
    assert err.value.problems == [
        ("model_ref", "no-repo (bf16): no Hugging Face repository recorded for the bf16 variant")
    ]


def test_the_catalogue_names_what_each_engine_loads():
    """The plan's variant decides: gpt-oss-120b's GGUF for llama.cpp, its repository for vLLM."""
    group = GROUPS["direct"]
    gguf = GPT_OSS.with_variant(GPT_OSS.variant("MXFP4_MOE"))
    plan = next(
        p for p in plan_placement(group, gguf, context_tokens=8192, engine="llama.cpp").plans if p.strategy == "pp"
    )
    head = launch_commands(plan, group, gguf, engine="llama.cpp-rpc", settings=SETTINGS)["spark-0"]
    assert "llama-server -hf ggml-org/gpt-oss-120b-GGUF:MXFP4_MOE " in head
    with pytest.raises(LaunchError) as err:  # the safetensors form is refused with the reason
        launch_commands(plan, group, GPT_OSS, engine="llama.cpp-rpc", settings=SETTINGS)
    assert "llama.cpp loads GGUF files only" in err.value.problems[0][1]
    vllm_plan = next(p for p in plan_placement(group, GPT_OSS, context_tokens=8192).plans if p.strategy == "tp")
    assert "vllm serve openai/gpt-oss-120b " in launch_commands(vllm_plan, group, GPT_OSS, engine="vllm")["spark-0"]


@pytest.mark.parametrize(
    ("model", "ref", "reason"),
    [
        (LLAMA, "nvidia/Llama-3.3-70B-Instruct-NVFP4", "is NVFP4: llama.cpp does not load NVFP4"),
        (GPT_OSS, "openai/gpt-oss-120b", "llama.cpp cannot load safetensors"),
        (GPT_OSS, None, "has no GGUF repository or file for llama.cpp"),
    ],
)
def test_llama_cpp_refuses_what_it_cannot_load(model, ref, reason):
    assert reason in (model_ref_problem(model, "llama.cpp-rpc", ref) or "")


@pytest.mark.parametrize(
    "ref", ["ggml-org/gpt-oss-120b-GGUF", "unsloth/gpt-oss-120b-GGUF:Q4_K_M", "/models/gpt-oss-120b-mxfp4.gguf"]
)
def test_llama_cpp_accepts_gguf(ref):
    assert model_ref_problem(GPT_OSS, "llama.cpp-rpc", ref) is None
    assert "GGUF file" in (model_ref_problem(GPT_OSS, "vllm", "/m/x.gguf") or "")


def test_measured_fabric_replaces_the_link_speed_in_the_communication_term():
    """A group whose verification measured 2.8 GB/s decodes slower under TP than
    its 200 Gb/s links predict, and the plan says which figure it used."""
    group = GROUPS["switched"]
    predicted = plan_placement(group, LLAMA, context_tokens=8192)
    measured = plan_placement(replace(group, bus_gbytes_per_s=2.8), LLAMA, context_tokens=8192)
    tp = next(p for p in predicted.plans if p.strategy == "tp" and p.tp == 4)
    tp_measured = next(p for p in measured.plans if p.strategy == "tp" and p.tp == 4)
    assert tp_measured.decode_tps < tp.decode_tps
    assert any(n.startswith("Measured fabric used") and "2.8 GB/s" in n for n in measured.notes)
    assert not any("Measured fabric used" in n for n in predicted.notes)


# --- launch details from NVIDIA's playbooks ---------------------------------------


def serve_line(script):
    return next(line for line in script.splitlines() if "vllm serve " in line)


def ceil_share(gb, total):
    """gb over the node's whole memory plus 5% headroom, rounded up to 0.01."""
    return math.ceil(round((gb / total + 0.05) * 1000) / 10) / 100


def flag_value(script, marker, flag):
    line = next(line for line in script.splitlines() if marker in line)
    words = shlex.split(line.replace('"$container"', "c"))
    return words[words.index(flag) + 1]


@pytest.mark.parametrize("engine", ["vllm-container", "vllm-ray", "vllm"])
def test_vllm_memory_utilization_comes_from_the_plans_memory_budget(engine):
    """--gpu-memory-utilization: what the plan needs on its limiting node
    (weights, every stream's cache, runtime) over the node's whole memory
    (usable + the OS's reserve), plus 5% headroom, rounded up to 0.01, at most
    vLLM's 0.9 default. No floor: a TP2 plan of a 70B NVFP4 model for one
    stream needs about a quarter of each node and asks for that, not half."""
    group = GROUPS["direct"]
    seen = []
    for model, context, streams in ((LLAMA, 8192, 1), (GPT_OSS, 65_536, 32)):
        result = plan_placement(group, model, context_tokens=context, concurrency=streams)
        plan = next(p for p in result.plans if p.strategy == "tp")
        b = plan.memory_per_node_gb
        total = b.usable + SETTINGS.os_reserve_gb
        share = ceil_share(b.weights + b.kv_cache + b.overhead, total)
        assert 0.05 < share < 0.9, share
        seen.append(share)
        for script in launch_commands(plan, group, model, engine=engine, settings=SETTINGS).values():
            if "vllm serve " in script:
                assert flag_value(script, "vllm serve ", "--gpu-memory-utilization") == f"{share:.2f}"
    assert seen[0] < 0.5 < seen[1], seen  # the small plan below the old floor, the long contexts above it


@pytest.mark.parametrize("kind", ["single", "direct"])
def test_sglang_mem_fraction_static_comes_from_the_plans_memory_budget(kind):
    """--mem-fraction-static: SGLang's static pools (the plan's weights and
    every stream's cache) over the node's whole memory plus 5% headroom,
    rounded up to 0.01; the runtime's share is what SGLang keeps outside it.
    More streams of a longer context ask for more."""
    group = GROUPS["direct"] if kind == "direct" else GroupSpec("one", "single", (node(0, []),))
    fractions = []
    for context, streams in ((8192, 1), (65_536, 16)):
        result = plan_placement(group, GPT_OSS, context_tokens=context, concurrency=streams, engine="sglang")
        plan = next(p for p in result.plans if p.nodes_per_instance == len(group.nodes))
        b = plan.memory_per_node_gb
        want = ceil_share(b.weights + b.kv_cache, b.usable + SETTINGS.os_reserve_gb)
        assert want < 0.88
        scripts = launch_commands(plan, group, GPT_OSS, engine="sglang", settings=SETTINGS)
        assert len(scripts) == len(group.nodes)
        for script in scripts.values():
            assert flag_value(script, "sglang.launch_server", "--mem-fraction-static") == f"{want:.2f}"
            assert "--gpu-memory-utilization" not in script
        fractions.append(want)
    assert fractions[0] < fractions[1], fractions


def test_hf_token_is_passed_from_the_nodes_environment_and_never_written(monkeypatch, tmp_path):
    """Gated models need HF_TOKEN on every node: containers get `-e HF_TOKEN`
    (docker copies the node's own value when it is set), processes inherit it,
    and the value in the environment the scripts were made in is never in them."""
    monkeypatch.setenv("HF_TOKEN", "hf_planner_side_secret_0123")
    for kind, engine in CASES:
        for name, script in scripts_for(kind, engine).items():
            assert "hf_planner_side_secret_0123" not in script, (kind, engine, name)
            assert "HF_TOKEN=" not in script
            for line in script.splitlines():
                if line.startswith(("docker run ", 'bash "$RUN_CLUSTER"')):
                    assert " -e HF_TOKEN " in line, (kind, engine, name)
    single = plan_placement(GroupSpec("one", "single", (node(0, []),)), LLAMA, context_tokens=8192).plans[0]
    script = launch_commands(single, GROUPS["direct"], LLAMA, engine="vllm-container", settings=SETTINGS)["spark-0"]
    docker = next(line for line in script.splitlines() if line.startswith("docker run "))
    assert shlex.split(docker)[:9] == ["docker", "run", "--rm", "--gpus", "all", "--network", "host", "--ipc", "host"]
    assert shlex.split(docker)[9:11] == ["-e", "HF_TOKEN"]
    # the script's own check says when the node lacks one, and carries on
    check = next(line for line in script.splitlines() if "HF_TOKEN:-" in line)
    for env, said in (({"HF_TOKEN": "x"}, ""), ({}, "note: HF_TOKEN is not set: gated models will not download\n")):
        run = subprocess.run(
            [BASH, "-c", f"set -euo pipefail\n{check}\necho on"],
            capture_output=True,
            text=True,
            check=False,
            env={"PATH": "/usr/bin:/bin", **env},
        )
        assert (run.returncode, run.stdout, run.stderr) == (0, "on\n", said)


def test_nvidias_reference_names_are_the_catalogues():
    """NVIDIA's vLLM support matrix (dgx-spark-playbooks nvidia/vllm) names
    nvidia/Llama-3.3-70B-Instruct-NVFP4 and nvidia/Llama-3.1-8B-Instruct-NVFP4."""
    assert get_seed_model("llama-3.3-70b").variant("nvfp4").hf_repo == "nvidia/Llama-3.3-70B-Instruct-NVFP4"
    assert get_seed_model("llama-3.3-70b").hf_repo == "nvidia/Llama-3.3-70B-Instruct-NVFP4"
    assert get_seed_model("llama-3.1-8b").variant("NVFP4").hf_repo == "nvidia/Llama-3.1-8B-Instruct-NVFP4"
    serve = serve_line(scripts_for("direct", "vllm")["spark-0"])
    assert shlex.split(serve)[:3] == ["vllm", "serve", "nvidia/Llama-3.3-70B-Instruct-NVFP4"]


@pytest.mark.parametrize("size", [3, 4])
def test_a_ring_launch_names_the_nccl_build_and_image_it_needs(size):
    """NVIDIA's cluster set-up script builds zyang-dev/nccl's
    dgxspark-3node-ring branch for a 3-node ring and refuses rings of four or
    more; NGC images may fail at NCCL set-up on a ring. The plan and every
    ring script say so; a switch or a pair says nothing of it."""
    ring = GroupSpec("r", "ring", tuple(node(i, ["p0", "p1"]) for i in range(size)), 200.0)
    model = get_seed_model("qwen3-32b")
    result = plan_placement(ring, model, context_tokens=8192)
    notes = [n for n in result.notes if n.startswith("A ring launch needs ")]
    assert len(notes) == 1
    assert "zyang-dev/nccl branch dgxspark-3node-ring" in notes[0] and "eugr/spark-vllm-docker" in notes[0]
    assert ("refuses rings of 4 or more" in notes[0]) == (size >= 4)
    plan = next(p for p in result.plans if p.fits and p.nodes_per_instance == size)
    for engine in ("vllm-container", "sglang"):
        for script in launch_commands(plan, ring, model, engine=engine, settings=SETTINGS).values():
            head = [line for line in script.splitlines() if line.startswith("# ring of ")]
            assert head == [
                f"# ring of {size}: needs an NCCL build that runs on a ring (NVIDIA's cluster set-up "
                "script builds zyang-dev/nccl branch dgxspark-3node-ring for three nodes)"
            ]
            assert ("# NVIDIA's cluster set-up script refuses rings of 4 or more" in script) == (size >= 4)
    for kind in ("direct", "switched"):
        assert not any(
            n.startswith("A ring launch") for n in plan_placement(GROUPS[kind], model, context_tokens=8192).notes
        )
        assert not any("# ring of" in s for s in scripts_for(kind, "vllm").values())


def test_a_pinned_image_is_run_by_its_digest_in_the_launch_commands():
    """With the lab's pin on the launch image, the copied commands run that
    build by its digest (docker run and run_cluster.sh alike), never the tag,
    which may name another build by the time they run; without a pin, the tag."""
    pin = "sha256:" + "3c" * 32
    pinned = replace(SETTINGS, vllm_pin=pin)
    group = GROUPS["direct"]
    result = plan_placement(group, LLAMA, context_tokens=8192)
    tp2 = next(p for p in result.plans if p.fits and p.strategy == "tp" and p.nodes_per_instance == 2)
    single = plan_placement(
        GroupSpec("one", "single", (node(0, []),), 200.0), get_seed_model("llama-3.1-8b"), context_tokens=8192
    )
    one = next(p for p in single.plans if p.fits)
    for plan, spec in ((tp2, group), (one, GroupSpec("one", "single", (node(0, []),), 200.0))):
        model = LLAMA if plan is tp2 else get_seed_model("llama-3.1-8b")
        scripts = launch_commands(plan, spec, model, engine="vllm-container", settings=pinned).values()
        text = "\n".join(scripts)
        assert f"nvcr.io/nvidia/vllm@{pin}" in text and "nvcr.io/nvidia/vllm:25.11-py3" not in text
        plain = "\n".join(launch_commands(plan, spec, model, engine="vllm-container", settings=SETTINGS).values())
        assert "nvcr.io/nvidia/vllm:25.11-py3" in plain and "@sha256:" not in plain
    run_cluster = [
        line
        for s in launch_commands(tp2, group, LLAMA, engine="vllm-container", settings=pinned).values()
        for line in s.splitlines()
        if line.startswith('bash "$RUN_CLUSTER"')
    ]
    assert len(run_cluster) == 2 and all(shlex.split(line)[2] == f"nvcr.io/nvidia/vllm@{pin}" for line in run_cluster)
