"""The thirteenth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_thirteenth), stored as published rows after 0021
(the post-migrate seed fills an empty table only), each naming a catalogue
model the seed already holds."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0021_published_twelfth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
