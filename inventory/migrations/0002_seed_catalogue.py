from django.db import migrations


def seed(apps, schema_editor):
    from inventory import catalogue as c

    Entry = apps.get_model("inventory", "CatalogueEntry")
    for slug, name, vendor, memory, connectx in c.SPARKS:
        Entry.objects.get_or_create(slug=slug, defaults=dict(
            kind="spark", name=name, vendor=vendor, memory_gb=memory, has_connectx=connectx))
    for slug, name, vendor, ports, speed, breakout in c.SWITCHES:
        Entry.objects.get_or_create(slug=slug, defaults=dict(
            kind="switch", name=name, vendor=vendor, port_count=ports, speed_gbps=speed, breakout=breakout))
    for slug, name, speed, breakout in c.CABLES:
        Entry.objects.get_or_create(slug=slug, defaults=dict(
            kind="cable", name=name, speed_gbps=speed, breakout=breakout))


class Migration(migrations.Migration):
    dependencies = [("inventory", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
