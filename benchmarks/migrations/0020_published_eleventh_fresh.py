"""The eleventh set of held-out runs, collected on 2026-12-05
(placement.published_fresh_eleventh), stored as published rows after 0019
(the post-migrate seed fills an empty table only), each naming its
catalogue model: the three Qwen2.5 models placement 0015 adds."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0019_published_tenth_fresh"), ("placement", "0015_seed_qwen25")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
