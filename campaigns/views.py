import qrcode
import qrcode.image.svg
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import services
from campaigns.access import get_campaign
from campaigns.forms import CampaignForm, JoinCodeForm
from campaigns.models import Campaign, JournalEntry, Membership
from core import throttle
from core.network import shareable_url
from core.params import ParamError, saved_text, strict_id


@login_required
def campaign_list(request):
    memberships = request.user.memberships.select_related("campaign", "campaign__gm")
    return render(request, "campaigns/list.html", {"memberships": memberships})


@login_required
def campaign_create(request):
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(gm=request.user, **form.cleaned_data)
        messages.success(request, _("%(name)s was created.") % {"name": campaign.name})
        return redirect(campaign)
    status = 400 if form.is_bound else 200
    return render(request, "campaigns/edit.html", {"form": form}, status=status)


@login_required
def campaign_edit(request, pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    form = CampaignForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("%(name)s was saved.") % {"name": campaign.name})
        return redirect(campaign)
    status = 400 if form.is_bound else 200
    context = {"form": form, "campaign": campaign}
    return render(request, "campaigns/edit.html", context, status=status)


@login_required
def campaign_detail(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    memberships = list(campaign.memberships.select_related("user"))
    characters = list(campaign.characters.select_related("owner"))
    seats = [
        {"membership": m, "characters": [c for c in characters if c.owner_id == m.user_id]}
        for m in memberships
    ]
    context = {
        "campaign": campaign,
        "membership": membership,
        "is_gm": membership.is_gm,
        "seats": seats,
        "pinned": JournalEntry.objects.filter(campaign=campaign, pinned=True).first(),
        "my_free_characters": request.user.characters.filter(campaign__isnull=True),
    }
    if membership.is_gm:
        context["invite_url"] = invite_url(request, campaign)
    return render(request, "campaigns/detail.html", context)


def invite_url(request, campaign: Campaign) -> str:
    return shareable_url(request, reverse("campaigns:join", args=[campaign.invite_token]))


@login_required
def invite_qr(request, pk: int):
    """The invitation link as a QR code (SVG), so a phone joins in one scan."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    image = qrcode.make(
        invite_url(request, campaign), image_factory=qrcode.image.svg.SvgPathImage, box_size=12
    )
    return HttpResponse(image.to_string(), content_type="image/svg+xml")


@login_required
@require_POST
def invite_renew(request, pk: int):
    """New join code and link; the old ones stop working (a link that went too far)."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    services.invitation_renew(campaign=campaign)
    messages.success(request, _("The campaign has a new join code and link."))
    return redirect(campaign)


def join(request, token: str):
    """The invitation link: shows the campaign and asks to join (login first if needed)."""
    campaign = get_object_or_404(Campaign, invite_token=token)
    if not request.user.is_authenticated:
        messages.info(request, _("Log in or sign up to join %(name)s.") % {"name": campaign.name})
        return redirect(f"{reverse('login')}?next={request.path}")
    if request.method == "POST":
        services.campaign_join(campaign=campaign, user=request.user)
        messages.success(request, _("Welcome to %(name)s!") % {"name": campaign.name})
        return redirect(campaign)
    already = Membership.objects.filter(campaign=campaign, user=request.user).exists()
    return render(request, "campaigns/join.html", {"campaign": campaign, "already": already})


@login_required
def join_by_code(request):
    form = JoinCodeForm(request.POST or None)
    retry_after = 0
    if request.method == "POST" and form.is_valid():
        checks = throttle.join_code_checks(request)
        retry_after = throttle.retry_after(checks)
        if retry_after:
            form.add_error("code", throttle.throttled_message(retry_after))
        else:
            campaign = Campaign.objects.filter(join_code=form.cleaned_data["code"]).first()
            if campaign is not None:
                return redirect("campaigns:join", token=campaign.invite_token)
            throttle.record_failure(checks)
            form.add_error("code", _("No campaign has that join code."))
    status = 429 if retry_after else 400 if form.is_bound else 200
    response = render(request, "campaigns/join_code.html", {"form": form}, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


@login_required
@require_POST
def member_remove(request, pk: int, member_pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    member = get_object_or_404(Membership, pk=member_pk, campaign=campaign)
    # A ticked checkbox sends its value; an unticked one sends nothing.
    renew_invitation = "renew_invitation" in request.POST
    try:
        services.member_remove(
            campaign=campaign, membership=member, renew_invitation=renew_invitation
        )
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("%(user)s left the campaign; their characters stay theirs.")
            % {"user": member.user.username},
        )
        if renew_invitation:
            messages.info(request, _("The campaign has a new join code and link."))
    return redirect(campaign)


@login_required
@require_POST
def seat_move(request, pk: int, member_pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    member = get_object_or_404(
        Membership, pk=member_pk, campaign=campaign, role=Membership.Role.PLAYER
    )
    step = {"up": -1, "down": 1}.get(request.POST.get("direction", ""))
    if step is None:
        messages.error(request, _("Move a seat up or down."))
    else:
        services.seat_move(membership=member, step=step)
    return redirect(f"{campaign.get_absolute_url()}#seats")


@login_required
@require_POST
def character_bring(request, pk: int):
    """A player brings one of their own characters, not yet in any campaign, to this one."""
    campaign, _membership = get_campaign(request, pk)
    character_id = strict_id(request.POST.get("character"), name="character")
    if character_id is None:
        raise ParamError(_("Choose a character to bring."))
    character = get_object_or_404(request.user.characters, pk=character_id)
    try:
        services.character_bring(campaign=campaign, character=character)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request, _("%(name)s now plays in this campaign.") % {"name": character.name}
        )
    return redirect(campaign)


@login_required
@require_POST
def gm_notes(request, pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    campaign.gm_notes = saved_text(request.POST.get("gm_notes"), max_length=20_000)
    campaign.save(update_fields=["gm_notes"])
    messages.success(request, _("The notes were saved."))
    return redirect(f"{campaign.get_absolute_url()}#gm-notes")
