"""The tenth set of held-out runs, collected on 2026-12-05
(placement.published_fresh_tenth), stored as published rows after 0018
(the post-migrate seed fills an empty table only); and every stored
llama-bench row's prompt length brought to its figure's (rows stored
before said 2,048 tokens whatever the prompt: a 32,768-token prefill
among them)."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0018_published_ninth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
