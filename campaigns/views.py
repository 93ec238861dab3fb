import qrcode
import qrcode.image.svg
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from campaigns import services
from campaigns.access import get_bring_request, get_campaign, get_own_character
from campaigns.forms import BringAnswerForm, CampaignForm, JoinCodeForm
from campaigns.models import (
    SCREENS_PER_CAMPAIGN,
    BringRequest,
    Campaign,
    JournalEntry,
    Membership,
    TableScreen,
)
from combat import running
from combat.forms import where_words
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
        try:
            changed = services.campaign_update(campaign=form.instance)
        except services.CampaignError as error:
            form.add_error("level_cap", str(error))
        else:
            messages.success(request, _("%(name)s was saved.") % {"name": campaign.name})
            if changed:
                messages.info(
                    request,
                    ngettext(
                        "The level cap %(cap)s now applies to %(count)s character.",
                        "The level cap %(cap)s now applies to %(count)s characters.",
                        changed,
                    )
                    % {"cap": campaign.level_cap, "count": changed},
                )
            return redirect(campaign)
    status = 400 if form.is_bound else 200
    context = {"form": form, "campaign": campaign}
    return render(request, "campaigns/edit.html", context, status=status)


@login_required
def campaign_detail(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    context = detail_context(request, campaign, membership)
    # ?bring=ID: why the campaign's rules refuse one of the user's characters (the refused
    # bring comes back here), with the way to ask the GM.
    bring_id = strict_id(request.GET.get("bring"), name="bring")
    if bring_id is not None:
        character = get_own_character(request, bring_id)
        if character.campaign_id is None:
            check = services.bring_check(campaign=campaign, character=character)
            if not check.fits:
                context["refusal"] = check
    return render(request, "campaigns/detail.html", context)


def detail_context(request, campaign, membership, *, answer_forms=None) -> dict:
    """The campaign page. `answer_forms` (request id -> bound form) keeps what the GM
    typed into an answer that was refused."""
    is_gm = membership.is_gm
    memberships = list(campaign.memberships.select_related("user"))
    characters = list(campaign.characters.select_related("owner"))
    accepted = {
        r.character_id: r
        for r in BringRequest.objects.filter(
            campaign=campaign, status=BringRequest.Status.ACCEPTED, character__campaign=campaign
        ).order_by("pk")
    }
    for character in characters:
        # The GM's note on a character let in above the rules: for the GM and its player.
        visible = is_gm or character.owner_id == request.user.pk
        character.accepted_request = accepted.get(character.pk) if visible else None
    seats = [
        {"membership": m, "characters": [c for c in characters if c.owner_id == m.user_id]}
        for m in memberships
    ]
    context = {
        "campaign": campaign,
        "membership": membership,
        "is_gm": is_gm,
        "seats": seats,
        "pinned": JournalEntry.objects.filter(campaign=campaign, pinned=True).first(),
        # Only characters of the campaign's rule system can be brought.
        "my_free_characters": request.user.characters.filter(
            campaign__isnull=True, rule_system=campaign.rule_system
        ),
        "house_rules": house_rule_rows(campaign),
        "my_requests": my_requests(request, campaign),
        # The fights that are on, one tap away (issue 26).
        "running": running.running(campaign.pk, membership),
    }
    if is_gm:
        context["invite_url"], context["invite_reachable"] = invite_url(request, campaign)
        context["pending_requests"] = pending_requests(campaign, answer_forms or {})
        # The table screens (issue 47; table/screens.py): each with the link a TV opens.
        context["screens"] = [
            {"screen": screen, "url": shareable_url(request, screen.get_absolute_url())[0]}
            for screen in campaign.screens.all()
        ]
        context["screen_enter_url"] = shareable_url(request, reverse("table:screen_enter"))[0]
        context["screen_modes"] = TableScreen.Mode.choices
        context["screens_full"] = len(context["screens"]) >= SCREENS_PER_CAMPAIGN
        # Members of an imported campaign still waiting for an account (archive).
        context["placeholders"] = list(campaign.placeholders.all())
        if context["placeholders"]:
            context["handover_choices"] = [m for m in memberships
                                           if m.user.is_active and not m.is_gm]
    return context


def house_rule_rows(campaign) -> list[dict]:
    """The campaign's house rules as the page shows them: each value, and whether it is
    the rule's default (rules.system.HouseRule)."""
    house = campaign.house()
    return [
        {"rule": rule, "name": _(rule.name), "value": house[rule.key],
         "default": house[rule.key] == rule.default, "where": where_words(rule.text)}
        for rule in campaign.system.house_rules
    ]


def my_requests(request, campaign) -> list[BringRequest]:
    """The user's latest request per character still outside any campaign."""
    latest = {}
    requests = BringRequest.objects.filter(
        campaign=campaign, character__owner=request.user, character__campaign__isnull=True
    ).select_related("character")
    for bring_request in requests.order_by("pk"):
        latest[bring_request.character_id] = bring_request
    return list(latest.values())


def answer_auto_id(bring_request: BringRequest) -> str:
    return f"id_answer{bring_request.pk}_%s"


def pending_requests(campaign, answer_forms: dict) -> list[dict]:
    """The requests waiting for the GM, each with the character's check as it is now."""
    rows = []
    requests = BringRequest.objects.filter(
        campaign=campaign,
        status=BringRequest.Status.PENDING,
        character__campaign__isnull=True,
    ).select_related("character__owner")
    for bring_request in requests:
        form = answer_forms.get(bring_request.pk) or BringAnswerForm(
            auto_id=answer_auto_id(bring_request)
        )
        check = services.bring_check(campaign=campaign, character=bring_request.character)
        rows.append({"request": bring_request, "check": check, "form": form})
    return rows


def invite_url(request, campaign: Campaign) -> tuple[str, bool]:
    """The invitation link, and whether phones on the LAN can open it (core.network)."""
    return shareable_url(request, reverse("campaigns:join", args=[campaign.invite_token]))


@login_required
def invite_qr(request, pk: int):
    """The invitation link as a QR code (SVG), so a phone joins in one scan."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    image = qrcode.make(
        invite_url(request, campaign)[0], image_factory=qrcode.image.svg.SvgPathImage, box_size=12
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
    # The prompt banner asks a member's endpoint: not on the invitation of a non-member.
    context = {"campaign": campaign, "already": already, "not_a_member": not already}
    return render(request, "campaigns/join.html", context)


@login_required
def join_by_code(request):
    form = JoinCodeForm(request.POST or None)
    retry_after = 0
    if request.method == "POST" and form.is_valid():
        campaign, retry_after = throttle.guess(
            throttle.join_code_checks(request),
            Campaign.objects.filter(join_code=form.cleaned_data["code"]).first)
        if campaign is not None:
            return redirect("campaigns:join", token=campaign.invite_token)
        form.add_error("code", throttle.throttled_message(retry_after) if retry_after
                       else _("No campaign has that join code."))
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


def bring_target(request) -> int:
    character_id = strict_id(request.POST.get("character"), name="character")
    if character_id is None:
        raise ParamError(_("Choose a character to bring."))
    return character_id


@login_required
@require_POST
def character_bring(request, pk: int):
    """A member brings one of their own characters, not yet in any campaign, to this one,
    if it fits the campaign's rules; if not, the campaign page says why (?bring=ID)."""
    campaign, _membership = get_campaign(request, pk)
    character = get_own_character(request, bring_target(request))
    try:
        services.character_bring(campaign=campaign, character=character)
    except services.BringRefused:
        messages.error(
            request,
            _("%(name)s does not fit this campaign's rules as it is.") % {"name": character.name},
        )
        return redirect(f"{campaign.get_absolute_url()}?bring={character.pk}#bring")
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request, _("%(name)s now plays in this campaign.") % {"name": character.name}
        )
    return redirect(campaign)


@login_required
@require_POST
def bring_request_create(request, pk: int):
    """Send a character the rules refuse to the GM, who accepts it with a note or declines."""
    campaign, _membership = get_campaign(request, pk)
    character = get_own_character(request, bring_target(request))
    try:
        bring_request = services.bring_request_create(campaign=campaign, character=character)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        if bring_request is None:
            messages.success(
                request, _("%(name)s now plays in this campaign.") % {"name": character.name}
            )
        else:
            messages.success(
                request,
                _("%(name)s was sent to the GM, who accepts it with a note or declines.")
                % {"name": character.name},
            )
    return redirect(f"{campaign.get_absolute_url()}#bring")


@login_required
@require_POST
def bring_request_answer(request, pk: int, request_pk: int):
    """The GM accepts a request (a note is required) or declines it."""
    campaign, membership, bring_request = get_bring_request(request, pk, request_pk, answer=True)
    form = BringAnswerForm(request.POST, auto_id=answer_auto_id(bring_request))
    if not form.is_valid():
        context = detail_context(
            request, campaign, membership, answer_forms={bring_request.pk: form}
        )
        return render(request, "campaigns/detail.html", context, status=400)
    name = bring_request.character.name
    try:
        if form.cleaned_data["answer"] == BringAnswerForm.ACCEPT:
            services.bring_request_accept(
                bring_request=bring_request, note=form.cleaned_data["note"], by=request.user
            )
            text = _("%(name)s now plays in this campaign, with your note.") % {"name": name}
        else:
            services.bring_request_decline(
                bring_request=bring_request, note=form.cleaned_data["note"], by=request.user
            )
            text = _("The request to bring %(name)s was declined.") % {"name": name}
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, text)
    return redirect(f"{campaign.get_absolute_url()}#bring-requests")


@login_required
@require_POST
def bring_request_withdraw(request, pk: int, request_pk: int):
    """The player takes back a request the GM has not answered."""
    campaign, _membership, bring_request = get_bring_request(request, pk, request_pk, answer=False)
    try:
        services.bring_request_withdraw(bring_request=bring_request)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("The request to bring %(name)s was withdrawn.")
            % {"name": bring_request.character.name},
        )
    return redirect(f"{campaign.get_absolute_url()}#bring")


@login_required
@require_POST
def gm_notes(request, pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    campaign.gm_notes = saved_text(request.POST.get("gm_notes"), max_length=20_000)
    campaign.save(update_fields=["gm_notes"])
    messages.success(request, _("The notes were saved."))
    return redirect(f"{campaign.get_absolute_url()}#gm-notes")
