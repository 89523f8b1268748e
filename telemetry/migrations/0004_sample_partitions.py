"""Samples in day partitions on PostgreSQL (telemetry.partitions): the table
becomes a partitioned one with the same columns, constraints and names, its
rows copied across; the days from three before today to three after get
their partition, older rows go to the default partition. SQLite keeps its
plain table. NodeState.latest loses its database constraint first (a foreign
key cannot point at a partitioned table by id alone), and the samples lose
their index on spark_id (the unique (spark_id, at) serves it)."""

from datetime import UTC, datetime, timedelta

import django.db.models.deletion
from django.db import migrations, models

OLD = "telemetry_nodesample_unpartitioned"


def rebuild(c, table, *, partitioned, fill=lambda c: None):
    """The samples table made again beside its old copy (same columns, names
    and constraints; partitioned by day of ``at`` or plain), ``fill`` run on
    the new table, the rows copied across and the old copy dropped."""
    c.execute(f'ALTER TABLE "{table}" RENAME TO "{OLD}"')
    c.execute(f'ALTER TABLE "{OLD}" RENAME CONSTRAINT "{table}_pkey" TO "{OLD}_pkey"')
    c.execute(f'ALTER TABLE "{OLD}" RENAME CONSTRAINT "sample_unique_per_node_and_time" TO "{OLD}_unique"')
    c.execute(f'ALTER INDEX "sample_at" RENAME TO "{OLD}_at"')
    c.execute(
        f'CREATE TABLE "{table}" (LIKE "{OLD}" INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING CONSTRAINTS)'
        + (" PARTITION BY RANGE (at)" if partitioned else "")
    )
    key = "id, at" if partitioned else "id"  # a partitioned table's key holds its partition key
    c.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" PRIMARY KEY ({key})')
    c.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "sample_unique_per_node_and_time" UNIQUE (spark_id, at)')
    c.execute(f'CREATE INDEX "sample_at" ON "{table}" (at)')
    c.execute(
        f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_spark_id_fk_inventory_spark_id" FOREIGN KEY (spark_id) '
        'REFERENCES "inventory_spark" (id) DEFERRABLE INITIALLY DEFERRED'
    )
    fill(c)
    c.execute(f'INSERT INTO "{table}" SELECT * FROM "{OLD}"')
    c.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM \"{table}\"")
    c.execute(f'DROP TABLE "{OLD}"')


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from telemetry.partitions import DEFAULT, TABLE, day_partition_create

    def days(c):
        c.execute(f'CREATE TABLE "{DEFAULT}" PARTITION OF "{TABLE}" DEFAULT')
        today = datetime.now(UTC).date()
        for offset in range(-3, 4):
            day_partition_create(c, today + timedelta(days=offset))

    with schema_editor.connection.cursor() as c:
        rebuild(c, TABLE, partitioned=True, fill=days)


def unpartition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from telemetry.partitions import TABLE

    with schema_editor.connection.cursor() as c:
        rebuild(c, TABLE, partitioned=False)


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0004_catalogue_price'),
        ('telemetry', '0003_software'),
    ]

    operations = [
        migrations.AlterField(
            model_name='nodesample',
            name='spark',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='samples', to='inventory.spark'),
        ),
        migrations.AlterField(
            model_name='nodestate',
            name='latest',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='telemetry.nodesample'),
        ),
        migrations.RunPython(partition, unpartition),
    ]
