"""A run's backend may say NCCL fell back to TCP sockets (kept as a record,
never fitted on): a choice added, no row changed."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("benchmarks", "0006_published_notes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="benchmarkrun",
            name="backend",
            field=models.CharField(
                choices=[
                    ("nccl", "NCCL"),
                    ("rocenante", "RoCEnante"),
                    ("socket", "NCCL over TCP sockets"),
                    ("none", "None (one node)"),
                    ("unknown", "Not known"),
                ],
                default="unknown",
                max_length=10,
            ),
        ),
    ]
