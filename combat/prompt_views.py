"""The combat part of every page of a campaign: the banner of the prompts that wait for
this member's answer in the campaign's fights, and the fights that are on."""

import hashlib

from django.http import HttpResponseNotModified
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaigns.access import member_view
from combat import running


@member_view
@require_GET
@never_cache
def prompts(request, membership):
    """The prompts that wait for this member's answer in the campaign's fights: the banner
    every page of the campaign shows (static/js/prompt.js asks when a combat record
    arrives on a page with the live log, else every few seconds while the page is seen).
    A player learns only of their own prompts; the GM of the NPCs'."""
    now = timezone.now()
    fights = running.fights(membership.campaign.pk, membership)
    # What the answer says changes only with the fights' versions (the countdowns run on
    # the page): a page that asks again with the tag of what it has gets 304, no render.
    tag = '"{}"'.format(hashlib.blake2s(repr((
        membership.pk, membership.role, get_language(),
        [(fight.encounter.pk, fight.encounter.version) for fight in fights],
    )).encode(), digest_size=8).hexdigest())
    if request.headers.get("If-None-Match") == tag:
        unchanged = HttpResponseNotModified()
        unchanged["ETag"] = tag
        return unchanged
    items = [
        {"prompt": prompt, "left": prompt.seconds_left(now)}
        for fight in fights
        for prompt in fight.prompts
    ]
    context = {
        "items": items,
        "is_gm": membership.is_gm,
        # The fights that are on, for the pages that link to them (a fight started while
        # the table is open shows without a reload).
        "running": [fight.encounter for fight in fights if fight.started],
    }
    answer = render(request, "combat/_prompts.html", context)
    answer["ETag"] = tag
    return answer
