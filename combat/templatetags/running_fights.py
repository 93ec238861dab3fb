"""The fights that are on in a campaign, for the pages of other apps that show them one
tap away (the table page): ``{% running_fights campaign.pk membership as running %}``,
then ``{% include "combat/_running.html" %}``."""

from django import template

from combat import running

register = template.Library()


@register.simple_tag
def running_fights(campaign_id: int, membership) -> list:
    return running.running(campaign_id, membership)
