from django.db import migrations


def seed(apps, schema_editor):
    from inventory.seed import seed_catalogue

    seed_catalogue(apps.get_model("inventory", "CatalogueEntry"))


class Migration(migrations.Migration):
    dependencies = [("inventory", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
