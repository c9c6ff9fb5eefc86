from django.apps import AppConfig


class BomConfig(AppConfig):
    name = "bom"
    verbose_name = "Catalog and bill of materials"
    default_auto_field = "django.db.models.BigAutoField"
