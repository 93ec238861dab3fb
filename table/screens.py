"""The table screen (issue 47): a TV or a laptop in the middle of the table that shows the
campaign as every player may see it, read from across the room.

- **The GM's.** Only the campaign's GM makes a screen (a name; at most
  `SCREENS_PER_CAMPAIGN`), chooses what it shows (`TableScreen.Mode`) and ends it. Each
  change is a notice in the campaign's log, in its numbered sequence, so an open screen
  learns of it live (its page reloads on the notice that names it) and the members read
  it too; ending it deletes the row, so its link and code stop at once, and its open
  stream is closed by the notice (`campaign_log.stream`).
- **No account.** A screen is opened by its link (`token`, 32 characters) or by typing its
  code (8 characters of the join codes' alphabet) on /screen/, behind the throttle on
  guessing (`core.throttle.screen_code_checks`). The page is read-only: no form, nothing
  to press but full screen.
- **Its own audience, never more than a player.** The page and its stream get the log as
  a player sees it (`is_gm=False`: a secret roll shows only that the GM rolled in
  secret; a fight's record shows the players' part), and the fight as a player's page
  shows it. Nothing of the GM's is rendered into its page.
"""

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign_log.reading import events_page
from campaigns.access import get_campaign
from campaigns.models import SCREENS_PER_CAMPAIGN, Campaign, TableScreen
from core import throttle
from table import handouts
from table.forms import ScreenCodeForm, ScreenForm
from table.models import NoticeEvent
from table.services import notice_record

SCREEN_LINES = 6  # the latest lines a screen shows: large enough to read across a room


def screen_of(request, pk: int, screen_pk: int) -> TableScreen:
    """The GM's screen `screen_pk` of campaign `pk`: 404 for another campaign's (or none),
    403 for a member who is not the GM."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    return get_object_or_404(TableScreen, pk=screen_pk, campaign=campaign)


def tell(screen: TableScreen, request, **data) -> None:
    """The notice that tells the table (and the open screen) what changed."""
    notice_record(campaign_id=screen.campaign_id, kind=NoticeEvent.Kind.SCREEN,
                  actor=request.user.username, screen=screen.pk, name=screen.name, **data)


@require_POST
def screen_create(request, pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    form = ScreenForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(f"{campaign.get_absolute_url()}#screens")
    with transaction.atomic():
        # The campaign's row, locked, counts one create at a time (a lock on its screens
        # took none while it had none, and two creates could pass the limit together).
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        if TableScreen.objects.filter(campaign=campaign).count() >= SCREENS_PER_CAMPAIGN:
            messages.error(request, _("A campaign has at most %(count)s table screens: end "
                                      "one first.") % {"count": SCREENS_PER_CAMPAIGN})
            return redirect(f"{campaign.get_absolute_url()}#screens")
        TableScreen.objects.create(campaign=campaign, name=form.cleaned_data["name"])
    return redirect(f"{campaign.get_absolute_url()}#screens")


@require_POST
def screen_mode(request, pk: int, screen_pk: int):
    screen = screen_of(request, pk, screen_pk)
    mode = request.POST.get("mode", "")
    if mode not in TableScreen.Mode.values:
        messages.error(request, _("Choose what the screen shows."))
        return redirect(f"{screen.campaign.get_absolute_url()}#screens")
    with transaction.atomic():
        if TableScreen.objects.filter(pk=screen.pk).exclude(mode=mode).update(mode=mode):
            tell(screen, request, mode=mode)
    return redirect(f"{screen.campaign.get_absolute_url()}#screens")


@require_POST
def screen_end(request, pk: int, screen_pk: int):
    screen = screen_of(request, pk, screen_pk)
    with transaction.atomic():
        if TableScreen.objects.filter(pk=screen.pk).delete()[0]:
            tell(screen, request, ended=True)
    messages.success(request, _("The table screen %(name)s is ended: its link and code no "
                                "longer open it.") % {"name": screen.name})
    return redirect(f"{screen.campaign.get_absolute_url()}#screens")


def screen_enter(request):
    """/screen/: type the screen's code (no account)."""
    form = ScreenCodeForm(request.POST or None)
    retry_after = 0
    if request.method == "POST" and form.is_valid():
        screen, retry_after = throttle.guess(
            throttle.screen_code_checks(request),
            TableScreen.objects.filter(code=form.cleaned_data["code"]).first)
        if screen is not None:
            return redirect(screen)
        form.add_error("code", throttle.throttled_message(retry_after) if retry_after
                       else _("No table screen has that code."))
    status = 429 if retry_after else 400 if form.is_bound else 200
    response = render(request, "table/screen_enter.html", {"form": form}, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def screen_show(request, token: str):
    """The screen itself: what the GM chose, as every player may see it."""
    screen = TableScreen.objects.select_related("campaign").filter(token=token).first()
    if screen is None:
        raise Http404(_("No such table screen: the GM may have ended it."))
    lines, _older = events_page(screen.campaign_id, before=None, is_gm=False,
                                size=SCREEN_LINES)
    context = {
        "screen": screen,
        "campaign": screen.campaign,
        "lines": lines,
        "last_seq": lines[0]["seq"] if lines else 0,
        "stream_url": reverse("log:screen_events", args=[screen.token]),
        "keep": SCREEN_LINES,
        # The handout given to the table screen last (issue 47, table/handouts.py).
        "handout": handouts.on_screen(screen.campaign_id)
        if screen.mode == TableScreen.Mode.HANDOUT else None,
    }
    response = render(request, "table/screen.html", context)
    response["Cache-Control"] = "no-store"
    response["X-Robots-Tag"] = "noindex"
    return response
