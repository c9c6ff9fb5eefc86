# Supplier quotes uploaded against a price book (#38.2): the quote keeps its lines as read; suppliers' own SKUs.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bom", "0010_cages_fibres_connectors"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="quote",
            name="report",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="An uploaded quote's lines as read: matched (to which part) and unmatched",
            ),
        ),
        migrations.CreateModel(
            name="SupplierAlias",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("changed_at", models.DateTimeField(blank=True, editable=False, null=True)),
                ("supplier", models.CharField(help_text="The supplier, as named on its quotes", max_length=100)),
                ("supplier_sku", models.CharField(help_text="The supplier's own part number", max_length=60)),
                (
                    "changed_by",
                    models.ForeignKey(
                        blank=True,
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "part",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="aliases", to="bom.part"
                    ),
                ),
            ],
            options={
                "ordering": ["supplier", "supplier_sku"],
                "constraints": [
                    models.UniqueConstraint(fields=("supplier", "supplier_sku"), name="unique_supplier_sku")
                ],
            },
        ),
    ]
