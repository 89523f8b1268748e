"""Benchmark records move to their own app (benchmarks.BenchmarkRun): placement
forgets the model, the table and its rows stay where they are
(benchmarks.0001 takes the model over with db_table "placement_benchmarkrun")."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("placement", "0007_layer_kinds_and_ranges")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="BenchmarkRun")],
            database_operations=[],
        ),
    ]
