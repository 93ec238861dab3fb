from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Aoristos Table"

    def ready(self):
        from django.urls import register_converter

        from core.converters import IdConverter

        # Registered here, before any urls.py is imported: every id in a path is <id:...>.
        register_converter(IdConverter, "id")
