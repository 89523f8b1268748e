"""A small fleet with the faults the shipped monitoring must see, stored
through the product's own parser and store service (no SSH):

    m-01 ===== m-02      healthy direct pair; its fabric verification measured 11 GB/s (expected 20 and up)
    m-03 ===== m-04      m-04's second twin of p0 is down: the link is half (100 of 200 Gb/s); its
                         verification measured 5.6 GB/s with both ranks' NCCL on TCP sockets, and
                         the model served there says the same of its two ranks; its engine on m-03
                         does not answer (nothing listens on its port)
    m-05 ===== m-06      m-06 does not answer: unreachable, the link down, the pair's group degraded

Every answering Spark's software was read: Docker answers on all but m-02,
whose daemon did not.
"""

from __future__ import annotations

from inventory.models import NodeGroup, Spark
from placement.models import LlmModel
from serving.models import Serving, ServingPort
from simfleet.simulator import SimNode
from tests.support.fabric_runs import verified
from tests.support.software import store_software
from tests.telemetry.stored import register, store_round
from tests.tools import free_port

DOWN = {"m-06"}
VLLM = "nvcr.io/nvidia/vllm:26.05-py3"


def nodes() -> list[SimNode]:
    return [
        SimNode("m-01", cabled_ports={"p0": ("m-02", "p0")}),
        SimNode("m-02", cabled_ports={"p0": ("m-01", "p0")}),
        SimNode("m-03", cabled_ports={"p0": ("m-04", "p0")}),
        SimNode("m-04", cabled_ports={"p0": ("m-03", "p0")}, faults={"twin-down"}),
        SimNode("m-05", cabled_ports={"p0": ("m-06", "p0")}),
        SimNode("m-06", cabled_ports={"p0": ("m-05", "p0")}),
    ]


def build() -> list[SimNode]:
    """Register the fleet, store one poll round with its faults, and a fabric run below expected."""
    fleet = nodes()
    register(fleet)
    store_round(fleet, down=DOWN)
    read_software(fleet)
    for head, busbw, verdict, network in (("m-01", 11.0, "degraded", "IB"), ("m-03", 5.6, "failed", "Socket")):
        pair = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name=head)
        verified(pair, busbw, network, verdict, expected_low=20.0)
    sockets = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="m-03")
    reads = [
        {"node": n, "label": "NCCL network", "status": "done", "output": "", "reads": "nccl", "networks": {n: "Socket"}}
        for n in ("m-03", "m-04")
    ]
    served = Serving.objects.create(
        model=LlmModel.objects.get(slug="llama-3.1-8b"),
        quantization="bf16",
        group=sockets,
        group_name=sockets.name,
        plan={"label": "TP2 on 2 nodes"},
        launcher="vllm-container",
        owner_name="member",
        status=Serving.Status.SERVING,
        steps=reads,
    )
    head = Spark.objects.get(name="m-03")
    ServingPort.objects.create(serving=served, spark=head, host=head.ssh_host, port=free_port(), kind="engine")
    return fleet


def read_software(fleet: list[SimNode]) -> None:
    """One software reading per answering Spark, as a poll prints it; m-02's Docker daemon does not answer."""
    answers = {n.name: ({}, {"docker-down"} if n.name == "m-02" else ()) for n in fleet if n.name not in DOWN}
    store_software(answers, [VLLM])


def pair_group_name(head: str = "m-01") -> str:
    return NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name=head).name
