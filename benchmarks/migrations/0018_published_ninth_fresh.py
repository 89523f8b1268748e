"""The ninth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_ninth), stored as published rows after 0017,
with their format, mode and checkpoint (the post-migrate seed fills an
empty table only)."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0017_run_checkpoint")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
