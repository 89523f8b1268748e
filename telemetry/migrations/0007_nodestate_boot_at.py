"""NodeState.boot_at: the boot a Spark's latest poll saw, so the poll round tells a
reboot (its software is read again) without reading each Spark's latest sample
across the day partitions. NULL until the next poll with an uptime sets it."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("telemetry", "0006_twin_sets")]

    operations = [
        migrations.AddField(model_name="nodestate", name="boot_at", field=models.DateTimeField(blank=True, null=True)),
    ]
