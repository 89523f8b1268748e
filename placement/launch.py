"""Launch commands for a plan: the shell each node of the plan should run.

Owns the launch pitfalls of docs/operations.md ("Launching a multi-node engine"): the NCCL/Gloo/UCX bootstrap
interface set to the real cluster interface, BOTH RoCE twins of every cabled
port in NCCL_IB_HCA (one twin alone tops out near 100 Gb/s),
NCCL_IB_MERGE_NICS=0 on rings, Ray's memory monitor switched off (it kills
workers on unified memory). Engines: "vllm-ray" (NVIDIA's recipe), "vllm"
(Ray-less, --nnodes/--node-rank/--master-addr), "sglang" and
"llama.cpp-rpc". Every value that comes from the inventory or the user (model
names, interface names, addresses) goes through shlex.quote.
"""

from __future__ import annotations

import shlex

from placement.catalogue import ModelSpec
from placement.planner import GroupSpec, NodeSpec, Plan

LAUNCH_ENGINES = ("vllm-ray", "vllm", "sglang", "llama.cpp-rpc")
# Which planner engine each launcher serves.
PLANNER_ENGINE = {"vllm-ray": "vllm", "vllm": "vllm", "sglang": "sglang", "llama.cpp-rpc": "llama.cpp"}

RAY_PORT = 6379  # Ray's default GCS port
SERVE_PORT = 8000  # vLLM / SGLang OpenAI-compatible API
TORCH_MASTER_PORT = 29501  # torch.distributed rendezvous for Ray-less vLLM
SGLANG_DIST_PORT = 20000  # SGLang --dist-init-addr port (its docs' example)
RPC_PORT = 50052  # llama.cpp rpc-server default
LLAMA_SERVER_PORT = 8080  # llama-server default
# The API has to be reachable from users' machines (management network), so
# the default binds every interface; pass serve_host to bind one address.
DEFAULT_SERVE_HOST = "0.0.0.0"  # noqa: S104


class LaunchError(ValueError):
    """The plan cannot be turned into commands; `problems` says why, field by field."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{where}: {msg}" for where, msg in problems))


def _q(value: object) -> str:
    return shlex.quote(str(value))


def _c(value: object) -> str:
    """Text for a comment line: a newline there would end the comment and run the rest."""
    return "".join(ch if ch.isprintable() else "?" for ch in str(value))


def ib_hca(node: NodeSpec) -> list[str]:
    """Both RoCE twins of every cabled port, in port order."""
    devices: list[str] = []
    for port in sorted(node.port_ifaces):
        devices.extend(node.port_rdma.get(port, ()))
    return devices


def _unprintable(value: object) -> bool:
    return any(not ch.isprintable() for ch in str(value))


def launch_problems(plan: Plan, group: GroupSpec, model: ModelSpec, *, engine: str,
                    model_ref: str | None = None) -> list[tuple[str, str]]:
    """Everything that stops commands from being generated, as (where, message)."""
    problems: list[tuple[str, str]] = []
    if engine not in LAUNCH_ENGINES:
        return [("engine", f"one of {', '.join(LAUNCH_ENGINES)}")]
    # quoting keeps a newline inside one argument, but no real model name,
    # address or interface contains one: refuse instead of writing it
    for where, value in (("model_ref", _model_ref(model, model_ref)), ("model.slug", model.slug)):
        if _unprintable(value):
            problems.append((where, "contains control characters (newline, tab...)"))
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
            node = by_name[name]
            if not node.has_connectx:
                problems.append((f"node {name}", "has no ConnectX-7: cannot join a multi-node plan"))
                continue
            if not node.cluster_ip:
                problems.append((f"node {name}", "cluster_ip is missing"))
            values = [node.cluster_ip or "", node.bootstrap_iface or ""]
            values += [v for pair in (*node.port_ifaces.values(), *node.port_rdma.values()) for v in pair]
            if any(_unprintable(v) for v in values):
                problems.append((f"node {name}", "an address or interface name contains control characters"))
            if not node.bootstrap_iface:
                problems.append((f"node {name}", "no cabled port and no cluster_iface"))
            if engine == "llama.cpp-rpc":
                continue
            for port in sorted(node.port_ifaces):
                twins = node.port_rdma.get(port, ())
                if len(twins) != 2 or not all(twins):
                    problems.append((f"node {name}", f"port {port}: both RoCE twins needed for NCCL_IB_HCA"))
    return problems


def _nccl_env(node: NodeSpec, head: NodeSpec, group: GroupSpec, *, vllm: bool) -> list[str]:
    iface = node.bootstrap_iface or ""
    env = []
    if vllm:
        env.append(f"export VLLM_HOST_IP={_q(node.cluster_ip)}")
    for var in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "UCX_NET_DEVICES", "TP_SOCKET_IFNAME",
                "OMPI_MCA_btl_tcp_if_include"):
        env.append(f"export {var}={_q(iface)}")
    env.append(f"export NCCL_IB_HCA={_q(','.join(ib_hca(node)))}")
    if group.kind in ("ring", "chain"):
        # both ports are cabled on a ring: stop NCCL from merging all four devices
        env.append("export NCCL_IB_MERGE_NICS=0")
    env.append(f"export MASTER_ADDR={_q(head.cluster_ip)}")
    if vllm:
        env.append("export RAY_memory_monitor_refresh_ms=0")
    return env


def _model_ref(model: ModelSpec, model_ref: str | None) -> str:
    return model_ref or model.hf_repo or model.slug


def _vllm_args(plan: Plan, model: ModelSpec, ref: str, per_instance: int, host: str) -> list[str]:
    args = ["vllm", "serve", _q(ref), "--served-model-name", _q(model.slug),
            "--tensor-parallel-size", str(plan.tp), "--pipeline-parallel-size", str(plan.pp)]
    if plan.ep > 1:
        args.append("--enable-expert-parallel")
    args += ["--max-model-len", str(plan.context_tokens), "--max-num-seqs", str(per_instance),
             "--host", _q(host), "--port", str(SERVE_PORT)]
    return args


def _sglang_args(plan: Plan, model: ModelSpec, ref: str, per_instance: int, host: str) -> list[str]:
    args = ["python3", "-m", "sglang.launch_server", "--model-path", _q(ref),
            "--served-model-name", _q(model.slug), "--tp", str(plan.tp)]
    if plan.pp > 1:
        args += ["--pp-size", str(plan.pp)]
    if plan.ep > 1:
        args += ["--ep-size", str(plan.ep)]
    args += ["--context-length", str(plan.context_tokens), "--max-running-requests", str(per_instance),
             "--host", _q(host), "--port", str(SERVE_PORT)]
    return args


def _header(plan: Plan, model: ModelSpec, node: NodeSpec, index: int, rank: int, size: int) -> list[str]:
    # comments carry user text too: _c keeps it on the comment's line
    lines = ["#!/usr/bin/env bash", "set -euo pipefail",
             f"# model {_c(model.slug)}: {plan.strategy} tp={plan.tp} pp={plan.pp} ep={plan.ep}",
             f"# node {_c(node.name)}: rank {rank} of {size} in instance {index + 1} of {plan.replicas}"]
    if plan.replicas > 1:
        lines.append("# independent copies: put a load balancer in front of the instances' heads")
    if plan.exchange_path == "switched-rocenante":
        lines.append("# collective backend: RoCEnante expected; it falls back to NCCL if its self-test "
                     "fails: check the log and record which one ran")
    return lines


def launch_commands(plan: Plan, group: GroupSpec, model: ModelSpec, *, engine: str,
                    model_ref: str | None = None, serve_host: str = DEFAULT_SERVE_HOST) -> dict[str, str]:
    """One shell script per node of the plan, keyed by node name.

    `model_ref` is what the engine loads (default: the model's hf_repo, else
    its slug); for llama.cpp a path ending in .gguf is passed with -m, anything
    else with -hf. Raises LaunchError with field-by-field problems.
    """
    problems = launch_problems(plan, group, model, engine=engine, model_ref=model_ref)
    if problems:
        raise LaunchError(problems)
    by_name = {n.name: n for n in group.nodes}
    ref = _model_ref(model, model_ref)
    shares = [plan.concurrency // plan.replicas + (1 if i < plan.concurrency % plan.replicas else 0)
              for i in range(plan.replicas)]
    scripts: dict[str, str] = {}
    for index, names in enumerate(plan.instances):
        nodes = [by_name[n] for n in names]
        head = nodes[0]
        per_instance = max(1, shares[index])
        for rank, node in enumerate(nodes):
            lines = _header(plan, model, node, index, rank, len(nodes))
            lines += _node_commands(engine, plan, group, model, ref, nodes, head, node, rank, per_instance,
                                    serve_host)
            scripts[node.name] = "\n".join(lines) + "\n"
    return scripts


def _node_commands(engine: str, plan: Plan, group: GroupSpec, model: ModelSpec, ref: str,
                   nodes: list[NodeSpec], head: NodeSpec, node: NodeSpec, rank: int,
                   per_instance: int, host: str) -> list[str]:
    multi = len(nodes) > 1
    if engine == "llama.cpp-rpc":
        return _llama_cpp(plan, ref, nodes, node, rank, per_instance, host)
    env = _nccl_env(node, head, group, vllm=engine.startswith("vllm")) if multi else []
    if engine == "vllm-ray":
        if not multi:
            return env + [" ".join(_vllm_args(plan, model, ref, per_instance, host))]
        if rank == 0:
            return env + [
                f"ray start --head --node-ip-address={_q(node.cluster_ip)} --port={RAY_PORT}",
                f"# wait until `ray status` shows {len(nodes)} nodes, then:",
                " ".join(_vllm_args(plan, model, ref, per_instance, host) + ["--distributed-executor-backend", "ray"]),
            ]
        return env + [f"ray start --block --address={_q(f'{head.cluster_ip}:{RAY_PORT}')} "
                      f"--node-ip-address={_q(node.cluster_ip)}"]
    if engine == "vllm":
        args = _vllm_args(plan, model, ref, per_instance, host)
        if multi:
            args += ["--nnodes", str(len(nodes)), "--node-rank", str(rank), "--master-addr",
                     _q(head.cluster_ip), "--master-port", str(TORCH_MASTER_PORT)]
            if rank > 0:
                args.append("--headless")
        return env + [" ".join(args)]
    # sglang
    args = _sglang_args(plan, model, ref, per_instance, host)
    if multi:
        args += ["--nnodes", str(len(nodes)), "--node-rank", str(rank),
                 "--dist-init-addr", _q(f"{head.cluster_ip}:{SGLANG_DIST_PORT}")]
    return env + [" ".join(args)]


def _llama_cpp(plan: Plan, ref: str, nodes: list[NodeSpec], node: NodeSpec, rank: int,
               per_instance: int, host: str) -> list[str]:
    if rank > 0:
        return [f"rpc-server --host {_q(node.cluster_ip)} --port {RPC_PORT}"]
    source = ["-m", _q(ref)] if ref.endswith(".gguf") else ["-hf", _q(ref)]
    args = ["llama-server", *source, "-ngl", "999", "-c", str(plan.context_tokens * per_instance),
            "--parallel", str(per_instance), "--host", _q(host), "--port", str(LLAMA_SERVER_PORT)]
    if len(nodes) > 1:
        workers = ",".join(f"{n.cluster_ip}:{RPC_PORT}" for n in nodes[1:])
        args += ["--rpc", _q(workers)]
    lines = []
    if len(nodes) > 1:
        lines.append(f"# start rpc-server on the {len(nodes) - 1} other node(s) first")
    return lines + [" ".join(args)]
