from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CampaignLogConfig(AppConfig):
    """The campaign's log: its numbered events of every kind, who sees what of them, and
    their live stream. The apps above register their kinds of event with it."""

    name = "campaign_log"
    verbose_name = _("Campaign log")
