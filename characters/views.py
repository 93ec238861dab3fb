from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters.forms import CharacterForm, ItemForm, OddsForm, issue_message
from characters.models import Character, Item
from characters.terms import ATTRIBUTE_TERMS, SECONDARY_TERMS, SKILL_TERMS
from rules.aoristos import character as rules
from rules.aoristos import success


def get_own_character(request, pk: int) -> Character:
    """The one access check: a character is seen and edited by its owner only (404 otherwise,
    so others cannot even learn that it exists)."""
    character = get_object_or_404(Character, pk=pk)
    if character.owner_id != request.user.pk:
        raise Http404
    return character


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
    values = report.secondary.as_dict() if report else {}
    return [{"term": term, "value": values.get(term.key)} for term in SECONDARY_TERMS]


@login_required
def character_list(request):
    characters = request.user.characters.all()
    rows = [{"character": c, "report": c.evaluate()} for c in characters]
    return render(request, "characters/list.html", {"rows": rows})


@login_required
def character_create(request):
    form = CharacterForm(request.POST or None, instance=Character(owner=request.user))
    if request.method == "POST" and form.is_valid():
        character = form.save()
        messages.success(request, _("%(name)s was created.") % {"name": character.name})
        return redirect(character)
    status = 400 if form.is_bound else 200
    return render(request, "characters/edit.html", editor_context(form), status=status)


@login_required
def character_edit(request, pk: int):
    character = get_own_character(request, pk)
    form = CharacterForm(request.POST or None, instance=character)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("%(name)s was saved.") % {"name": character.name})
        return redirect(character)
    status = 400 if form.is_bound else 200
    return render(request, "characters/edit.html", editor_context(form), status=status)


@login_required
@require_POST
def character_preview(request):
    """Live check while a build is typed: UP, secondary values and warnings, as htmx swaps."""
    form = CharacterForm(request.POST, instance=Character(owner=request.user))
    form.is_valid()
    return render(request, "characters/edit.html#preview", editor_context(form))


@login_required
def character_sheet(request, pk: int):
    character = get_own_character(request, pk)
    context = sheet_context(character, odds_query=request.GET or None)
    template = "characters/sheet.html#odds" if request.htmx else "characters/sheet.html"
    return render(request, template, context)


def sheet_context(character: Character, *, odds_query=None, item_form=None) -> dict:
    levels = character.levels()
    report = character.evaluate()
    load = character.load()
    # A test uses the effective RÖR under load (p. 5); the sheet lists the bought levels.
    test_levels = levels | {"agility": load["agility"]}
    odds_form = OddsForm(odds_query, levels=test_levels)
    return {
        "character": character,
        "report": report,
        "attribute_rows": [{"term": t, "value": levels[t.key]} for t in ATTRIBUTE_TERMS],
        "skill_rows": [{"term": t, "value": levels[t.key]} for t in SKILL_TERMS],
        "secondary_rows": secondary_rows(report),
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
    character = get_own_character(request, pk)
    form = ItemForm(request.POST, instance=Item(character=character))
    if form.is_valid():
        form.save()
        if not request.htmx:
            return redirect(f"{character.get_absolute_url()}#equipment")
        form = None
    context = sheet_context(character, item_form=form)
    if request.htmx:
        return render(request, "characters/sheet.html#equipment", context)
    return render(request, "characters/sheet.html", context, status=400)


@login_required
@require_POST
def item_delete(request, pk: int, item_pk: int):
    character = get_own_character(request, pk)
    get_object_or_404(Item, pk=item_pk, character=character).delete()
    if request.htmx:
        return render(request, "characters/sheet.html#equipment", sheet_context(character))
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
    character = get_own_character(request, pk)
    if request.method == "POST":
        character.delete()
        messages.success(request, _("%(name)s was deleted.") % {"name": character.name})
        return redirect("characters:list")
    return render(request, "characters/delete.html", {"character": character})
