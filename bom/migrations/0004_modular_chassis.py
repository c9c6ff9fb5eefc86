from django.db import migrations


def top_up(apps, schema_editor):
    """Add the parts the default catalog gained since 0003 (a 576 × 400G modular chassis for per-tier models)."""
    from bom.models import load_default_catalog

    load_default_catalog(
        apps.get_model("bom", "Part"), apps.get_model("bom", "PriceBook"), apps.get_model("bom", "Price")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0003_single_mode_appliances_accessories"),
    ]

    operations = [migrations.RunPython(top_up, migrations.RunPython.noop)]
