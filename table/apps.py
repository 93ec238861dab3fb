from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TableConfig(AppConfig):
    """The live table: the dice tray and the sheet's roller, the roll history; its rolls,
    membership changes and notices are kinds of event of the campaign's log."""

    name = "table"
    verbose_name = _("Live table")

    def ready(self):
        from table.log_kinds import register_kinds

        register_kinds()
        # Phobia's exact odds read tables that take ~25 ms to build for Ob0T6..Ob10T6: built
        # once per process here, so no request pays for them (issue 10: odds <= 1 ms).
        from rules.phobia.success import warm

        warm()
