"""A serving that runs now, made directly: the state other features must respect
(a fabric verification refused beside it), without starting an engine."""

from __future__ import annotations

from typing import Any


def live_serving(group: Any, node: str, owner: Any, model: str = "llama-3.1-8b") -> Any:
    """A serving of ``model`` on ``group``, live on the Spark ``node``."""
    from inventory.models import Spark
    from placement.models import LlmModel
    from serving.models import Serving, ServingNode

    serving = Serving.objects.create(
        model=LlmModel.objects.get(slug=model),
        quantization="nvfp4",
        group=group,
        group_name=group.name,
        launcher="vllm-container",
        owner=owner,
        owner_name=owner.username,
        status=Serving.Status.SERVING,
    )
    ServingNode.objects.create(serving=serving, spark=Spark.objects.get(name=node))
    return serving
