# Issue #37 item 1: a design's phased build-out (cluster/phases.py), kept with the design, not its revisions.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("designer", "0018_switch_model_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="design",
            name="phases",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Phased build-out (cluster/phases.py): [{name, date, size, unit}], unit 'su' or 'gpu'",
            ),
        ),
    ]
