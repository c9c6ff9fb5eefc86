from django.db import migrations, models

import bom.models


def fix_and_top_up(apps, schema_editor):
    """The 2 × 400G DR4 twin-port module was stored as an 800G single-port multimode part: correct it,
    then add the single-mode optics, trunks and cords of the default catalog."""
    from bom.models import load_default_catalog

    Part = apps.get_model("bom", "Part")
    Part.objects.filter(sku="OSFP-800G-2xDR4").update(
        port_gbps=400,
        ports_per_module=2,
        media="fibre_mpo_sm",
        description="NDR OSFP 800G twin-port 2 × 400G DR4 (MMS4X00-NM class), 500 m SMF",
    )
    load_default_catalog(Part, apps.get_model("bom", "PriceBook"), apps.get_model("bom", "Price"))


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0002_default_catalog"),
    ]

    operations = [
        migrations.AlterField(
            model_name="part",
            name="media",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "—"),
                    ("dac", "dac"),
                    ("acc", "acc"),
                    ("aoc", "aoc"),
                    ("fibre_mpo", "fibre_mpo"),
                    ("fibre_lc", "fibre_lc"),
                    ("fibre_mpo_sm", "fibre_mpo_sm"),
                    ("fibre_lc_sm", "fibre_lc_sm"),
                    ("copper_rj45", "copper_rj45"),
                ],
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="part",
            name="kind",
            field=models.CharField(
                choices=[
                    ("switch", "switch"),
                    ("nic", "nic"),
                    ("transceiver", "transceiver"),
                    ("cable", "cable"),
                    ("node", "node"),
                    ("storage_node", "storage_node"),
                    ("appliance", "appliance"),
                    ("accessory", "accessory"),
                ],
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="pricebook",
            name="effective_date",
            field=models.DateField(default=bom.models._today),
        ),
        migrations.RunPython(fix_and_top_up, migrations.RunPython.noop),
    ]
