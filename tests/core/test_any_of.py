"""``field__any_of``: the same rows as ``__in``, sent as one array parameter on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.models import Port, Spark

pytestmark = pytest.mark.django_db


def test_any_of_selects_what_in_selects_with_one_parameter(import_lab):
    import_lab("demo.yaml")
    names = ["spark-01", "spark-05", "spark-17", "no-such-spark"]
    ids = list(Spark.objects.filter(name__in=names).values_list("pk", flat=True))
    assert len(ids) == 3
    with CaptureQueriesContext(connection) as queries:
        by_name = sorted(Spark.objects.filter(name__any_of=names).values_list("pk", flat=True))
        by_pk = sorted(Spark.objects.filter(pk__any_of=ids).values_list("name", flat=True))
        none = list(Spark.objects.filter(pk__any_of=[]))
    assert by_name == sorted(ids) and by_pk == ["spark-01", "spark-05", "spark-17"] and none == []
    if connection.vendor == "postgresql":
        assert all("= ANY(" in q["sql"] for q in queries.captured_queries)
        assert all("spark-05" not in q["sql"].split("ANY(")[0] for q in queries.captured_queries)
    # Through a relation, and as a filter of an UPDATE.
    assert Port.objects.filter(spark_id__any_of=ids).count() == Port.objects.filter(spark_id__in=ids).count() > 0
    ports = Port.objects.filter(spark__name__any_of=["spark-01", "spark-02"])
    assert ports.count() == Port.objects.filter(spark__name__in=["spark-01", "spark-02"]).count() > 0
    assert Spark.objects.filter(pk__any_of=ids[:1]).update(serial="X1") == 1
    assert list(Spark.objects.filter(serial="X1").values_list("name", flat=True)) == ["spark-01"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL array literal")
@pytest.mark.parametrize(
    ("kind", "values"),
    [
        ("bigint", [1, 2, 3_000_000_000, None]),
        ("text", ['a"b', "back\\slash", "NULL", "", "{x,y}", "comma, space", "  padded  ", "ünï", None]),
        ("timestamptz", [datetime(2026, 12, 2, 1, 3, 36, 365350, tzinfo=UTC), None]),
        ("boolean", [True, False, None]),
        ("float8", [0.1, -2.5e-7, 1e300]),
    ],
)
def test_an_array_literal_reads_back_as_the_values_it_was_made_of(kind, values):
    from core.db import array_literal

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT unnest(%s::{kind}[])", [array_literal(values)])
        assert [row[0] for row in cursor.fetchall()] == values
