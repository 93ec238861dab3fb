from django.apps import AppConfig


class CombatConfig(AppConfig):
    """Encounters: a rule system's combat engine behind a stored, numbered, live log."""

    name = "combat"

    def ready(self):
        from campaign_log import luck
        from combat.fight_luck import fight_rolls
        from combat.log_kinds import register_kinds

        register_kinds()
        luck.register(fight_rolls)  # the fights' rolls in the evening's luck (issue 48)
