from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters.forms import CharacterForm, OddsForm, issue_message
from characters.models import Character
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
    """One numeric field: the bound field, its UP cost, and what is wrong with it."""
    errors = form.errors.get(key, []) if form.is_bound else []
    return {"key": key, "term": term, "field": form[key], "cost": cost, "errors": errors}


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
    levels = character.levels()
    report = character.evaluate()
    odds_form = OddsForm(request.GET or None, levels=levels)
    context = {
        "character": character,
        "report": report,
        "attribute_rows": [{"term": t, "value": levels[t.key]} for t in ATTRIBUTE_TERMS],
        "skill_rows": [{"term": t, "value": levels[t.key]} for t in SKILL_TERMS],
        "secondary_rows": secondary_rows(report),
        "odds_form": odds_form,
        "odds": odds_for(levels, odds_form),
    }
    template = "characters/sheet.html#odds" if request.htmx else "characters/sheet.html"
    return render(request, template, context)


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
