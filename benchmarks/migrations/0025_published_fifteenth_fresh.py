"""The fifteenth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_fifteenth), stored as published rows after 0024
(the post-migrate seed fills an empty table only), naming the catalogue
model the seed already holds."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0024_published_fourteenth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
