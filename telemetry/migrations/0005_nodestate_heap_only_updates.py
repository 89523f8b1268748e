"""Node states take heap-only updates on PostgreSQL: no index on ``latest``
(it changes every poll) and pages left 30 % free (fillfactor 70), so a poll
round rewrites each state in place without touching an index. SQLite only
loses the index."""

import django.db.models.deletion
from django.db import migrations, models


def room(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute('ALTER TABLE "telemetry_nodestate" SET (fillfactor = 70)')


def no_room(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute('ALTER TABLE "telemetry_nodestate" RESET (fillfactor)')


class Migration(migrations.Migration):

    dependencies = [
        ('telemetry', '0004_sample_partitions'),
    ]

    operations = [
        migrations.AlterField(
            model_name='nodestate',
            name='latest',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='telemetry.nodesample'),
        ),
        migrations.RunPython(room, no_room),
    ]
