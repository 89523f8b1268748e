"""A benchmark record keeps the weights' format that ran and the engine's
CUDA-graph mode; the stored published rows get theirs from
placement.published (the seed's migrate_published step)."""

from django.conf import settings
from django.db import migrations, models

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0013_published_sixth_fresh'),
        ('inventory', '0005_switch_port_cages'),
        ('placement', '0012_gguf_qwen3_32b'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='benchmarkrun',
            name='mode',
            field=models.CharField(blank=True, choices=[('graphs', 'CUDA graphs'), ('eager', 'eager (no CUDA graphs)'), ('', 'not known')], help_text="The engine's CUDA-graph mode (--enforce-eager: eager); blank: not known, read as CUDA graphs", max_length=6),
        ),
        migrations.AddField(
            model_name='benchmarkrun',
            name='quantization',
            field=models.CharField(blank=True, help_text="The weights' format that ran (a variant of the model); blank: not stated, read as the variant its engine loads", max_length=12),
        ),
        migrations.AddConstraint(
            model_name='benchmarkrun',
            constraint=models.CheckConstraint(condition=models.Q(('mode__in', ['', 'graphs', 'eager'])), name='bench_mode_known'),
        ),
        migrations.RunPython(migrate_published, migrations.RunPython.noop),
    ]
