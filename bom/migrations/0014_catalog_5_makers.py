"""Catalog 4 and 5 (issue #38): built-in parts that were generic now name their maker — the LinkX cables and
fibres of roles NVIDIA's pages cover, the racks and PDUs of the DGX SuperPOD reference architecture. 0012 filled
the sourcing columns only where blank, so a database made before keeps "generic" for them: this step moves a
built-in part (matched by sku) to the catalog's maker where the row is still generic with no part number — a row
whose maker or number a user set is left as it is — and refreshes the reason and source of a part still generic.
"""

from datetime import date

from django.db import migrations

SOURCING = ("manufacturer", "mfr_part_number", "source_url", "source_date", "generic_reason")


def name_makers(apps, schema_editor):
    from bom.catalog import DEFAULT_PARTS

    Part = apps.get_model("bom", "Part")
    by_sku = {p.sku: p for p in DEFAULT_PARTS}
    for row in Part.objects.filter(sku__in=list(by_sku), manufacturer__in=("", "generic"), mfr_part_number=""):
        spec = by_sku[row.sku]
        changed = []
        for name in SOURCING:
            value = getattr(spec, name)
            if name == "source_date":
                value = date.fromisoformat(value) if value else None
            if getattr(row, name) != value:
                setattr(row, name, value)
                changed.append(name)
        if row.vendor in ("", "generic") and spec.vendor != row.vendor:
            row.vendor = spec.vendor
            changed.append("vendor")
        if changed:
            row.save(update_fields=changed)


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0013_part_connector_cs_duplex"),
    ]

    operations = [migrations.RunPython(name_makers, migrations.RunPython.noop)]
