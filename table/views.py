import asyncio

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign, membership_of
from campaigns.models import Campaign, Membership
from rules.aoristos import dice, success
from table import services
from table.broadcast import get_broadcaster
from table.forms import RollForm

KEEPALIVE_SECONDS = 15
# A removed member's stream ends at the next event or keep-alive after this long.
MEMBERSHIP_RECHECK_SECONDS = 1.0
CATCH_UP_BATCH = 200


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


# The live stream -----------------------------------------------------------------------


def sse_message(html: str, seq: int) -> str:
    data = "".join(f"data: {line}\n" for line in html.strip().splitlines() or [""])
    return f"id: {seq}\n{data}\n"


def render_roll(message: dict, *, is_gm: bool, language: str) -> str:
    with translation.override(language):
        return render_to_string("table/_roll.html", {"roll": message, "is_gm": is_gm})


def last_event_id(request) -> int:
    """Where the page's history ends: Last-Event-ID on a reconnect, else ?after=."""
    for value in (request.headers.get("Last-Event-ID", ""), request.GET.get("after", "")):
        if value.strip().isdigit():
            return int(value)
    return 0


async def events(request, pk: int):
    """Server-sent events of one campaign's table, for one member.

    Catches up from the database first (everything after Last-Event-ID), then relays the
    broadcaster. Sequence numbers make the stream gap-free and duplicate-free: an event
    that arrives out of order, or after the queue overflowed, triggers a database catch-up
    instead of being shown.
    """
    user = await request.auser()
    campaign = await Campaign.objects.filter(pk=pk).afirst()
    membership = await sync_to_async(membership_of)(user, campaign) if campaign else None
    if membership is None:
        raise Http404
    is_gm = membership.is_gm
    language = translation.get_language()
    after = last_event_id(request)
    broadcaster = get_broadcaster()

    fetch = sync_to_async(services.events_after)
    still_member = Membership.objects.filter(pk=membership.pk).aexists

    async def stream():
        nonlocal after
        loop = asyncio.get_running_loop()
        checked_at = loop.time()
        subscription = broadcaster.subscribe(pk)  # before catching up: nothing falls between
        try:
            if hasattr(broadcaster, "ready"):
                await broadcaster.ready()
            yield "retry: 1000\n\n"
            pending = await fetch(pk, after, is_gm=is_gm, limit=CATCH_UP_BATCH)
            while True:
                for message in pending:
                    if message["seq"] > after:
                        after = message["seq"]
                        yield sse_message(
                            render_roll(message, is_gm=is_gm, language=language), after
                        )
                if len(pending) == CATCH_UP_BATCH:  # a long absence: fetch the next batch
                    pending = await fetch(pk, after, is_gm=is_gm, limit=CATCH_UP_BATCH)
                    continue
                try:
                    message = await asyncio.wait_for(subscription.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    # A quiet moment: end the stream of someone who left the campaign
                    # (their reconnect then gets 404), else keep the connection alive.
                    if not await still_member():
                        return
                    yield ": keep-alive\n\n"
                    pending = []
                    continue
                if loop.time() - checked_at > MEMBERSHIP_RECHECK_SECONDS:
                    checked_at = loop.time()
                    if not await still_member():
                        return
                if subscription.overflowed or message["seq"] > after + 1:
                    subscription.overflowed = False
                    pending = await fetch(pk, after, is_gm=is_gm, limit=CATCH_UP_BATCH)
                else:
                    pending = [services.visible(message, is_gm=is_gm)]
        finally:
            subscription.close()

    response = StreamingHttpResponse(stream(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
