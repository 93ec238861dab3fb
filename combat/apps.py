from django.apps import AppConfig


class CombatConfig(AppConfig):
    """Combat arrives with its own issue; the app exists so the layout is settled."""

    name = "combat"
