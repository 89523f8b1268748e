"""PostgreSQL only: no Spark is held twice at the same time.

An exclusion constraint over (spark, [start, end)) for live allocations. It is
added with raw SQL guarded by the database vendor so that the models stay
plain DateTimeFields and the same migrations run on the embedded SQLite,
where ``bookings.services`` serialises the check and the insert instead.
``BtreeGistExtension`` is itself a no-op on other databases.
"""
from django.contrib.postgres.operations import BtreeGistExtension
from django.db import migrations

CONSTRAINT = "allocation_no_overlap"


def add_constraint(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"ALTER TABLE bookings_allocation ADD CONSTRAINT {CONSTRAINT} "
        "EXCLUDE USING gist (spark_id WITH =, tstzrange(\"start\", \"end\", '[)') WITH &&) WHERE (live)"
    )


def drop_constraint(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"ALTER TABLE bookings_allocation DROP CONSTRAINT IF EXISTS {CONSTRAINT}")


class Migration(migrations.Migration):
    dependencies = [("bookings", "0001_initial")]

    operations = [
        BtreeGistExtension(),
        migrations.RunPython(add_constraint, drop_constraint),
    ]
