from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    """A campaign or a character as a file the group owns: export, import (issue 30)."""

    name = "archive"
