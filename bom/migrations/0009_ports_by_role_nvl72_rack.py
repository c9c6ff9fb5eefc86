from django.db import migrations, models

import bom.models

# the two 48 × 25G + 8 × 100G ToRs of the default catalog; 7280SR3-48YC8 was stored as 48 × 100G, the seed
# chapter's management spine, which its own description said it is not
TOR_UPLINKS = {"7050SX3-48YC8": "8x100G", "7280SR3-48YC8": "8x100G"}
SN_7280 = (
    "7280R3 ToR, 48 × 25GbE SFP28 + 8 × 100GbE QSFP (Arista 7280R3 data sheet). The seed chapter lists it as a "
    "48 × 100GbE management spine, which it is not: a 48 × 100G spine gets a 100G switch"
)


def ports_and_parts(apps, schema_editor):
    """Give the ToRs their uplink port groups, correct 7280SR3-48YC8 (still as the seed stored it: 48 × 100G) to
    48 × 25G + 8 × 100G, then add the parts the default catalog gained: a 64 × 100G management spine (SN4600C),
    the NVL72 rack, its power shelf and its 415 V PDU."""
    from bom.models import load_default_catalog

    Part = apps.get_model("bom", "Part")
    Part.objects.filter(sku="7280SR3-48YC8", port_count=48, port_gbps=100).update(port_gbps=25, description=SN_7280)
    for sku, groups in TOR_UPLINKS.items():
        Part.objects.filter(sku=sku, port_gbps=25, extra_port_groups="").update(extra_port_groups=groups)
    load_default_catalog(Part, apps.get_model("bom", "PriceBook"), apps.get_model("bom", "Price"))


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0008_catalog_audit"),
    ]

    operations = [
        migrations.AddField(
            model_name="part",
            name="extra_port_groups",
            field=models.CharField(
                blank=True,
                default="",
                help_text="Switch: ports besides port_count × port_gbps, as 'count x speedG' joined by '+', e.g. "
                "8x100G (a ToR's uplinks); roles are given switches by all their port groups",
                max_length=60,
                validators=[bom.models.validate_port_groups],
            ),
        ),
        migrations.RunPython(ports_and_parts, migrations.RunPython.noop),
    ]
