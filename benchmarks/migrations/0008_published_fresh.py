"""Held-out figures collected on 2026-12-04, after the performance model was
frozen (placement.perfmodel.report.FRESH): stored as published rows, their
notes saying so."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0007_backend_socket")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
