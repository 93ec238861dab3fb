from django.apps import AppConfig


class CombatConfig(AppConfig):
    """Encounters: a rule system's combat engine behind a stored, numbered, live log."""

    name = "combat"

    def ready(self):
        from combat.log_kinds import register_kinds

        register_kinds()
