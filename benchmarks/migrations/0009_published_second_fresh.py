"""Published figures added after 0008: llama.cpp's batch tables that train its
batching and the second set of held-out runs collected on 2026-12-04
(placement.published_fresh_second): stored as published rows, and every
published row's notes brought to the seed's words."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0008_published_fresh"), ("placement", "0011_gguf_references")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
