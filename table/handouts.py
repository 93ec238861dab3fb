"""Handouts (issue 47): a picture or a text the GM gives at the table, to one player, to
every player, or to every player and the table screen.

- **The GM's to give.** Only the campaign's GM gives one (`HandoutForm`: a title, a text,
  a picture or both; at most `HANDOUTS_PER_CAMPAIGN`) and takes one back. The picture is
  checked as a map picture is (`core.pictures.picture_facts`).
- **Each player their own.** A player reads the handouts given to them and to every
  player, on the campaign's handouts page and at the table; another player's handout is
  a 404 to them, as it is to anyone outside the campaign.
- **Told at the table.** Giving one is a notice in the campaign's log: to every player
  with its title, to one player only as "the GM gives <name> a handout" (its title is
  theirs). Each open table page reads its list again on that notice, so what the GM gives
  comes to the player's phone. Shown on the table screen, every screen of the campaign
  turns to it (`TableScreen.Mode.HANDOUT`) and reloads on the notice.
"""

from django.contrib import messages
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign
from campaigns.models import Campaign, Membership, TableScreen
from table.forms import HandoutForm
from table.models import Handout, NoticeEvent
from table.services import notice_record

HANDOUTS_PER_CAMPAIGN = 200


def mine(campaign, membership):
    """The handouts `membership` reads, newest first: all of them for the GM."""
    handouts = Handout.objects.filter(campaign=campaign).defer("picture").select_related(
        "recipient__user")
    if not membership.is_gm:
        handouts = handouts.filter(Q(recipient__isnull=True) | Q(recipient=membership))
    return handouts.order_by("-pk")


def players_of(campaign):
    return Membership.objects.filter(campaign=campaign, role=Membership.Role.PLAYER
                                     ).select_related("user").order_by("seat", "pk")


def handouts_page(request, pk: int):
    """/campaigns/<pk>/handouts/: the member's handouts; the GM's form to give one."""
    campaign, membership = get_campaign(request, pk)
    form = None
    status = 200
    if membership.is_gm:
        form = HandoutForm(request.POST or None, request.FILES or None,
                           players=players_of(campaign))
        if request.method == "POST":
            if form.is_valid() and give(request, campaign, form):
                return redirect(reverse("table:handouts", args=[campaign.pk]))
            status = 400
    elif request.method == "POST":
        raise Http404
    return render(request, "table/handouts.html", {
        "campaign": campaign, "membership": membership, "form": form,
        "handouts": mine(campaign, membership), "limit": HANDOUTS_PER_CAMPAIGN,
    }, status=status)


def give(request, campaign, form) -> bool:
    """Store the handout and tell the table; False (the form says why) at the limit."""
    data = form.cleaned_data
    picture = data.get("picture") or {}
    recipient = form.recipient
    on_screen = data["to"] == HandoutForm.SCREEN
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)  # one count at a time
        if Handout.objects.filter(campaign=campaign).count() >= HANDOUTS_PER_CAMPAIGN:
            form.add_error(None, _("A campaign keeps at most %(count)s handouts: take one "
                                   "back first.") % {"count": HANDOUTS_PER_CAMPAIGN})
            return False
        handout = Handout.objects.create(
            campaign=campaign, recipient=recipient, on_screen=on_screen, title=data["title"],
            text=data["text"].strip(), picture=picture.get("content"),
            content_type=picture.get("content_type", ""), width_px=picture.get("width_px"),
            height_px=picture.get("height_px"))
        if on_screen:
            TableScreen.objects.filter(campaign=campaign).update(mode=TableScreen.Mode.HANDOUT)
        notice_record(campaign_id=campaign.pk, kind=NoticeEvent.Kind.HANDOUT,
                      actor=request.user.username, handout=handout.pk,
                      # A handout to one player: its title is theirs.
                      title="" if recipient else handout.title,
                      to=recipient.user.username if recipient else "", screen=on_screen)
    messages.success(request, _("Handout given: %(title)s") % {"title": handout.title})
    return True


@require_POST
def handout_delete(request, pk: int, handout_pk: int):
    """The GM takes a handout back: gone from every list, and from the screen."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    handout = get_object_or_404(Handout.objects.defer("picture"), pk=handout_pk,
                                campaign=campaign)
    with transaction.atomic():
        if Handout.objects.filter(pk=handout.pk).delete()[0]:
            notice_record(campaign_id=campaign.pk, kind=NoticeEvent.Kind.HANDOUT,
                          actor=request.user.username, handout=handout.pk, taken=True,
                          title="" if handout.recipient_id else handout.title,
                          screen=handout.on_screen)
    return redirect(reverse("table:handouts", args=[campaign.pk]))


def handouts_list(request, pk: int):
    """The member's handouts as the table page shows them (asked again on each notice of
    a handout)."""
    campaign, membership = get_campaign(request, pk)
    response = render(request, "table/_handouts.html", {
        "campaign": campaign, "membership": membership,
        "handouts": mine(campaign, membership)[:5]})
    response["Cache-Control"] = "no-store"
    return response


def picture_response(handout: Handout) -> HttpResponse:
    if not handout.has_picture:
        raise Http404
    row = Handout.objects.only("picture", "content_type").get(pk=handout.pk)
    response = HttpResponse(bytes(row.picture), content_type=row.content_type)
    response["Cache-Control"] = "private, max-age=31536000, immutable"  # never changes
    response["X-Content-Type-Options"] = "nosniff"
    return response


def handout_picture(request, pk: int, handout_pk: int):
    """A handout's picture, to the members who may read it (404 to anyone else)."""
    campaign, membership = get_campaign(request, pk)
    handout = get_object_or_404(Handout.objects.defer("picture"), pk=handout_pk,
                                campaign=campaign)
    if not handout.for_member(membership):
        raise Http404
    return picture_response(handout)


def on_screen(campaign_id: int) -> Handout | None:
    """The handout the campaign's screens show: the newest given to the table screen."""
    return (Handout.objects.filter(campaign_id=campaign_id, on_screen=True)
            .defer("picture").order_by("-pk").first())


def screen_handout_picture(request, token: str, handout_pk: int):
    """The picture of the handout a table screen shows, by the screen's token: no other."""
    screen = TableScreen.objects.filter(token=token).first()
    shown = on_screen(screen.campaign_id) if screen is not None else None
    if shown is None or shown.pk != handout_pk:
        raise Http404
    return picture_response(shown)


