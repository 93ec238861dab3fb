
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign
from rules.aoristos import dice, success
from table import services
from table.forms import RollForm


def rollable_characters(campaign, membership):
    """A player rolls for their own characters; the GM for any character in the campaign."""
    characters = campaign.characters.select_related("owner").order_by("name", "pk")
    return list(characters if membership.is_gm else characters.filter(owner=membership.user))


def roll_form(request, campaign, membership, data=None) -> RollForm:
    return RollForm(
        data,
        characters=rollable_characters(campaign, membership),
        can_roll_secretly=membership.is_gm,
        initial={"mode": RollForm.MODE_TEST},
    )


@login_required
def table_page(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    rolls, older = services.events_page(campaign.pk, before=None, is_gm=membership.is_gm)
    context = {
        "campaign": campaign,
        "membership": membership,
        "members": campaign.memberships.select_related("user"),
        "characters": campaign.characters.select_related("owner").order_by("owner_id", "name"),
        "form": roll_form(request, campaign, membership),
        "rolls": rolls,
        "older": older,
        "last_seq": rolls[0]["seq"] if rolls else 0,
    }
    return render(request, "table/table.html", context)


@login_required
@require_POST
def roll(request, pk: int):
    """Roll on the server. Every open page (this one included) shows it through its stream;
    without JavaScript the form posts normally and the page reloads with it."""
    campaign, membership = get_campaign(request, pk)
    form = roll_form(request, campaign, membership, request.POST)
    if not form.is_valid():
        if request.htmx:
            return render(request, "table/table.html#tray-errors", {"form": form}, status=200)
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("table:page", pk=campaign.pk)
    secret = bool(form.cleaned_data.get("secret"))
    if form.cleaned_data["mode"] == RollForm.MODE_HAND:
        services.roll_record(
            campaign=campaign,
            actor=request.user,
            hand=form.cleaned_data["hand"],
            purpose=form.cleaned_data.get("purpose") or dice.Purpose.TEST,
            secret=secret,
        )
    else:
        test = form.test()
        services.roll_record(
            campaign=campaign,
            actor=request.user,
            hand=test["hand"],
            character=test["character"],
            label=test["label"],
            test_base=test["test_base"],
            threshold=test["threshold"],
            secret=secret,
        )
    if request.htmx:
        return render(request, "table/table.html#tray-errors", {"form": None})
    return redirect("table:page", pk=campaign.pk)


@login_required
def odds(request, pk: int):
    """The chance shown before rolling: GST and P(success), or the range of a bare hand."""
    campaign, membership = get_campaign(request, pk)
    form = roll_form(request, campaign, membership, request.GET)
    context = {"campaign": campaign, "form": form, "odds": None}
    if form.is_valid():
        if form.cleaned_data["mode"] == RollForm.MODE_HAND:
            hand = form.cleaned_data["hand"]
            purpose = form.cleaned_data.get("purpose") or dice.Purpose.TEST
            distribution = dice.distribution(hand, purpose)
            mean = sum(result * p for result, p in distribution.items())
            context["odds"] = {
                "hand": str(hand),
                "low": hand.min_result,
                "high": hand.max_result,
                "mean": float(mean),
            }
        else:
            test = form.test()
            chance = success.p_success(test["hand"], test["test_base"], test["threshold"])
            context["odds"] = test | {"hand": str(test["hand"]), "percent": float(chance) * 100}
    return render(request, "table/table.html#odds", context)


@login_required
def history(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    before = request.GET.get("before", "")
    before = int(before) if before.isdigit() else None
    rolls, older = services.events_page(campaign.pk, before=before, is_gm=membership.is_gm)
    context = {"campaign": campaign, "membership": membership, "rolls": rolls, "older": older}
    return render(request, "table/history.html", context)
