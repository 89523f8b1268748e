"""Published figures added after 0011: the fifth set of held-out runs
collected on 2026-12-04 (placement.published_fresh_fifth), stored as
published rows (the post-migrate seed fills an empty table only), and every
published row's notes brought to the seed's words."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0011_published_fourth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
