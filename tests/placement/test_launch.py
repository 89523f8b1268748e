"""Launch commands: NVIDIA's recipe, both RoCE twins, rings, and quoting of user text."""

import shlex
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from placement.launch import LAUNCH_ENGINES, LaunchError, launch_commands, launch_problems
from placement.model_catalogue import get_seed_model
from placement.perfmodel import PREFILL_CHUNK
from placement.planner import SPARK_128_USABLE_GB, GroupSpec, NodeSpec, plan_placement

PORT0 = ("enp1s0f0np0", "enP2p1s0f0np0"), ("rocep1s0f0", "roceP2p1s0f0")
PORT1 = ("enp1s0f1np1", "enP2p1s0f1np1"), ("rocep1s0f1", "roceP2p1s0f1")


def node(i, ports=("port1",), ip=None):
    table = {"port0": PORT0, "port1": PORT1}
    return NodeSpec(
        f"spark-{i}",
        SPARK_128_USABLE_GB,
        True,
        {p: table[p][0] for p in ports},
        {p: table[p][1] for p in ports},
        ip or f"192.168.100.{i + 10}",
    )


def switched(n=4):
    return GroupSpec("sw", "switched", tuple(node(i) for i in range(n)), 200.0, "rocenante")


def ring(n=4):
    return GroupSpec("ring", "ring", tuple(node(i, ("port0", "port1")) for i in range(n)), 200.0)


def plan_of(group, model, strategy="tp", tp=None, engine="vllm", nodes=None, **kwargs):
    result = plan_placement(group, model, context_tokens=8192, engine=engine, **kwargs)
    for p in result.plans:
        if p.strategy == strategy and (tp is None or p.tp == tp) and (nodes is None or len(p.nodes) == nodes):
            return p
    raise AssertionError(f"no {strategy} plan")


LLAMA = get_seed_model("llama-3.3-70b")


def test_vllm_ray_follows_nvidias_recipe():
    g = switched()
    scripts = launch_commands(plan_of(g, LLAMA, tp=4), g, LLAMA, engine="vllm-ray")
    assert list(scripts) == ["spark-0", "spark-1", "spark-2", "spark-3"]
    head, worker = scripts["spark-0"], scripts["spark-1"]
    for script, ip in ((head, "192.168.100.10"), (worker, "192.168.100.11")):
        assert f"export VLLM_HOST_IP={ip}" in script
        for var in (
            "NCCL_SOCKET_IFNAME",
            "GLOO_SOCKET_IFNAME",
            "UCX_NET_DEVICES",
            "TP_SOCKET_IFNAME",
            "OMPI_MCA_btl_tcp_if_include",
        ):
            assert f"export {var}=enp1s0f1np1" in script
        assert "export RAY_memory_monitor_refresh_ms=0" in script
        assert "export MASTER_ADDR=192.168.100.10" in script
        assert "NCCL_IB_MERGE_NICS" not in script  # not a ring
    assert "ray start --head --node-ip-address=192.168.100.10" in head
    assert "ray start --block --address=192.168.100.10:6379 --node-ip-address=192.168.100.11" in worker
    assert (
        "vllm serve nvidia/Llama-3.3-70B-Instruct-NVFP4 --served-model-name llama-3.3-70b "
        "--tensor-parallel-size 4 --pipeline-parallel-size 1"
    ) in head
    assert "--distributed-executor-backend ray" in head and "vllm serve" not in worker
    assert "RoCEnante" in head


@pytest.mark.parametrize("engine", ["vllm-ray", "vllm", "sglang"])
def test_nccl_ib_hca_lists_both_twins_of_the_cabled_port(engine):
    g = switched(2)
    for script in launch_commands(plan_of(g, LLAMA, tp=2), g, LLAMA, engine=engine).values():
        assert "export NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1" in script


def test_ring_lists_all_four_twins_and_stops_nic_merging():
    g = ring()
    for script in launch_commands(plan_of(g, LLAMA, tp=4), g, LLAMA, engine="vllm-ray").values():
        assert "export NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1" in script
        assert "export NCCL_IB_MERGE_NICS=0" in script


def test_rayless_vllm_uses_nnodes_and_headless_workers():
    g = switched()
    scripts = launch_commands(plan_of(g, LLAMA, "tp+pp"), g, LLAMA, engine="vllm")
    assert "--nnodes 4 --node-rank 0 --master-addr 192.168.100.10" in scripts["spark-0"]
    assert "--headless" not in scripts["spark-0"]
    assert "--node-rank 3" in scripts["spark-3"] and "--headless" in scripts["spark-3"]
    assert "ray" not in scripts["spark-0"].split("RAY_memory")[0].lower().replace("ray_", "")


def test_sglang_uses_dist_init_addr_and_expert_parallel():
    g = switched()
    moe = get_seed_model("gpt-oss-120b")
    scripts = launch_commands(plan_of(g, moe, "ep", tp=4, engine="sglang"), g, moe, engine="sglang")
    head = scripts["spark-0"]
    assert "python3 -m sglang.launch_server --model-path openai/gpt-oss-120b" in head
    assert "--tp 4 --ep-size 4" in head
    assert "--nnodes 4 --node-rank 0 --dist-init-addr 192.168.100.10:20000" in head
    vllm = launch_commands(plan_of(g, moe, "ep", tp=4), g, moe, engine="vllm-ray")["spark-0"]
    assert "--enable-expert-parallel" in vllm


def test_llama_cpp_rpc_servers_and_client():
    g = switched(3)
    model = get_seed_model("gpt-oss-120b")
    plan = plan_of(g, model, "pp", engine="llama.cpp", nodes=3)
    scripts = launch_commands(plan, g, model, engine="llama.cpp-rpc", model_ref="/models/gpt-oss-120b.gguf")
    assert "rpc-server --host 192.168.100.11 --port 50052" in scripts["spark-1"]
    head = scripts["spark-0"]
    assert "llama-server -m /models/gpt-oss-120b.gguf" in head
    # the prompt chunk the prediction prices, not llama-server's default ubatch of 512
    assert f"-b {PREFILL_CHUNK['llama.cpp']} -ub {PREFILL_CHUNK['llama.cpp']} --parallel" in head
    assert PREFILL_CHUNK["llama.cpp"] == 2048
    assert "--rpc 192.168.100.11:50052,192.168.100.12:50052" in head
    with pytest.raises(LaunchError) as err:
        launch_commands(
            plan_of(g, model, "tp", tp=3), g, model, engine="llama.cpp-rpc", model_ref="/models/gpt-oss-120b.gguf"
        )
    assert err.value.problems[0][0] == "plan"


GPT_OSS = get_seed_model("gpt-oss-120b")
VLLM_EAGER = "--pipeline-parallel-size 1 --enforce-eager --max-model-len 8192"


@pytest.mark.parametrize(
    ("launcher", "engine", "flag", "words"),
    [
        ("vllm-container", "vllm", "--enforce-eager", VLLM_EAGER),
        ("vllm-ray", "vllm", "--enforce-eager", VLLM_EAGER),
        ("vllm", "vllm", "--enforce-eager", VLLM_EAGER),
        ("sglang", "sglang", "--disable-cuda-graph", "--tp 2 --disable-cuda-graph --context-length 8192"),
        (
            "llama.cpp-rpc",
            "llama.cpp",
            "GGML_CUDA_DISABLE_GRAPHS=1",
            "GGML_CUDA_DISABLE_GRAPHS=1 llama-server -m /models/gpt-oss-120b.gguf",
        ),
    ],
)
def test_a_plan_made_for_eager_mode_launches_without_cuda_graphs(launcher, engine, flag, words):
    """The eager plan's figures assume no CUDA graphs: its head runs the engine so, and says why;
    the same plan in the default mode launches with graphs (no such flag)."""
    g = switched(2)
    strategy = "pp" if engine == "llama.cpp" else "tp"
    ref = "/models/gpt-oss-120b.gguf" if engine == "llama.cpp" else None
    eager = plan_of(g, GPT_OSS, strategy, engine=engine, nodes=2, mode="eager")
    assert eager.mode == "eager"
    head = launch_commands(eager, g, GPT_OSS, engine=launcher, model_ref=ref)["spark-0"]
    assert words in head
    assert f"# eager mode, as the plan's figures were predicted: {flag} (no CUDA graphs" in head
    graphs = plan_of(g, GPT_OSS, strategy, engine=engine, nodes=2)
    default = launch_commands(graphs, g, GPT_OSS, engine=launcher, model_ref=ref)["spark-0"]
    assert flag not in default and "eager" not in default


def test_replicas_get_one_head_each():
    g = switched(8)
    model = get_seed_model("llama-3.1-8b")
    plan = plan_of(g, model, "tp+replicas", tp=2, concurrency=5)
    scripts = launch_commands(plan, g, model, engine="vllm-ray")
    heads = [name for name, s in scripts.items() if "ray start --head" in s]
    assert len(heads) == 4 and len(scripts) == 8
    assert "--max-num-seqs 2" in scripts[heads[0]] and "--max-num-seqs 1" in scripts[heads[-1]]


def test_single_node_plan_needs_no_cluster_environment():
    g = switched(2)
    script = launch_commands(plan_of(g, LLAMA, "single"), g, LLAMA, engine="vllm-ray")["spark-0"]
    assert "NCCL" not in script and "ray start" not in script and "vllm serve" in script


def test_problems_are_named():
    g = switched(2)
    plan = plan_of(g, LLAMA, tp=2)
    broken = replace(g, nodes=(g.nodes[0], replace(g.nodes[1], port_rdma={}, cluster_ip=None)))
    problems = launch_problems(plan, broken, LLAMA, engine="vllm-ray")
    assert ("node spark-1", "cluster_ip is missing") in problems
    assert any("both RoCE twins" in msg for _, msg in problems)
    assert launch_problems(plan, g, LLAMA, engine="trt") == [("engine", "one of " + ", ".join(LAUNCH_ENGINES))]
    glm = get_seed_model("glm-5.3")
    too_big = plan_of(switched(4), glm, tp=4)
    assert ("plan", "does not fit in memory: running it would exhaust unified memory") in launch_problems(
        too_big, switched(4), glm, engine="vllm"
    )


EVIL = "x; rm -rf / #$(reboot)`id`"


def _command_lines(script):
    return [line for line in script.splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("engine", LAUNCH_ENGINES)
def test_user_text_stays_quoted(engine):
    evil_model = replace(LLAMA, slug="evil-model", name=EVIL, hf_repo=EVIL)
    if engine == "llama.cpp-rpc":  # llama.cpp loads no NVFP4: a GGUF variant
        evil_model = replace(evil_model, quantization="int4")
    nodes = tuple(replace(node(i), name=f"{EVIL}\nreboot {i}", cluster_ip=f"10.0.0.{i}$(id)") for i in range(2))
    g = GroupSpec("g", "direct", nodes, 200.0)
    plan = plan_of(
        g,
        evil_model,
        "pp" if engine == "llama.cpp-rpc" else "tp",
        engine="llama.cpp" if engine == "llama.cpp-rpc" else "vllm",
    )
    ref = f"{EVIL}.gguf" if engine == "llama.cpp-rpc" else None
    for script in launch_commands(plan, g, evil_model, engine=engine, model_ref=ref).values():
        for line in _command_lines(script):
            words = shlex.split(line)  # parses: no dangling quote, one word per value
            assert "rm" not in words and "reboot" not in words
            if EVIL in line or "$(id)" in line:
                assert any(EVIL in w or "$(id)" in w for w in words)
        assert not any(line.strip().startswith("reboot") for line in script.splitlines())
        assert EVIL not in "".join(_command_lines(script)).replace(shlex.quote(ref or EVIL), "")


@settings(max_examples=80, deadline=None)
@given(text=st.text(min_size=1, max_size=40))
def test_any_model_reference_is_one_shell_word_or_refused(text):
    g = switched(2)
    plan = plan_of(g, LLAMA, tp=2)
    if any(not ch.isprintable() for ch in text) or text.lower().endswith(".gguf"):
        with pytest.raises(LaunchError) as err:
            launch_commands(plan, g, LLAMA, engine="vllm", model_ref=text)
        assert err.value.problems[0][0] == "model_ref"
        return
    scripts = launch_commands(plan, g, LLAMA, engine="vllm", model_ref=text)
    line = [x for x in _command_lines(scripts["spark-0"]) if x.startswith("vllm serve")][0]
    assert shlex.split(line)[2] == text
