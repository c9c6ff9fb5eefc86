# Placeholder reserved for the fabric growth option (session 41); the operations are filled in with the field.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0015_power_help_texts"),
    ]

    operations: list = []
