"""A benchmark record keeps the checkpoint that ran (a Hugging Face
repository or a path): two checkpoints of one weights format can decode far
apart. The stored published rows get the checkpoint their source names
(placement.published_checkpoints, through the seed's migrate_published step)."""

from django.db import migrations, models

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0016_published_eighth_fresh'),
    ]

    operations = [
        migrations.AddField(
            model_name='benchmarkrun',
            name='checkpoint',
            field=models.CharField(blank=True, help_text='The checkpoint that ran: a Hugging Face repository (org/name) or a path on the nodes; blank: not stated. Two checkpoints of one format can decode far apart', max_length=200),
        ),
        migrations.RunPython(migrate_published, migrations.RunPython.noop),
    ]
