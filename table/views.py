
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from campaign_log.reading import events_page
from campaigns.access import get_campaign, member_view
from core.db import idempotency
from core.params import strict_int
from rules.aoristos import dice, success
from rules.entered import dice_count, dice_sides, parse_faces
from rules.errors import RulesError, gettext_noop
from table import luck, services
from table.entered import EnteredTestForm, hand_odds, odds_context, opposition_odds
from table.forms import HandForm, RollForm
from table.models import NoticeEvent, RollEvent


def from_htmx(request) -> bool:
    """``request.htmx``, read from the one header: django_htmx reads it through
    ``request.headers``, which a roll would otherwise build from every header for this
    alone (HX-Request is always "true", never URI-encoded)."""
    return request.META.get("HTTP_HX_REQUEST") == "true"


def rollable_characters(membership):
    """A player rolls for their own characters; the GM for any character in the campaign.
    A queryset: the roll form reads the list only to show it, and checks one character."""
    characters = membership.campaign.characters.order_by("name", "pk")
    return characters if membership.is_gm else characters.filter(owner_id=membership.user_id)


def roll_form(membership, data=None) -> HandForm:
    """The tray's form. A bare hand is checked by `HandForm`, which needs no character
    (no query, and a hand stays rollable whatever happened to the characters)."""
    if membership.campaign.system.builder == "entered":  # its own tests (table.entered)
        return EnteredTestForm(
            data,
            campaign=membership.campaign,
            characters=rollable_characters(membership).with_carried(),
            can_roll_secretly=membership.is_gm,
        )
    if data is not None and data.get("mode") == HandForm.MODE_HAND:
        return HandForm(data, can_roll_secretly=membership.is_gm)
    return RollForm(
        data,
        characters=rollable_characters(membership),
        can_roll_secretly=membership.is_gm,
        campaign=membership.campaign,
        initial={"mode": RollForm.MODE_TEST},
    )


def page_context(membership, form: RollForm, **extra) -> dict:
    campaign = membership.campaign
    rolls, older = events_page(campaign.pk, before=None, is_gm=membership.is_gm)
    characters = list(campaign.characters.select_related("owner").order_by("owner_id", "name"))
    return {
        "campaign": campaign,
        "membership": membership,
        "members": campaign.memberships.select_related("user"),
        "characters": characters,
        # Success tests need a character to roll for; without one the tray rolls hands and
        # says how to get a character.
        "can_test": any(
            membership.is_gm or character.owner_id == membership.user_id for character in characters
        ),
        "form": form,
        "rolls": rolls,
        "older": older,
        "last_seq": rolls[0]["seq"] if rolls else 0,
        "idempotency_key": idempotency.new_key(),
        # The table's own dice (issue 48): whether this member's tray takes them, and the
        # faces its keypad offers (T10's ten-sided dice, the others' six).
        "own_dice": campaign.rolls_own_dice(membership),
        "luck": luck.session_luck(campaign),
        "die_faces": range(1, 11),  # the keypad shows as many as the hand's dice have
    } | extra


@member_view
def table_page(request, membership):
    context = page_context(membership, roll_form(membership))
    if not context["can_test"] and membership.campaign.system.builder == "points":
        context["form"] = HandForm(
            can_roll_secretly=membership.is_gm, initial={"mode": HandForm.MODE_HAND}
        )
    return render(request, "table/table.html", context)


@member_view
@require_POST
def roll(request, membership):
    """Roll on the server. Every open page (this one included) shows it through its stream;
    without JavaScript the form posts normally and the page reloads with it.

    The tray's ``idempotency_key`` makes a retried POST (a lost answer) get the same
    answer without a second roll. Everything is checked and rolled before the one INSERT.
    """
    campaign = membership.campaign
    form = roll_form(membership, request.POST)
    try:
        key = idempotency.key_from(request.POST)
    except idempotency.InvalidKey as error:
        if from_htmx(request):
            context = {"error": error.message, "idempotency_key": idempotency.new_key()}
            return render(request, "table/table.html#tray-errors", context, status=400)
        context = page_context(membership, roll_form(membership), error=error.message)
        return render(request, "table/table.html", context, status=400)
    if not form.is_valid():
        if from_htmx(request):
            context = {"form": form, "idempotency_key": key or idempotency.new_key()}
            return render(request, "table/table.html#tray-errors", context, status=200)
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("table:page", pk=campaign.pk)
    secret = bool(form.cleaned_data.get("secret"))
    try:
        faces = typed_faces(request.POST, membership, form)
    except RulesError as error:
        return refused(request, campaign, error, key)
    try:
        event, answer = rolled(request, membership, form, secret, key, faces)
    except RulesError as error:  # the typed faces do not make this roll (issue 48)
        return refused(request, campaign, error, key)
    if event is None:  # the form's own refusal, answered
        return answer
    if from_htmx(request):
        return HttpResponse(format_html(TRAY_ROLLED, seq=event.seq, key=idempotency.new_key()))
    return redirect("table:page", pk=campaign.pk)


def typed_faces(post, membership, form) -> tuple[int, ...] | None:
    """The faces of the table's own dice typed on the tray's keypad (issue 48), or None:
    the server rolls. Refused (RulesError) where the campaign has the server roll this
    member's dice, and for an opposed test (both sides roll: the server's, for now)."""
    if getattr(form, "is_opposed", False) and (post.get("faces") or "").strip():
        raise RulesError("an opposed test is rolled on the server",
                         template=gettext_noop("an opposed test is rolled on the server"))
    return faces_typed(post, membership.campaign.rolls_own_dice(membership))


def faces_typed(post, own: bool) -> tuple[int, ...] | None:
    """A form's typed `faces` (the tray's, the sheet roller's), or None: the server rolls.
    Refused where the roller's dice are the server's (`own` false)."""
    text = (post.get("faces") or "").strip()
    if not text:
        return None
    if not own:
        raise RulesError("this campaign has the server roll your dice",
                         template=gettext_noop("this campaign has the server roll your dice"))
    return parse_faces(text)


def said(error: RulesError) -> str:
    """A refusal of the rules core in the page's language: its template translated, then
    filled (the English message when there is none, or it does not fit)."""
    template = getattr(error, "template", "")
    try:
        return gettext(template).format(**error.params) if template else str(error)
    except (KeyError, IndexError, ValueError):
        return str(error)


def refused(request, campaign, error: RulesError, key):
    """A roll refused for its typed faces: said in the tray (what was typed stays), and
    how many more dice it takes when it takes more (the keypad asks for them)."""
    message = said(error)
    if from_htmx(request):
        context = {"error": message, "idempotency_key": key or idempotency.new_key(),
                   "more": getattr(error, "needed", None)}
        return render(request, "table/table.html#tray-errors", context, status=200)
    messages.error(request, message)
    return redirect("table:page", pk=campaign.pk)


def rolled(request, membership, form, secret, key, faces):
    """The roll the valid tray form asks for, stored, and None; or None and the answer
    when the form refuses it after all (a system's test its plan cannot make)."""
    campaign = membership.campaign
    if isinstance(form, EnteredTestForm) and form.is_hand:
        event = services.system_hand_record(
            campaign=campaign,
            actor=membership.user,
            system=form.system,
            plan=form.cleaned_data["hand_plan"],
            secret=secret,
            idempotency_key=key,
            faces=faces,
        )
    elif isinstance(form, EnteredTestForm):
        try:
            opposition = form.opposition() if form.is_opposed else None
            plan = None if opposition else form.plan()
        except ValidationError as error:
            form.add_error(None, error)
            if from_htmx(request):
                context = {"form": form, "idempotency_key": key or idempotency.new_key()}
                return None, render(request, "table/table.html#tray-errors", context,
                                    status=200)
            messages.error(request, " ".join(error.messages))
            return None, redirect("table:page", pk=campaign.pk)
        if opposition:
            event = services.system_opposed_record(
                campaign=campaign,
                actor=membership.user,
                character=form.cleaned_data["character"],
                system=form.system,
                opposition=opposition,
                secret=secret,
                idempotency_key=key,
            )
        else:
            event = services.system_test_record(
                campaign=campaign,
                actor=membership.user,
                character=form.cleaned_data["character"],
                system=form.system,
                plan=plan,
                label=plan.label,
                secret=secret,
                idempotency_key=key,
                pair=form.social_pair(),
                faces=faces,
            )
    elif form.cleaned_data["mode"] == RollForm.MODE_HAND:
        event = services.roll_record(
            campaign=campaign,
            actor=membership.user,
            hand=form.cleaned_data["hand"],
            purpose=form.cleaned_data.get("purpose") or dice.Purpose.TEST,
            secret=secret,
            idempotency_key=key,
            faces=faces,
        )
    elif form.is_opposed:
        event = services.opposed_test_record(
            campaign=campaign,
            actor=membership.user,
            opposition=form.opposition(),
            secret=secret,
            idempotency_key=key,
        )
    else:
        test = form.test()
        event = services.roll_record(
            campaign=campaign,
            actor=membership.user,
            hand=test["hand"],
            character=test["character"],
            label=test["label"],
            test_base=test["test_base"],
            threshold=test["threshold"],
            secret=secret,
            idempotency_key=key,
            faces=faces,
        )
    return event, None


# The tray's answer to a roll it made (htmx): what the "tray-errors" partial of
# table/table.html renders with the roll (`rolled`), a fresh key and no error, byte for
# byte, written out here: rendering it took about 4 % of a roll's server CPU
# (bench/roll_floor.py). tests/table/test_tray_answer.py keeps the two the same.
TRAY_ROLLED = (
    '\n\n<div id="tray-errors" role="alert" data-rolled="{seq}">\n'
    '  <input type="hidden" name="idempotency_key" value="{key}">\n  \n  \n</div>\n'
)


@member_view
@require_POST
def ask_again(request, membership, seq: int):
    """The GM asks for a roll of the table's own dice again (issue 48): the site never
    claims the dice were rolled, so the GM may ask. Told at the table; nothing changes."""
    if not membership.is_gm:
        return HttpResponse(status=403)
    campaign = membership.campaign
    event = RollEvent.objects.filter(campaign=campaign, seq=seq).select_related(
        "actor").first()
    if event is None:
        return HttpResponse(status=404)
    if not event.typed_in:
        return HttpResponseBadRequest(gettext("Only a roll of typed-in dice is asked again."))
    with transaction.atomic():
        services.notice_record(
            campaign_id=campaign.pk, kind=NoticeEvent.Kind.AGAIN,
            actor=membership.user.username, roll_seq=event.seq,  # "seq" is the notice's
            who=event.actor.username if event.actor else "", label=event.label or event.hand)
    return HttpResponse(status=204)


@member_view
def luck_box(request, membership):
    """This evening's luck per member (issue 48), read again as the table's rolls come."""
    # The membership's campaign is read with it in this request: its event number is now's.
    response = render(request, "table/_luck.html",
                      {"luck": luck.session_luck(membership.campaign)})
    response["Cache-Control"] = "no-store"
    return response


@member_view
@require_POST
def situation_end(request, membership):
    """The situation of a character's Lugn roll is over (Phobia, lines 210-229): told at
    the table, and its later tests are as before. The GM or the character's player ends
    it; the answer is the tray's odds box, made again from the tray's fields."""
    character_id = strict_int(request.POST.get("character"), name="character")
    if character_id is None:
        return HttpResponseBadRequest(gettext("Choose a character."))
    character = rollable_characters(membership).filter(pk=character_id).first()
    if character is None:
        return HttpResponse(status=403)
    campaign = membership.campaign
    # A player ends only a situation they see: never one the GM's secret Lugn roll opened.
    if services.open_situation(campaign.pk, character.pk, secret=membership.is_gm) is not None:
        with transaction.atomic():
            services.notice_record(
                campaign_id=campaign.pk, kind="situation", actor=membership.user.username,
                character_id=character.pk, character=character.name,
            )
    return odds_answer(request, membership, request.POST)


@member_view
def odds(request, membership):
    """The chance shown before rolling: GST and P(success) with the TB the test rolls (its
    constant included; an empty TB is 0), or the range of a bare hand."""
    return odds_answer(request, membership, request.GET)


def odds_answer(request, membership, data):
    """The tray's odds box: the chance of what the tray holds, or why it cannot be rolled,
    each bad field's reason as the roll's answer would give it."""
    form = roll_form(membership, data)
    context = {"campaign": membership.campaign, "form": form, "odds": None}
    if not form.is_valid():
        context["odds_error"] = " ".join(e for errors in form.errors.values() for e in errors)
    elif isinstance(form, EnteredTestForm) and form.is_hand:
        context["odds"] = hand_odds(form.cleaned_data["hand_plan"])
    elif isinstance(form, EnteredTestForm):
        try:
            if form.is_opposed:
                context["odds"] = opposition_odds(form.opposition(), form.system)
            else:
                context["odds"] = odds_context(form.plan(), form.system)
        except ValidationError as error:
            context["odds_error"] = " ".join(error.messages)
    elif form.cleaned_data["mode"] == RollForm.MODE_HAND:
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
    elif form.is_opposed:
        context["odds"] = opposed_odds(form.opposition())
    else:
        test = form.test()
        chance = success.p_success(test["hand"], test["test_base"], test["threshold"])
        context["odds"] = test | {"hand": str(test["hand"]), "percent": float(chance) * 100}
    odds = context["odds"]
    if odds and not odds.get("opposed") and not odds.get("opponent") and not odds.get("against"):
        # How many dice the keypad asks for (issue 48): the hand's, before any sixes.
        notation = str(odds.get("notation") or odds.get("hand") or "")
        context["keypad_dice"] = dice_count(notation)
        context["keypad_sides"] = dice_sides(notation)
    if isinstance(form, RollForm):
        # The levels beside the checkboxes follow the chosen character (out of band).
        levels = form.chosen_levels()
        keys = [key for key, _label in form.fields["properties"].choices]
        context["levels_oob"] = [(key, levels.get(key)) for key in keys]
    return render(request, "table/table.html#odds", context)


def opposed_odds(opposition: dict) -> dict:
    """What the tray shows before an Aoristos opposed test (p. 5): each side (who is on it
    with their TBs, what it tests, its TB and hand) and the exact chance of each outcome,
    the rules core's (`success.opposed_odds`)."""
    a, b = opposition["a"], opposition["b"]
    odds = success.opposed_odds(a["side"], b["side"])
    sides = {
        name: services.side_people(side["participants"]) | {
            "label": side["label"], "test_base": side["side"].test_base,
            "hand": str(side["side"].hand), "constant": side["constant"],
        }
        for name, side in (("a", a), ("b", b))
    }
    return {
        "opposed": sides, "exact": odds,
        "a_wins": float(odds.a_wins) * 100, "draw": float(odds.draw) * 100,
        "b_wins": float(odds.b_wins) * 100,
    }


@login_required
def history(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    before = strict_int(request.GET.get("before"), name="before")
    rolls, older = events_page(campaign.pk, before=before, is_gm=membership.is_gm)
    context = {"campaign": campaign, "membership": membership, "rolls": rolls, "older": older}
    return render(request, "table/history.html", context)
