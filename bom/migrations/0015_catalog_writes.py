"""The catalog's write token (bom.models.CatalogWrites): its one row, and the triggers that change it on every write
to the tables the catalog is read from — SQLite (row triggers: SQLite turns its truncate optimisation off on a table
with triggers, so a DELETE without WHERE fires them) and PostgreSQL (statement triggers, TRUNCATE included). Other
databases get no triggers, and CatalogWrites.token_now() then trusts no token."""

from django.db import migrations, models

TABLES = ("Part", "PriceBook", "Price", "Quote")


def _tables(apps):
    return [apps.get_model("bom", name)._meta.db_table for name in TABLES]


def add_triggers(apps, schema_editor):
    CatalogWrites = apps.get_model("bom", "CatalogWrites")
    CatalogWrites.objects.update_or_create(pk=1, defaults={"token": 0})
    token_table = CatalogWrites._meta.db_table
    vendor = schema_editor.connection.vendor
    # the first token is drawn like every later one, so no two databases a process reads start alike (0)
    first = {"sqlite": "random()", "postgresql": "nextval('bom_catalog_writes_seq')"}.get(vendor)
    if vendor == "sqlite":
        for table in _tables(apps):
            for op in ("INSERT", "UPDATE", "DELETE"):
                schema_editor.execute(
                    f"CREATE TRIGGER {table}_catalog_writes_{op.lower()} AFTER {op} ON {table} "
                    f"BEGIN UPDATE {token_table} SET token = random() WHERE id = 1; END"
                )
    elif vendor == "postgresql":
        schema_editor.execute("CREATE SEQUENCE IF NOT EXISTS bom_catalog_writes_seq")
        schema_editor.execute(
            "CREATE OR REPLACE FUNCTION bom_catalog_writes_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"UPDATE {token_table} SET token = nextval('bom_catalog_writes_seq') WHERE id = 1; RETURN NULL; END $$"
        )
        for table in _tables(apps):
            schema_editor.execute(
                f"CREATE TRIGGER {table}_catalog_writes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION bom_catalog_writes_bump()"
            )
    if first is not None:
        schema_editor.execute(f"UPDATE {token_table} SET token = {first} WHERE id = 1")


def drop_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for table in _tables(apps):
            for op in ("insert", "update", "delete"):
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_catalog_writes_{op}")
    elif vendor == "postgresql":
        for table in _tables(apps):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_catalog_writes ON {table}")
        schema_editor.execute("DROP FUNCTION IF EXISTS bom_catalog_writes_bump()")
        schema_editor.execute("DROP SEQUENCE IF EXISTS bom_catalog_writes_seq")


class Migration(migrations.Migration):
    dependencies = [("bom", "0014_catalog_5_makers")]

    operations = [
        migrations.CreateModel(
            name="CatalogWrites",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(add_triggers, drop_triggers),
    ]
