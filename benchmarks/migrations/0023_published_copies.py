"""Published rows of independent copies behind a router say how many copies
they measured (the ``copies`` column, 0005), as an uploaded run does; rows
stored before said one copy, beside a layout of one node on two, and kept the
count in their notes only."""

from django.db import migrations

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0022_published_thirteenth_fresh")]
    operations = [migrations.RunPython(migrate_published, migrations.RunPython.noop)]
