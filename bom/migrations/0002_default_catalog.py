from django.db import migrations


def load(apps, schema_editor):
    from bom.models import load_default_catalog

    load_default_catalog(
        apps.get_model("bom", "Part"), apps.get_model("bom", "PriceBook"), apps.get_model("bom", "Price")
    )


class Migration(migrations.Migration):
    dependencies = [("bom", "0001_initial")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
