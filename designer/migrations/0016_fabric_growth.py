# The fabric growth option (issue #34 item 1): leaves buy uplinks for their used down ports unless asked for
# the whole port split.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0015_power_help_texts"),
    ]

    operations = [
        migrations.AddField(
            model_name="designrevision",
            name="uplinks_for_full_leaf",
            field=models.BooleanField(
                default=False,
                help_text="Buy leaf uplinks (and the spines above them) for every down port of the leaf's port "
                "split, not only for the ports the nodes use: growth onto the free ports without recabling, at the "
                "price shown",
            ),
        ),
    ]
