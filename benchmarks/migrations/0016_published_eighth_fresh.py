"""The eighth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_eighth), stored as published rows after 0015,
with their format and mode (the post-migrate seed fills an empty table only)."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0015_published_seventh_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
