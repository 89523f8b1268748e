"""The database keeps a Spark to one live serving and an address to one live
listener, whatever writes (the service's check is a courtesy in front)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from inventory.models import Spark
from placement.models import LlmModel
from serving.models import Serving, ServingNode, ServingPort

pytestmark = pytest.mark.django_db


def _serving(owner: str = "member") -> Serving:
    return Serving.objects.create(
        model=LlmModel.objects.first(), quantization="bf16", group_name="g", launcher="vllm-container", owner_name=owner
    )


def test_one_live_serving_per_spark(pair):
    spark = Spark.objects.get(name="pair-a")
    first, second = _serving(), _serving()
    ServingNode.objects.create(serving=first, spark=spark)
    with pytest.raises(IntegrityError), transaction.atomic():
        ServingNode.objects.create(serving=second, spark=spark)
    ServingNode.objects.filter(serving=first).update(live=False)
    ServingNode.objects.create(serving=second, spark=spark)  # free again once the first is over
    assert ServingNode.objects.filter(spark=spark, live=True).get().serving == second


def test_one_live_listener_per_address(pair):
    spark = Spark.objects.get(name="pair-a")
    first, second = _serving(), _serving()
    ServingPort.objects.create(serving=first, spark=spark, host="10.0.0.1", port=8000, kind="engine")
    with pytest.raises(IntegrityError), transaction.atomic():
        ServingPort.objects.create(serving=second, spark=spark, host="10.0.0.1", port=8000, kind="router")
    ServingPort.objects.create(serving=second, spark=spark, host="10.0.0.2", port=8000, kind="engine")
    with pytest.raises(IntegrityError), transaction.atomic():
        ServingPort.objects.create(serving=second, spark=spark, host="10.0.0.3", port=70000, kind="engine")
