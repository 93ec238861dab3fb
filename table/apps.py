from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TableConfig(AppConfig):
    """The live table: the dice tray, the roll history and the stream every page listens to."""

    name = "table"
    verbose_name = _("Live table")
