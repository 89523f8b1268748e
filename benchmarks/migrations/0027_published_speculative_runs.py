"""Published runs decoded with MTP speculative decoding, kept for reference
(placement.published_speculative), stored as published rows after 0026 (the
post-migrate seed fills an empty table only): the plans of their very
configuration list them as what drafting gave."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0026_run_speculative")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
