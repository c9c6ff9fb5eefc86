from django.apps import AppConfig


class DesignerConfig(AppConfig):
    name = "designer"
    verbose_name = "GPU cluster designer"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.core.signals import request_finished

        from designer.heap import freeze_once

        if settings.GC_FREEZE_AFTER_FIRST_REQUEST:  # designer/heap.py: no full collection re-scans the process
            request_finished.connect(freeze_once, dispatch_uid="designer.heap.freeze_once")
