"""Rolling from a character's sheet, and the character's favourite tests.

The sheet (``characters.views.character_sheet``) shows the roller to whoever may roll for
the character: its owner, and the GM of its campaign (``campaigns.access``: ``Access.EDIT``
and up), when the character is in a campaign. A roll goes to that campaign's table through
``table.services.roll_record``, so it appears live on every open table page; its result is
shown beside the sheet's button. Favourites are changed by the same people.
"""

from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import Access, get_character
from characters.roller import FavouriteNameForm
from characters.views import sheet_context, sheet_test
from core.db import idempotency
from rules.entered import MoreDice
from rules.errors import RulesError
from table import services
from table.models import FavouriteTest
from table.views import faces_typed, said


def roller_character(request, pk: int):
    """The character, if this user may roll for it and change its favourites: its owner or
    the GM of its campaign (others who see the sheet: 403; the rest: 404)."""
    return get_character(request, pk, Access.EDIT)


def result_response(request, character, access, context, *, status=200):
    """The answer to a roll: the result beside the button (htmx), or the whole sheet."""
    if request.htmx:
        return render(request, "table/_sheet_result.html", context, status=status)
    page = sheet_context(character, access, odds_query=request.POST)
    page |= {key: context[key] for key in ("rolled", "idempotency_key", "roll_errors")}
    return render(request, "characters/sheet.html", page, status=status)


@login_required
@require_POST
def sheet_roll(request, pk: int):
    """Roll the sheet's test at the table of the character's campaign (p. 5: TB + the
    hand's result against the ST, the GST unless an own ST is given).

    The form's ``idempotency_key`` makes a resent POST (an answer lost on the way) get
    the first roll back instead of a second; the answer to a success carries a fresh key.
    Bad input: 400 with the reason, nothing rolled, the key kept for the corrected POST.
    """
    character, access = roller_character(request, pk)
    context = {"character": character, "rolled": None, "roll_errors": []}
    try:
        key = idempotency.key_from(request.POST)
    except idempotency.InvalidKey as error:
        context |= {"roll_errors": [error.message], "idempotency_key": idempotency.new_key()}
        return result_response(request, character, access, context, status=400)
    context["idempotency_key"] = key or idempotency.new_key()
    if character.campaign_id is None:
        context["roll_errors"] = [_("Join a campaign to roll at the table.")]
        return result_response(request, character, access, context, status=400)
    # Only the test: the whole sheet is rendered only for an answer without JavaScript.
    _levels, form, odds = sheet_test(character, request.POST)
    if not form.is_valid():
        context["roll_errors"] = [e for errors in form.errors.values() for e in errors]
        return result_response(request, character, access, context, status=400)
    if odds is None:
        context["roll_errors"] = [_("Choose the properties the test is of.")]
        return result_response(request, character, access, context, status=400)
    try:
        own = character.campaign.own_dice_of(gm=access >= Access.GM)
        faces = faces_typed(request.POST, own)
        event = services.roll_record(
            campaign=character.campaign,
            actor=request.user,
            hand=odds["dice_hand"],
            character=character,
            label=odds["label"],
            test_base=odds["test_base"],
            threshold=odds["threshold"],
            idempotency_key=key,
            faces=faces,
        )
    except RulesError as error:  # the typed faces do not make this roll (issue 48)
        context["roll_errors"] = [said(error)]
        if isinstance(error, MoreDice):
            context["more"] = error.needed
        return result_response(request, character, access, context, status=400)
    context |= {"rolled": services.payload(event), "idempotency_key": idempotency.new_key()}
    return result_response(request, character, access, context)


def favourites_response(request, character, access=None, *, errors=(), status=200):
    """The favourites list (htmx); without JavaScript, back to the sheet's roller, or the
    sheet with what was wrong (and the test as it was posted)."""
    errors = list(errors)
    if request.htmx:
        context = {
            "character": character,
            "can_roll": True,
            "favourites": list(character.favourite_tests.all()),
            "favourite_errors": errors,
        }
        return render(request, "table/_sheet_favourites.html", context, status=status)
    if errors:
        page = sheet_context(character, access, odds_query=request.POST)
        context = page | {"favourite_errors": errors}
        return render(request, "characters/sheet.html", context, status=status)
    return redirect(f"{character.get_absolute_url()}#roller")


@login_required
@require_POST
def favourite_save(request, pk: int):
    """Save the sheet's current test under a short name; the same name again replaces it."""
    character, access = roller_character(request, pk)
    _levels, form, odds = sheet_test(character, request.POST)
    name_form = FavouriteNameForm(request.POST)
    errors = []
    if not name_form.is_valid():
        errors += [_("Give the favourite a name of at most 40 characters.")]
    if not form.is_valid():
        errors += [e for field_errors in form.errors.values() for e in field_errors]
    elif odds is None:
        errors.append(_("Choose the properties the test is of."))
    if errors:
        return favourites_response(request, character, access, errors=errors, status=400)
    name = name_form.cleaned_data["favourite_name"]
    values = {
        "properties": odds["keys"],
        "free": form.cleaned_data["free"],
        "forced": form.cleaned_data["forced"],
        "threshold": form.cleaned_data["threshold"],
    }
    try:
        with transaction.atomic():
            existing = character.favourite_tests.select_for_update().filter(name=name).first()
            if existing is not None:
                for field, value in values.items():
                    setattr(existing, field, value)
                existing.save(update_fields=list(values))
            elif character.favourite_tests.count() >= FavouriteTest.MAX_PER_CHARACTER:
                message = _("A character keeps at most %(limit)s favourite tests.") % {
                    "limit": FavouriteTest.MAX_PER_CHARACTER
                }
                return favourites_response(request, character, access, errors=[message], status=400)
            else:
                FavouriteTest.objects.create(character=character, name=name, **values)
    except IntegrityError:  # the same name saved at the same moment from another page
        pass
    return favourites_response(request, character)


@login_required
@require_POST
def favourite_delete(request, pk: int, favourite_pk: int):
    character, _access = roller_character(request, pk)
    get_object_or_404(FavouriteTest, pk=favourite_pk, character=character).delete()
    return favourites_response(request, character)
