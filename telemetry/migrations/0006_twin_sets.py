"""A poll's twins are stored once per distinct list (TwinSet) and each sample
points at its set (NodeSample.twin_set), instead of repeating about 490 bytes
of JSON in every row. Nothing is rewritten: the new column is NULL for the
rows already stored, which keep their twins inline in the same ``twins``
column (now the field ``twins_inline``) until retention folds them away."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("telemetry", "0005_nodestate_heap_only_updates")]

    operations = [
        migrations.CreateModel(
            name="TwinSet",
            fields=[
                ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("twins", models.JSONField()),
                ("used_at", models.DateTimeField()),
            ],
            options={"indexes": [models.Index(fields=["used_at"], name="twinset_used_at")]},
        ),
        # The same column, under a name that says what it holds now: no SQL.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField(model_name="nodesample", old_name="twins", new_name="twins_inline"),
                migrations.AlterField(
                    model_name="nodesample",
                    name="twins_inline",
                    field=models.JSONField(db_column="twins", null=True),
                ),
            ],
        ),
        migrations.AddField(
            model_name="nodesample",
            name="twin_set",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="telemetry.twinset",
            ),
        ),
    ]
