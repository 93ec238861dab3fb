from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Aoristos Table"

    def ready(self):
        from django.db.backends.signals import connection_created
        from django.urls import register_converter

        from core import outage
        from core.converters import IdConverter

        # Registered here, before any urls.py is imported: every id in a path is <id:...>.
        register_converter(IdConverter, "id")
        # A connection that opens ends a database outage (one line in the log), also for
        # the live streams' database threads, which no middleware watches.
        connection_created.connect(outage.database_answered, dispatch_uid="outage-back")
