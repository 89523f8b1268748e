"""Launch commands for a plan: the shell script each node of the plan runs.

Owns the launch rules of docs/launch-and-fabric.md and docs/operations.md
("Launching a multi-node engine"): NVIDIA's vLLM and NCCL playbooks for DGX
Spark, and vLLM's ``run_cluster.sh``.

- Bootstrap versus data. NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, UCX, TP,
  Open MPI's TCP interface, MASTER_ADDR, the Ray head and llama.cpp's RPC only
  choose the *bootstrap* path, which must reach EVERY node of the instance: a
  cluster link does on a direct pair or a switch; on a ring or chain it only
  reaches the neighbours, so bootstrap goes over the management interface
  (``LaunchSettings.mgmt_iface``, ``enP7s7`` by default) and its address.
  NCCL finds the RoCE data path itself.
- BOTH RoCE twins of every cabled port in NCCL_IB_HCA (one twin alone tops out
  near 100 Gb/s). MTU 9000 on the cabled twins is advice, not a precondition
  (NVIDIA's playbooks never set it): the script warns before anything starts
  when a twin is below it, and on a switch names the switch-side setting.
- Rings: NVIDIA's cluster set-up script refuses rings of four or more and
  builds a ring-capable NCCL for three (zyang-dev/nccl, branch
  dgxspark-3node-ring); a ring launch names that build and an image that
  carries one (``RING_NCCL``), since NGC images as shipped may fail at NCCL
  set-up on a ring.
- vLLM gets ``--gpu-memory-utilization`` from the plan's memory budget
  (``plan_memory.gpu_memory_utilization``), not its 0.9 default; SGLang gets
  ``--mem-fraction-static`` from the same budget (its weights and caches:
  ``plan_memory.sglang_mem_fraction_static``).
- A plan made for eager mode launches in it (``EAGER_FLAG``: vLLM's
  --enforce-eager, SGLang's --disable-cuda-graph, llama.cpp's
  GGML_CUDA_DISABLE_GRAPHS=1), so the engine runs what was predicted.
- HF_TOKEN is passed from the node's environment when set (``-e HF_TOKEN``
  into containers; processes inherit it): never written into a script.
- NCCL_IB_SUBNET_AWARE_ROUTING=1 on every multi-node group (NVIDIA's cluster
  set-up script sets it on all topologies); rings and chains add
  NCCL_NET_PLUGIN=none and NCCL_IB_MERGE_NICS=0.
- vLLM: NVIDIA's container recipe ("vllm-container", the default: the
  ``nvcr.io/nvidia/vllm`` image started by ``run_cluster.sh`` on every node,
  then ``vllm serve`` inside the head container), bare-metal Ray
  ("vllm-ray") and Ray-less ("vllm": --nnodes/--node-rank/--master-addr).
  Every node gets VLLM_HOST_IP (its bootstrap address) and
  RAY_memory_monitor_refresh_ms=0 (Ray's monitor kills workers on unified
  memory). Beside it: "sglang" and "llama.cpp-rpc".
- A model is named by its real reference for the engine (a Hugging Face
  repository for vLLM and SGLang, a GGUF repository or file for llama.cpp);
  there is no fallback to the catalogue slug, and a combination the engine
  cannot load (NVFP4 or safetensors on llama.cpp) is refused with the reason.

Every value that comes from the inventory or the user (model references,
interface names, addresses) goes through shlex.quote. No Django.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from placement.model_catalogue import ModelSpec
from placement.perfmodel import PREFILL_CHUNK, split_streams
from placement.plan_memory import gpu_memory_utilization, sglang_mem_fraction_static
from placement.planner import NVIDIA_SETUP_MAX_RING, RING_IMAGE, RING_NCCL, GroupSpec, NodeSpec, Plan
from placement.quants import engine_reference
from telemetry.software import image_repository

# The container recipe first: it is the default vLLM launcher.
LAUNCH_ENGINES = ("vllm-container", "vllm-ray", "vllm", "sglang", "llama.cpp-rpc")
# what each launcher needs on every node that a software reading tells (telemetry.software):
# Docker with the image for the container recipe, vllm on the PATH for the bare-metal ones
LAUNCHER_NEEDS = {"vllm-container": "docker", "vllm-ray": "vllm", "vllm": "vllm"}
# How each planner engine is told to run without CUDA graphs, when the plan
# was made for eager mode (its prediction assumes it): vLLM's flag, SGLang's,
# and llama.cpp's environment variable (ggml-cuda reads it at start).
EAGER_FLAG = {"vllm": "--enforce-eager", "sglang": "--disable-cuda-graph", "llama.cpp": "GGML_CUDA_DISABLE_GRAPHS=1"}
# Which planner engine each launcher serves.
PLANNER_ENGINE = {
    "vllm-container": "vllm",
    "vllm-ray": "vllm",
    "vllm": "vllm",
    "sglang": "sglang",
    "llama.cpp-rpc": "llama.cpp",
}
# Which model reference each launcher loads.
REFERENCE_KIND = {"vllm-container": "hf", "vllm-ray": "hf", "vllm": "hf", "sglang": "hf", "llama.cpp-rpc": "gguf"}

RAY_PORT = 6379  # Ray's default GCS port (run_cluster.sh uses it too)
SERVE_PORT = 8000  # vLLM / SGLang OpenAI-compatible API
TORCH_MASTER_PORT = 29501  # torch.distributed rendezvous for Ray-less vLLM
SGLANG_DIST_PORT = 20000  # SGLang --dist-init-addr port (its docs' example)
RPC_PORT = 50052  # llama.cpp rpc-server default
LLAMA_SERVER_PORT = 8080  # llama-server default
CLUSTER_MTU = 9000
# What a switch must be told for jumbo frames to cross it (docs/launch-and-fabric.md).
SWITCH_MTU_SETTING = (
    "raise the MTU of every Spark-facing switch port to 9000 or more "
    "(MikroTik RouterOS: the port's mtu and l2mtu; most switches: the port's jumbo-frame MTU, often 9216)"
)
# The API has to be reachable from users' machines (management network), so
# the default binds every interface; pass serve_host to bind one address.
DEFAULT_SERVE_HOST = "0.0.0.0"  # noqa: S104
DEFAULT_MGMT_IFACE = "enP7s7"
# NVIDIA's vLLM playbook: the NGC image, and run_cluster.sh pinned to the commit
# the playbook was checked against; images from 26.05 on ship without Ray, so
# the playbook patches the script to install it in the container first.
DEFAULT_VLLM_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"
RUN_CLUSTER_URL = (
    "https://raw.githubusercontent.com/vllm-project/vllm/"
    "51c1ee9b7c8acbba4899a8ebffd390685d171946/examples/ray_serving/run_cluster.sh"
)
RAY_INSTALL_PATCH = (
    's|^RAY_START_CMD="ray start|RAY_START_CMD="pip install -q --root-user-action=ignore '
    "'ray[default]>=2.9' \\&\\& ray start|"
)
# Bootstrap over the cluster link works only where it reaches every node.
CLUSTER_BOOTSTRAP_KINDS = ("direct", "switched")
RING_KINDS = ("ring", "chain")
# A GGUF reference: a file (path or URL) ending in .gguf, or a Hugging Face
# repository whose name says GGUF, optionally with :QUANT (llama.cpp's -hf).
_GGUF_FILE = re.compile(r"\.gguf$", re.I)
_GGUF_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]*gguf[\w.-]*(:[\w.-]+)?$", re.I)


class LaunchError(ValueError):
    """The plan cannot be turned into commands; `problems` says why, field by field."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{where}: {msg}" for where, msg in problems))


@dataclass(frozen=True)
class LaunchSettings:
    """What the lab configures once: the management interface (the same name on
    every node), each node's management address (None: a placeholder to fill
    in), the vLLM image and where run_cluster.sh and the model cache live."""

    mgmt_iface: str = DEFAULT_MGMT_IFACE
    mgmt_ips: Mapping[str, str] = field(default_factory=dict)
    vllm_image: str = DEFAULT_VLLM_IMAGE
    # the registry digest the lab pins vllm_image to (a software pin), or "": the
    # launch commands then run that build by its digest (``run_image``), not the moving tag
    vllm_pin: str = ""
    run_cluster: str = "$HOME/run_cluster.sh"
    hf_cache: str = "$HOME/.cache/huggingface"
    # unified memory the OS keeps (FLEET_OS_RESERVE_GB): a node's total is
    # the plan's usable memory plus this, which vLLM's utilization counts against
    os_reserve_gb: float = 4.0


def run_image(settings: LaunchSettings) -> str:
    """The image reference the launch commands run: the pinned build by its
    digest (REPO@sha256:...) when the lab pins one, else the configured tag."""
    if settings.vllm_pin:
        return f"{image_repository(settings.vllm_image)}@{settings.vllm_pin}"
    return settings.vllm_image


def _q(value: object) -> str:
    return shlex.quote(str(value))


def shell_path(value: str) -> str:
    """A configured path: a leading $HOME stays expandable, the rest is quoted."""
    if value.startswith("$HOME/"):
        return '"$HOME"/' + _q(value[len("$HOME/") :])
    return _q(value)


def _c(value: object) -> str:
    """Text for a comment line: a newline there would end the comment and run the rest."""
    return "".join(ch if ch.isprintable() else "?" for ch in str(value))


def _dq(text: str) -> str:
    """Text in double quotes with $dev-style variables left to the shell:
    only for the script's own messages, never for user text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'


def _unprintable(value: object) -> bool:
    return any(not ch.isprintable() for ch in str(value))


def ib_hca(node: NodeSpec) -> list[str]:
    """Both RoCE twins of every cabled port, in port order."""
    devices: list[str] = []
    for port in sorted(node.port_ifaces):
        devices.extend(node.port_rdma.get(port, ()))
    return devices


def cluster_twins(node: NodeSpec) -> list[str]:
    """Both netdev twins of every cabled port, in port order (MTU 9000 on each)."""
    names: list[str] = []
    for port in sorted(node.port_ifaces):
        names.extend(node.port_ifaces[port])
    return names


def mgmt_bootstrap(kind: str) -> bool:
    """Whether bootstrap goes over the management network for this group kind."""
    return kind not in CLUSTER_BOOTSTRAP_KINDS


def placeholder(node: str, iface: str) -> str:
    return f"<ip of {_c(node)} on {_c(iface)}>"


def usable_mgmt_ip(text: str | None) -> str | None:
    """An inventory SSH host usable as a management address: an IP that is not
    loopback (a tunnel or the simulated fleet) nor unspecified; names are not
    accepted because VLLM_HOST_IP and Ray's node address need an IP."""
    try:
        ip = ipaddress.ip_address(str(text or "").strip())
    except ValueError:
        return None
    return None if ip.is_loopback or ip.is_unspecified else str(ip)


def bootstrap(node: NodeSpec, kind: str, settings: LaunchSettings) -> tuple[str, str]:
    """(interface, address) this node's engine bootstraps on."""
    if mgmt_bootstrap(kind):
        iface = settings.mgmt_iface
        return iface, settings.mgmt_ips.get(node.name) or placeholder(node.name, iface)
    return node.bootstrap_iface or "", node.cluster_ip or ""


# --- model references -------------------------------------------------------------


def model_ref_problem(model: ModelSpec, launcher: str, ref: str | None) -> str | None:
    """Why this engine cannot load this model reference, or None."""
    engine = PLANNER_ENGINE.get(launcher, launcher)
    if REFERENCE_KIND.get(launcher) == "gguf":
        if model.quantization == "nvfp4":
            return (
                f"{model.slug} is NVFP4: llama.cpp does not load NVFP4 checkpoints; pick a GGUF variant "
                "of the model or another engine"
            )
        if not ref:
            return f"{model.slug} has no GGUF repository or file for llama.cpp; add one to the model"
        if not (_GGUF_FILE.search(ref) or _GGUF_REPO.match(ref)):
            return (
                f"{ref} is not a GGUF file or repository: llama.cpp cannot load safetensors; "
                "give a .gguf file or a GGUF repository (e.g. ggml-org/gpt-oss-120b-GGUF)"
            )
        return None
    if not ref:
        return f"{model.slug} has no Hugging Face repository for {engine}; add one to the model"
    if _GGUF_FILE.search(ref):
        return f"{ref} is a GGUF file: {engine} loads the Hugging Face repository, not GGUF"
    return None


@dataclass(frozen=True)
class Weights:
    """What the engine is told to load: a repository (or a path), and for
    llama.cpp the GGUF file in it when the catalogue names one."""

    ref: str
    gguf_file: str | None = None


def model_reference(model: ModelSpec, launcher: str, model_ref: str | None = None) -> tuple[Weights | None, str | None]:
    """(weights, None) or (None, why not). ``model_ref`` overrides the
    catalogue; otherwise the plan's variant (``model.default_variant()``, the
    one the planner was given) names the reference the engine loads, through
    ``placement.quants.engine_reference``. Never the catalogue slug."""
    if model_ref is not None:
        why = model_ref_problem(model, launcher, model_ref)
        return (None, why) if why else (Weights(model_ref), None)
    ref = engine_reference(model.default_variant(), PLANNER_ENGINE.get(launcher, launcher))
    if not ref.loadable or ref.repo is None:
        return None, f"{model.slug} ({ref.quantization}): {ref.reason or 'no reference recorded'}"
    if REFERENCE_KIND.get(launcher) == "gguf":
        return (Weights(ref.repo, ref.file) if ref.file else Weights(ref.ref or ref.repo)), None
    return Weights(ref.repo), None


# --- problems ---------------------------------------------------------------------


def launch_problems(
    plan: Plan,
    group: GroupSpec,
    model: ModelSpec,
    *,
    engine: str,
    model_ref: str | None = None,
    settings: LaunchSettings | None = None,
) -> list[tuple[str, str]]:
    """Everything that stops commands from being generated, as (where, message)."""
    settings = settings or LaunchSettings()
    problems: list[tuple[str, str]] = []
    if engine not in LAUNCH_ENGINES:
        return [("engine", f"one of {', '.join(LAUNCH_ENGINES)}")]
    weights, why = model_reference(model, engine, model_ref)
    # quoting keeps a newline inside one argument, but no real model name,
    # address or interface contains one: refuse instead of writing it
    texts = f"{model_ref or ''}{weights.ref if weights else ''}{(weights.gguf_file or '') if weights else ''}"
    for where, value in (
        ("model_ref", texts),
        ("model.slug", model.slug),
        ("settings", f"{settings.mgmt_iface}{run_image(settings)}{settings.run_cluster}{settings.hf_cache}"),
    ):
        if _unprintable(value):
            problems.append((where, "contains control characters (newline, tab...)"))
    if not problems and why:
        problems.append(("model_ref", why))
    if not plan.fits:
        problems.append(("plan", "does not fit in memory: running it would exhaust unified memory"))
    if engine == "llama.cpp-rpc" and (plan.tp > 1 or plan.ep > 1):
        problems.append(("plan", "llama.cpp RPC splits layers only: no tensor or expert parallelism"))
    by_name = {n.name: n for n in group.nodes}
    for name in plan.nodes:
        if name not in by_name:
            problems.append((f"node {name}", "not in this group"))
    if problems:
        return problems
    for instance in plan.instances:
        if len(instance) < 2:
            continue
        for name in instance:
            problems += _node_problems(by_name[name], group.kind, engine, settings)
    return problems


def _node_problems(node: NodeSpec, kind: str, engine: str, settings: LaunchSettings) -> list[tuple[str, str]]:
    where = f"node {node.name}"
    if not node.has_connectx:
        return [(where, "has no ConnectX-7: cannot join a multi-node plan")]
    problems = []
    if not mgmt_bootstrap(kind) and not node.cluster_ip:
        problems.append((where, "cluster_ip is missing"))
    values = [node.cluster_ip or "", node.bootstrap_iface or "", settings.mgmt_ips.get(node.name, "")]
    values += [v for pair in (*node.port_ifaces.values(), *node.port_rdma.values()) for v in pair]
    if any(_unprintable(v) for v in values):
        problems.append((where, "an address or interface name contains control characters"))
    if not node.port_ifaces:
        problems.append((where, "no cabled port: the group's cluster links do not reach it"))
    elif not mgmt_bootstrap(kind) and not node.bootstrap_iface:
        problems.append((where, "no cabled port and no cluster_iface"))
    if engine != "llama.cpp-rpc":
        for port in sorted(node.port_ifaces):
            twins = node.port_rdma.get(port, ())
            if len(twins) != 2 or not all(twins):
                problems.append((where, f"port {port}: both RoCE twins needed for NCCL_IB_HCA"))
    return problems


# --- pieces -----------------------------------------------------------------------


def cluster_env(
    node: NodeSpec, head: NodeSpec, group: GroupSpec, settings: LaunchSettings, *, vllm: bool
) -> list[tuple[str, str]]:
    """(variable, value) pairs a multi-node engine process needs on this node."""
    iface, address = bootstrap(node, group.kind, settings)
    _, head_address = bootstrap(head, group.kind, settings)
    env: list[tuple[str, str]] = []
    if vllm:
        env.append(("VLLM_HOST_IP", address))
    for var in (
        "NCCL_SOCKET_IFNAME",
        "GLOO_SOCKET_IFNAME",
        "UCX_NET_DEVICES",
        "TP_SOCKET_IFNAME",
        "OMPI_MCA_btl_tcp_if_include",
    ):
        env.append((var, iface))
    env.append(("NCCL_IB_HCA", ",".join(ib_hca(node))))
    env.append(("NCCL_IB_SUBNET_AWARE_ROUTING", "1"))
    if group.kind in RING_KINDS:
        env += [("NCCL_NET_PLUGIN", "none"), ("NCCL_IB_MERGE_NICS", "0")]
    env.append(("MASTER_ADDR", head_address))
    # NCCL says which network each rank chose ("Using network IB" or "Socket"): what serving reads back
    env += [("NCCL_DEBUG", "INFO"), ("NCCL_DEBUG_SUBSYS", "INIT,NET")]
    if vllm:
        env.append(("RAY_memory_monitor_refresh_ms", "0"))
    return env


def mtu_advice(kind: str) -> str:
    """What the MTU warning tells the user to do, for this group kind."""
    advice = f"apply this node's netplan file (MTU {CLUSTER_MTU}) for full bandwidth"
    if kind == "switched":
        advice += f"; on the switch, {SWITCH_MTU_SETTING}"
    return advice


def preflight(node: NodeSpec, group: GroupSpec, settings: LaunchSettings) -> list[str]:
    """Shell lines run before anything starts: a warning (not a stop) for a
    cabled twin below MTU 9000, naming the switch-side setting on a switch;
    a stop when the bootstrap interface is missing."""
    twins = " ".join(_q(name) for name in cluster_twins(node))
    iface, _ = bootstrap(node, group.kind, settings)
    warning = f"warning: MTU of $dev is $mtu, not {CLUSTER_MTU}: {mtu_advice(group.kind)}; starting anyway"
    return [
        f"for dev in {twins}; do",
        '  mtu=$(cat "/sys/class/net/$dev/mtu" 2>/dev/null || echo 0)',
        f'  if [ "$mtu" -lt {CLUSTER_MTU} ] 2>/dev/null; then',
        f"    echo {_dq(warning)} >&2",
        "  fi",
        "done",
        f"if [ ! -e /sys/class/net/{_q(iface)} ]; then",
        f"  echo {_q(f'bootstrap interface {iface} is missing on this node')} >&2; exit 1",
        "fi",
    ]


def vllm_memory_utilization(plan: Plan, settings: LaunchSettings) -> float:
    """The plan's ``--gpu-memory-utilization``: what its memory budget needs
    on the node that limits it, as a share of that node's whole memory."""
    budget = plan.memory_per_node_gb
    return gpu_memory_utilization(budget, budget.usable + settings.os_reserve_gb)


def sglang_memory_fraction(plan: Plan, settings: LaunchSettings) -> float:
    """The plan's ``--mem-fraction-static`` for SGLang, from the same budget."""
    budget = plan.memory_per_node_gb
    return sglang_mem_fraction_static(budget, budget.usable + settings.os_reserve_gb)


def _vllm_args(ctx: _Instance) -> list[str]:
    plan, model, ref = ctx.plan, ctx.model, ctx.ref
    args = [
        "vllm",
        "serve",
        _q(ref),
        "--served-model-name",
        _q(model.slug),
        "--tensor-parallel-size",
        str(plan.tp),
        "--pipeline-parallel-size",
        str(plan.pp),
    ]
    if plan.ep > 1:
        args.append("--enable-expert-parallel")
    if plan.mode == "eager":
        args.append(EAGER_FLAG["vllm"])
    args += [
        "--max-model-len",
        str(plan.context_tokens),
        "--max-num-seqs",
        str(ctx.per_instance),
        "--gpu-memory-utilization",
        f"{ctx.utilization:.2f}",
        "--host",
        _q(ctx.host),
        "--port",
        str(ctx.port),
    ]
    return args


def _sglang_args(ctx: _Instance) -> list[str]:
    plan, model, ref = ctx.plan, ctx.model, ctx.ref
    args = [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        _q(ref),
        "--served-model-name",
        _q(model.slug),
        "--tp",
        str(plan.tp),
    ]
    if plan.pp > 1:
        args += ["--pp-size", str(plan.pp)]
    if plan.ep > 1:
        args += ["--ep-size", str(plan.ep)]
    if plan.mode == "eager":
        args.append(EAGER_FLAG["sglang"])
    args += [
        "--context-length",
        str(plan.context_tokens),
        "--max-running-requests",
        str(ctx.per_instance),
        "--mem-fraction-static",
        f"{sglang_memory_fraction(plan, ctx.settings):.2f}",
        "--host",
        _q(ctx.host),
        "--port",
        str(ctx.port),
    ]
    return args


def ring_notes(size: int) -> list[str]:
    """What a ring launch of ``size`` nodes needs, as comment lines."""
    lines = [f"# ring of {size}: needs {RING_NCCL}", f"# and {RING_IMAGE}"]
    if size > NVIDIA_SETUP_MAX_RING:
        lines.append(
            f"# NVIDIA's cluster set-up script refuses rings of {NVIDIA_SETUP_MAX_RING + 1} or more: "
            "address the ring with this lab's netplan files instead"
        )
    return lines


def _header(
    plan: Plan,
    model: ModelSpec,
    node: NodeSpec,
    index: int,
    rank: int,
    size: int,
    group: GroupSpec,
    settings: LaunchSettings,
) -> list[str]:
    # comments carry user text too: _c keeps it on the comment's line
    lines = [
        "#!/usr/bin/env bash",
        "set -euo pipefail",
        f"# model {_c(model.slug)}: {plan.strategy} tp={plan.tp} pp={plan.pp} ep={plan.ep}",
        f"# node {_c(node.name)}: rank {rank} of {size} in instance {index + 1} of {plan.replicas}",
    ]
    if size > 1:
        iface, _ = bootstrap(node, group.kind, settings)
        why = (
            "a ring link reaches only the neighbours, so bootstrap uses the management network"
            if mgmt_bootstrap(group.kind)
            else "the cluster link reaches every node of the group"
        )
        lines.append(f"# bootstrap on {_c(iface)}: {why}; NCCL finds the RoCE data path itself")
    if plan.replicas > 1:
        lines.append("# independent copies: put a load balancer in front of the instances' heads")
    if plan.mode == "eager":
        lines.append(
            f"# eager mode, as the plan's figures were predicted: {EAGER_FLAG[plan.engine]} "
            "(no CUDA graphs: every kernel is launched from the CPU)"
        )
    if size > 1 and group.kind in RING_KINDS:
        lines += ring_notes(size)
    lines += [
        "# gated models: HF_TOKEN is read from this node's environment when set (export it first);",
        "# it is never written into this script",
        'if [ -z "${HF_TOKEN:-}" ]; then echo "note: HF_TOKEN is not set: gated models will not download" >&2; fi',
    ]
    if plan.exchange_path == "switched-rocenante":
        lines.append(
            "# collective backend: RoCEnante expected; it falls back to NCCL if its self-test "
            "fails: check the log and record which one ran"
        )
    return lines


def launch_commands(
    plan: Plan,
    group: GroupSpec,
    model: ModelSpec,
    *,
    engine: str,
    model_ref: str | None = None,
    serve_host: str = DEFAULT_SERVE_HOST,
    settings: LaunchSettings | None = None,
    ports: list[int] | None = None,
) -> dict[str, str]:
    """One bash script per node of the plan, keyed by node name.

    `model_ref` is what the engine loads (default: ``model_reference``); for
    llama.cpp a .gguf file is passed with -m, a GGUF repository with -hf.
    `ports`: each instance's API port (default: the engine's own, 8000 for
    vLLM and SGLang, 8080 for llama-server). Raises LaunchError with
    field-by-field problems.
    """
    settings = settings or LaunchSettings()
    problems = launch_problems(plan, group, model, engine=engine, model_ref=model_ref, settings=settings)
    if problems:
        raise LaunchError(problems)
    by_name = {n.name: n for n in group.nodes}
    weights, _ = model_reference(model, engine, model_ref)
    assert weights is not None  # launch_problems refuses a missing reference
    shares = split_streams(plan.concurrency, plan.replicas)
    scripts: dict[str, str] = {}
    for index, names in enumerate(plan.instances):
        nodes = [by_name[n] for n in names]
        port = ports[index] if ports else (LLAMA_SERVER_PORT if engine == "llama.cpp-rpc" else SERVE_PORT)
        ctx = _Instance(plan, group, model, weights, nodes, max(1, shares[index]), serve_host, settings, port)
        for rank, node in enumerate(nodes):
            lines = _header(plan, model, node, index, rank, len(nodes), group, settings)
            if len(nodes) > 1:
                lines += preflight(node, group, settings)
            lines += _node_commands(engine, ctx, node, rank)
            scripts[node.name] = "\n".join(lines) + "\n"
    return scripts


@dataclass(frozen=True)
class _Instance:
    plan: Plan
    group: GroupSpec
    model: ModelSpec
    weights: Weights
    nodes: list[NodeSpec]
    per_instance: int
    host: str
    settings: LaunchSettings
    port: int = SERVE_PORT

    @property
    def ref(self) -> str:
        return self.weights.ref

    @property
    def utilization(self) -> float:
        return vllm_memory_utilization(self.plan, self.settings)

    @property
    def head(self) -> NodeSpec:
        return self.nodes[0]

    @property
    def multi(self) -> bool:
        return len(self.nodes) > 1

    def address(self, node: NodeSpec) -> str:
        return bootstrap(node, self.group.kind, self.settings)[1]


def _exports(env: list[tuple[str, str]]) -> list[str]:
    return [f"export {var}={_q(value)}" for var, value in env]


def _node_commands(engine: str, ctx: _Instance, node: NodeSpec, rank: int) -> list[str]:
    if engine == "llama.cpp-rpc":
        return _llama_cpp(ctx, node, rank)
    if engine == "vllm-container":
        return _vllm_container(ctx, node, rank)
    env = cluster_env(node, ctx.head, ctx.group, ctx.settings, vllm=engine.startswith("vllm")) if ctx.multi else []
    if engine == "vllm-ray":
        if not ctx.multi:
            return [" ".join(_vllm_args(ctx))]
        if rank == 0:
            return _exports(env) + [
                f"ray start --head --node-ip-address={_q(ctx.address(node))} --port={RAY_PORT}",
                *_wait_for_ray(len(ctx.nodes), "ray status"),
                " ".join(_vllm_args(ctx) + ["--distributed-executor-backend", "ray"]),
            ]
        return _exports(env) + [
            f"ray start --block --address={_q(f'{ctx.address(ctx.head)}:{RAY_PORT}')} "
            f"--node-ip-address={_q(ctx.address(node))}"
        ]
    if engine == "vllm":
        args = _vllm_args(ctx)
        if ctx.multi:
            args += [
                "--nnodes",
                str(len(ctx.nodes)),
                "--node-rank",
                str(rank),
                "--master-addr",
                _q(ctx.address(ctx.head)),
                "--master-port",
                str(TORCH_MASTER_PORT),
            ]
            if rank > 0:
                args.append("--headless")
        return _exports(env) + [" ".join(args)]
    # sglang
    args = _sglang_args(ctx)
    if ctx.multi:
        args += [
            "--nnodes",
            str(len(ctx.nodes)),
            "--node-rank",
            str(rank),
            "--dist-init-addr",
            _q(f"{ctx.address(ctx.head)}:{SGLANG_DIST_PORT}"),
        ]
    return _exports(env) + [" ".join(args)]


def _wait_for_ray(count: int, status_command: str) -> list[str]:
    """Wait until Ray sees every node of the instance (10 minutes at most)."""
    return [
        f"echo 'waiting for {count} Ray nodes (start the other nodes now)'",
        "for _ in $(seq 1 120); do",
        f"  seen=$({status_command} 2>/dev/null | grep -cE '^ *[0-9]+ node_' || true)",
        f'  if [ "${{seen:-0}}" -ge {count} ]; then break; fi',
        "  sleep 5",
        "done",
        f'if [ "${{seen:-0}}" -lt {count} ]; then echo "only ${{seen:-0}} of {count} Ray nodes joined" >&2; exit 1; fi',
    ]


def _vllm_container(ctx: _Instance, node: NodeSpec, rank: int) -> list[str]:
    """NVIDIA's recipe: run_cluster.sh starts the nvcr.io/nvidia/vllm container
    (host network, Ray inside) on every node; the head then runs vllm serve in
    its container. Docker's -e carries the environment into the container."""
    s = ctx.settings
    image = _q(run_image(s))
    serve = " ".join(_vllm_args(ctx))
    if not ctx.multi:
        return [
            f"docker run --rm --gpus all --network host --ipc host -e HF_TOKEN "
            f"-v {shell_path(s.hf_cache)}:/root/.cache/huggingface {image} {serve}"
        ]
    env = cluster_env(node, ctx.head, ctx.group, s, vllm=True)
    fetch = [
        f"RUN_CLUSTER={shell_path(s.run_cluster)}",
        'if [ ! -x "$RUN_CLUSTER" ]; then',
        f'  wget -qO "$RUN_CLUSTER" {_q(RUN_CLUSTER_URL)}',
        f'  sed -i {_q(RAY_INSTALL_PATCH)} "$RUN_CLUSTER"',
        '  chmod +x "$RUN_CLUSTER"',
        "fi",
        f"mkdir -p {shell_path(s.hf_cache)}",
    ]
    role = "--head" if rank == 0 else "--worker"
    # -e HF_TOKEN (no value): docker passes the node's own, when set
    start = f'bash "$RUN_CLUSTER" {image} {_q(ctx.address(ctx.head))} {role} {shell_path(s.hf_cache)} ' + " ".join(
        ["-e HF_TOKEN", *(f"-e {_q(f'{var}={value}')}" for var, value in env)]
    )
    if rank > 0:
        return [*fetch, "# keeps running: run it in tmux or screen (run_cluster.sh stops its container on exit)", start]
    return [
        *fetch,
        f"{start} > run_cluster.log 2>&1 &",
        "container=''",
        "for _ in $(seq 1 60); do",
        "  container=$(docker ps --format '{{.Names}}' | grep -E '^node-[0-9]+$' | head -n 1 || true)",
        '  if [ -n "$container" ]; then break; fi',
        "  sleep 2",
        "done",
        'if [ -z "$container" ]; then echo "the vLLM container did not start: see run_cluster.log" >&2; exit 1; fi',
        *_wait_for_ray(len(ctx.nodes), 'docker exec "$container" ray status'),
        f'docker exec "$container" {serve} --distributed-executor-backend ray',
    ]


def _llama_cpp(ctx: _Instance, node: NodeSpec, rank: int) -> list[str]:
    if rank > 0:
        return [f"rpc-server --host {_q(ctx.address(node))} --port {RPC_PORT}"]
    ref = ctx.ref
    if ctx.weights.gguf_file:
        source = ["--hf-repo", _q(ref), "--hf-file", _q(ctx.weights.gguf_file)]
    elif _GGUF_FILE.search(ref):
        source = ["--model-url", _q(ref)] if "://" in ref else ["-m", _q(ref)]
    else:
        source = ["-hf", _q(ref)]
    args = [
        *([EAGER_FLAG["llama.cpp"]] if ctx.plan.mode == "eager" else []),
        "llama-server",
        *source,
        "-ngl",
        "999",
        "-c",
        str(ctx.plan.context_tokens * ctx.per_instance),
        # the prompt chunk the plan's prefill is predicted at (llama-server's own ubatch is 512: a MoE
        # prompt streams its experts once per ubatch, and runs at 512 prefill about half as fast)
        "-b",
        str(PREFILL_CHUNK["llama.cpp"]),
        "-ub",
        str(PREFILL_CHUNK["llama.cpp"]),
        "--parallel",
        str(ctx.per_instance),
        "--host",
        _q(ctx.host),
        "--port",
        str(ctx.port),
    ]
    lines = []
    if ctx.multi:
        workers = ",".join(f"{ctx.address(n)}:{RPC_PORT}" for n in ctx.nodes[1:])
        args += ["--rpc", _q(workers)]
        lines.append(f"# start rpc-server on the {len(ctx.nodes) - 1} other node(s) first")
    return lines + [" ".join(args)]


def vllm_serve_line(
    plan: Plan,
    group: GroupSpec,
    model: ModelSpec,
    *,
    index: int,
    port: int,
    serve_host: str = DEFAULT_SERVE_HOST,
    settings: LaunchSettings | None = None,
) -> str:
    """Instance ``index``'s ``vllm serve ...`` line, as its launch script runs it
    (for a caller that starts the engine its own way: serving runs it detached)."""
    settings = settings or LaunchSettings()
    weights, why = model_reference(model, "vllm", None)
    if weights is None:
        raise LaunchError([("model_ref", why or "no reference")])
    by_name = {n.name: n for n in group.nodes}
    nodes = [by_name[n] for n in plan.instances[index]]
    shares = split_streams(plan.concurrency, plan.replicas)
    ctx = _Instance(plan, group, model, weights, nodes, max(1, shares[index]), serve_host, settings, port)
    return " ".join(_vllm_args(ctx))


def script_header(
    plan: Plan, model: ModelSpec, node: NodeSpec, index: int, rank: int, size: int, group: GroupSpec, s: LaunchSettings
) -> list[str]:
    """The first lines of a node's launch script (what runs where, HF_TOKEN)."""
    return _header(plan, model, node, index, rank, size, group, s)
