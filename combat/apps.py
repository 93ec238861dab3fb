from django.apps import AppConfig


class CombatConfig(AppConfig):
    """Encounters: a rule system's combat engine behind a stored, numbered, live log."""

    name = "combat"
