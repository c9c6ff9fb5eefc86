"""Issue #34.2: ports, cages and modules as they are built.

Parts gain the fibres one port's link lights, its connector and the cages' (or a module's host) lane rate; the
default switches gain their cages' form factor and lane rate; the SN4700-200G's 32 QSFP-DD cages carry two 200G
ports each; the catalog gains the optics and trunks that make it buildable (800G DR4 for ConnectX-8 trays,
QSFP-DD SR8 2 × 200G / 2 × 100G breakout kits, MPO-12 UPC, MPO-16 OM4 and OS2 trunks). A row the user has edited
(a declared field no longer at its default) is left as it is.
"""

import django.core.validators
from django.db import migrations, models


def declare_parts(apps, schema_editor):
    from bom.catalog import DEFAULT_PARTS
    from bom.models import load_default_catalog

    Part = apps.get_model("bom", "Part")
    by_sku = {p.sku: p for p in DEFAULT_PARTS}
    for row in Part.objects.filter(sku__in=list(by_sku)):
        spec = by_sku[row.sku]
        changed = []
        for name in ("fibre_count", "connector", "lane_gbps", "form_factor"):
            if not getattr(row, name) and getattr(spec, name):
                setattr(row, name, getattr(spec, name))
                changed.append(name)
        if row.sku == "SN4700-200G" and row.ports_per_module == 1 and row.port_count == 64:
            row.ports_per_module = 2  # 32 QSFP-DD cages, each split 2 × 200G
            row.description = spec.description
            changed += ["ports_per_module", "description"]
        if row.sku.startswith("MPO12-") and row.description.startswith("MPO-12 OM4"):
            row.description = spec.description  # "MPO-12 APC OM4 …": the NDR optics' connector
            changed.append("description")
        if changed:
            row.save(update_fields=changed)
    load_default_catalog(Part, apps.get_model("bom", "PriceBook"), apps.get_model("bom", "Price"))


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0009_ports_by_role_nvl72_rack"),
    ]

    operations = [
        migrations.AddField(
            model_name="part",
            name="fibre_count",
            field=models.PositiveSmallIntegerField(
                default=0,
                help_text="Transceiver: fibres one port's link lights (SR8 16, DR4 8, LC duplex 2); fibre: fibres it "
                "carries (0: not declared)",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="connector",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "—"),
                    ("MPO-12 APC", "MPO-12 APC"),
                    ("MPO-12 UPC", "MPO-12 UPC"),
                    ("MPO-16 APC", "MPO-16 APC"),
                    ("LC duplex", "LC duplex"),
                    ("RJ45", "RJ45"),
                ],
                default="",
                help_text="Transceiver: each port's optical connector; fibre: its ends' (a trunk fits a module of its "
                "own)",
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="lane_gbps",
            field=models.FloatField(
                default=0,
                help_text="Switch/NIC: its cages' electrical lane rate; transceiver: its host lanes' [Gbit/s] (0: any)",
                validators=[django.core.validators.MinValueValidator(0)],
            ),
        ),
        migrations.AlterField(
            model_name="part",
            name="form_factor",
            field=models.CharField(blank=True, help_text="Module form factor; switch/NIC: its cages'", max_length=20),
        ),
        migrations.RunPython(declare_parts, migrations.RunPython.noop),
    ]
