"""The live stream of a campaign's table (server-sent events)."""

import asyncio

from asgiref.sync import sync_to_async
from django.http import Http404, StreamingHttpResponse
from django.template.loader import render_to_string
from django.utils import translation

from campaigns.access import membership_of
from campaigns.models import Campaign, Membership
from table import services
from table.broadcast import get_broadcaster

KEEPALIVE_SECONDS = 15
# A removed member's stream ends at the next event or keep-alive after this long.
MEMBERSHIP_RECHECK_SECONDS = 1.0
CATCH_UP_BATCH = 200

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
