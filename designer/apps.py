from django.apps import AppConfig


class DesignerConfig(AppConfig):
    name = "designer"
    verbose_name = "GPU cluster designer"
    default_auto_field = "django.db.models.BigAutoField"
