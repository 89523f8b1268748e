"""The sixth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_sixth), stored as published rows after 0012 (the
post-migrate seed fills an empty table only)."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0012_published_fifth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
