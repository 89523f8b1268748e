"""A run says the speculative decoding it used (method, and vLLM's
acceptance figures where its result file gives them): the performance model
predicts plain decoding, so such a run's decode is shown but neither
compared nor fitted on. The published rows decoded with MTP get their
method from ``placement.published`` (before, their notes said it)."""

from django.conf import settings
from django.db import migrations, models

from benchmarks.seed import migrate_published


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0025_published_fifteenth_fresh'),
        ('inventory', '0005_switch_port_cages'),
        ('placement', '0016_gguf_qwen25'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='benchmarkrun',
            name='acceptance_length',
            field=models.FloatField(blank=True, help_text="Tokens each verification step kept, the verified token included (vLLM's acceptance length)", null=True),
        ),
        migrations.AddField(
            model_name='benchmarkrun',
            name='acceptance_rate',
            field=models.FloatField(blank=True, help_text='Draft tokens accepted, in percent', null=True),
        ),
        migrations.AddField(
            model_name='benchmarkrun',
            name='speculative',
            field=models.CharField(blank=True, choices=[('', 'none stated (read as plain decoding)'), ('mtp', 'MTP'), ('eagle', 'EAGLE'), ('eagle3', 'EAGLE-3'), ('nextn', 'NextN'), ('dflash', 'DFlash'), ('ngram', 'n-gram'), ('draft', 'a draft model'), ('unnamed', 'method not named')], help_text="The speculative decoding the run used (blank: none stated, read as plain decoding). The performance model predicts plain decoding: a speculative run's decode is shown, never compared or fitted on", max_length=8),
        ),
        migrations.AddConstraint(
            model_name='benchmarkrun',
            constraint=models.CheckConstraint(condition=models.Q(('speculative__in', ['', 'mtp', 'eagle', 'eagle3', 'nextn', 'dflash', 'ngram', 'draft', 'unnamed'])), name='bench_speculative_known'),
        ),
        migrations.AddConstraint(
            model_name='benchmarkrun',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(models.Q(('acceptance_length__isnull', True), ('acceptance_rate__isnull', True)), models.Q(('speculative', ''), _negated=True), _connector='OR'), models.Q(('acceptance_length__isnull', True), ('acceptance_length__gte', 1), _connector='OR'), models.Q(('acceptance_rate__isnull', True), models.Q(('acceptance_rate__gte', 0), ('acceptance_rate__lte', 100)), _connector='OR')), name='bench_acceptance_sane'),
        ),
        migrations.RunPython(migrate_published, migrations.RunPython.noop),
    ]
