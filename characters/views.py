from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import Access, get_campaign, get_character
from characters.forms import CharacterForm, ItemForm, OddsForm, issue_message
from characters.models import Character, Item
from characters.terms import ATTRIBUTE_TERMS, SECONDARY_TERMS, SKILL_TERMS
from core.params import saved_text, strict_id
from rules.aoristos import character as rules
from rules.aoristos import success


def locked_fields(character: Character, access: Access) -> set[str]:
    """Fields the editor may not change. In a campaign the GM sets the UP budget and the
    level cap; once UP have been spent through the ledger the build is history, and only
    the GM may correct it."""
    if access >= Access.GM:
        return set()
    locked = set()
    if character.campaign_id:
        locked |= {"dp_budget", "level_cap"}
    if character.pk and character.ledger.exists():
        locked |= set(CharacterForm.NUMBER_FIELDS)
    return locked


def field_row(form: CharacterForm, key: str, term=None, cost=None) -> dict:
    """One numeric field: the bound field, its UP cost, the price of its next level
    (p. 3: a skill's next level costs its current level), and what is wrong with it."""
    if form.is_bound:
        errors = form.errors.get(key, [])
        level = getattr(form, "cleaned_data", {}).get(key)
    else:
        errors, level = [], form[key].initial
    next_cost = None
    if term is not None and level is not None and level < rules.MAX_LEVEL:
        step = rules.attribute_step_cost if key in rules.ATTRIBUTES else rules.skill_step_cost
        next_cost = step(level + 1)
    return {
        "key": key,
        "term": term,
        "field": form[key],
        "cost": cost,
        "next_cost": next_cost,
        "errors": errors,
    }


def editor_context(form: CharacterForm) -> dict:
    report = form.report if form.is_bound else form.instance.evaluate()
    costs = {**report.attribute_costs, **report.skill_costs} if report else {}
    attribute_rows = [field_row(form, t.key, t, costs.get(t.key)) for t in ATTRIBUTE_TERMS]
    skill_rows = [field_row(form, t.key, t, costs.get(t.key)) for t in SKILL_TERMS]
    limit_rows = [field_row(form, "dp_budget"), field_row(form, "level_cap")]
    return {
        "form": form,
        "character": form.instance if form.instance.pk else None,
        "report": report,
        "issue_messages": [issue_message(issue) for issue in report.issues] if report else [],
        "identity_fields": [form["name"], form["concept"], form["notes"]],
        "limit_rows": limit_rows,
        "attribute_rows": attribute_rows,
        "skill_rows": skill_rows,
        "status_rows": limit_rows + attribute_rows + skill_rows,
        "secondary_rows": secondary_rows(report),
    }


def secondary_rows(report: rules.BuildReport | None) -> list[dict]:
    return secondary_values(report.secondary) if report else []


def secondary_values(secondary: rules.Secondary) -> list[dict]:
    values = secondary.as_dict()
    return [{"term": term, "value": values[term.key]} for term in SECONDARY_TERMS]


@login_required
def character_list(request):
    characters = request.user.characters.select_related("campaign")
    rows = [{"character": c, "report": c.evaluate()} for c in characters]
    return render(request, "characters/list.html", {"rows": rows})


def new_character(request) -> Character:
    """A new character for the user; with ?campaign=ID, in that campaign with its UP and cap."""
    character = Character(owner=request.user)
    campaign_id = strict_id(request.GET.get("campaign"), name="campaign")
    if campaign_id is not None:
        campaign, _membership = get_campaign(request, campaign_id)
        character.campaign = campaign
        character.dp_budget = campaign.starting_dp
        character.level_cap = campaign.level_cap
    return character


@login_required
def character_create(request):
    character = new_character(request)
    form = CharacterForm(
        request.POST or None, instance=character, locked=locked_fields(character, Access.EDIT)
    )
    if request.method == "POST" and form.is_valid():
        character = form.save()
        messages.success(request, _("%(name)s was created.") % {"name": character.name})
        return redirect(character)
    status = 400 if form.is_bound else 200
    return render(request, "characters/edit.html", editor_context(form), status=status)


@login_required
def character_edit(request, pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    form = CharacterForm(
        request.POST or None, instance=character, locked=locked_fields(character, access)
    )
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("%(name)s was saved.") % {"name": character.name})
        return redirect(character)
    status = 400 if form.is_bound else 200
    return render(request, "characters/edit.html", editor_context(form), status=status)


@login_required
@require_POST
def character_preview(request, pk: int | None = None):
    """Live check while a build is typed: UP, secondary values and warnings, as htmx swaps."""
    if pk is None:
        character, access = new_character(request), Access.EDIT
    else:
        character, access = get_character(request, pk, Access.EDIT)
    form = CharacterForm(request.POST, instance=character, locked=locked_fields(character, access))
    form.is_valid()
    return render(request, "characters/edit.html#preview", editor_context(form))


@login_required
def character_sheet(request, pk: int):
    character, access = get_character(request, pk, Access.VIEW)
    context = sheet_context(character, access, odds_query=request.GET or None)
    template = "characters/sheet.html#odds" if request.htmx else "characters/sheet.html"
    return render(request, template, context)


def sheet_context(character: Character, access: Access, *, odds_query=None, item_form=None):
    levels = character.levels()
    report = character.evaluate()
    load = character.load(levels)
    # A test uses the effective RÖR under load (p. 5); the sheet lists the levels themselves.
    test_levels = levels | {"agility": load["agility"]}
    odds_form = OddsForm(odds_query, levels=test_levels)
    return {
        "character": character,
        "access": access,
        "can_edit": access >= Access.EDIT,
        "is_gm": access >= Access.GM,
        "report": report,
        "saved_dp": character.saved_dp(report),
        "attribute_rows": [{"term": t, "value": levels[t.key]} for t in ATTRIBUTE_TERMS],
        "skill_rows": [{"term": t, "value": levels[t.key]} for t in SKILL_TERMS],
        "secondary_rows": secondary_values(character.secondary(levels)),
        "odds_form": odds_form,
        "odds": odds_for(test_levels, odds_form),
        "items": character.items.all(),
        "load": load,
        "item_form": item_form or ItemForm(),
    }


@login_required
@require_POST
def item_add(request, pk: int):
    """Add equipment from the sheet; htmx swaps the equipment section, others reload."""
    character, access = get_character(request, pk, Access.EDIT)
    form = ItemForm(request.POST, instance=Item(character=character))
    if form.is_valid():
        form.save()
        if not request.htmx:
            return redirect(f"{character.get_absolute_url()}#equipment")
        form = None
    context = sheet_context(character, access, item_form=form)
    if request.htmx:
        return render(request, "characters/sheet.html#equipment", context)
    return render(request, "characters/sheet.html", context, status=400)


@login_required
@require_POST
def item_delete(request, pk: int, item_pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    get_object_or_404(Item, pk=item_pk, character=character).delete()
    if request.htmx:
        context = sheet_context(character, access)
        return render(request, "characters/sheet.html#equipment", context)
    return redirect(f"{character.get_absolute_url()}#equipment")


def odds_for(levels: dict[str, int], form: OddsForm) -> dict | None:
    """TB, GST and P(success) of a success test of the chosen properties (p. 5)."""
    if not form.is_bound or not form.is_valid():
        return None
    keys = form.cleaned_data["properties"]
    test_base = sum(levels[key] for key in keys)
    gst = success.base_threshold(len(keys))
    threshold = form.cleaned_data["threshold"]
    if threshold is None:
        threshold = gst
    hand = success.test_hand(free=form.cleaned_data["free"], forced=form.cleaned_data["forced"])
    chance = success.p_success(hand, test_base, threshold)
    return {
        "test_base": test_base,
        "gst": gst,
        "threshold": threshold,
        "hand": str(hand),
        "percent": float(chance) * 100,
    }


@login_required
def character_delete(request, pk: int):
    character, _access = get_character(request, pk, Access.EDIT)
    if character.owner_id != request.user.pk:
        raise PermissionDenied  # a GM edits a player's character but never deletes it
    if request.method == "POST":
        character.delete()
        messages.success(request, _("%(name)s was deleted.") % {"name": character.name})
        return redirect("characters:list")
    return render(request, "characters/delete.html", {"character": character})


@login_required
@require_POST
def character_gm_notes(request, pk: int):
    """The GM's private notes on a character of their campaign."""
    character, _access = get_character(request, pk, Access.GM)
    character.gm_notes = saved_text(request.POST.get("gm_notes"), max_length=10_000)
    character.save(update_fields=["gm_notes", "updated_at"])
    messages.success(request, _("The notes were saved."))
    return redirect(f"{character.get_absolute_url()}#gm-notes")
