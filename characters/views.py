from decimal import Decimal
from fractions import Fraction

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import Access, get_campaign, get_character
from campaigns.models import AVAILABLE_SYSTEMS, RuleSystem
from characters.body import body_context
from characters.damage import damage_context
from characters.entered import IDENTITY_FIELDS as ENTERED_IDENTITY
from characters.entered import EnteredForm, derived_rows, house_of, issue_text
from characters.forms import CharacterForm, ItemForm, OddsForm, issue_message
from characters.models import Character, Item
from characters.roller import roller_context
from characters.terms import ATTRIBUTE_TERMS, SECONDARY_TERMS, SKILL_TERMS, test_label
from core.params import ParamError, saved_text, strict_id
from rules.aoristos import character as rules
from rules.aoristos import success


def locked_fields(character: Character, access: Access) -> set[str]:
    """Fields the editor may not change. In a campaign the level cap is the campaign's
    (the GM changes it in the campaign's settings, for every character at once: see
    campaigns.services) and the GM sets the UP budget; once UP have been spent through the
    ledger the build is history, and only the GM may correct it."""
    locked = {"level_cap"} if character.campaign_id else set()
    if access >= Access.GM:
        return locked
    if character.campaign_id:
        locked |= {"dp_budget"}
    if character.pk and character.ledger.exists():
        locked |= set(CharacterForm.NUMBER_FIELDS)
    return locked


IDENTITY_FIELDS = ("name", "concept", "notes")


def field_row(form: CharacterForm, key: str, term=None, *, report=None, quiet=False) -> dict:
    """One field of the builder: the bound field, what is wrong with it and, for a level,
    its UP cost and the price of its next level (p. 3: a skill's next level costs its
    current level), from the value the totals use (the last valid one while it is wrong).

    ``quiet``: an empty required field is not marked; the live check keeps quiet about a
    name not yet typed until a save has been tried."""
    if form.is_bound:
        errors = form.errors.get(key, [])
        if quiet and form.has_error(key, "required"):
            errors = []
        level = form.values.get(key)
    else:
        level = form[key].initial
        errors = [] if report is None else issue_errors(report, key)
    cost = next_cost = None
    if term is not None and report is not None:
        cost = report.attribute_costs.get(key, report.skill_costs.get(key))
    if term is not None and level is not None and level < rules.MAX_LEVEL:
        step = rules.attribute_step_cost if key in rules.ATTRIBUTES else rules.skill_step_cost
        next_cost = step(level + 1)
    return {
        "key": key,
        "term": term,
        "field": form[key],
        "cost": cost,
        "next_cost": next_cost,
        "errors": list(errors),
    }


def issue_errors(report: rules.BuildReport, key: str) -> list[str]:
    """A saved build's rule issues on one field (a cap lowered since it was built)."""
    return [issue_message(i) for i in report.issues if i.field == key and i.code != "over_budget"]


def build_problems(report: rules.BuildReport | None) -> list[str]:
    """What is wrong with the build as a whole rather than one field: over budget."""
    if report is None:
        return []
    return [issue_message(i) for i in report.issues if i.code == "over_budget"]


def save_problems(form: CharacterForm, rows: list[dict]) -> list[dict]:
    """The refused save's list, in page order: each wrong field with a link to it, then
    the build's own problems with a link to the totals."""
    problems = [
        {
            "anchor": row["field"].auto_id,
            "label": row["field"].label,
            "message": " ".join(row["errors"]),
        }
        for row in rows
        if row["errors"]
    ]
    problems += [{"anchor": "summary", "label": "", "message": m} for m in form.non_field_errors()]
    return problems


def editor_context(form: CharacterForm, *, live: bool = False, after_save: bool = True) -> dict:
    """The builder page, or with ``live`` the preview's pieces. ``after_save``: a save
    was refused on this page, so every problem is shown and the "Not saved" list kept."""
    character = form.instance
    report = form.report if form.is_bound else character.evaluate()
    quiet = live and not after_save
    identity_rows = [field_row(form, key, quiet=quiet) for key in IDENTITY_FIELDS]
    limit_rows = [field_row(form, key, report=report) for key in ("dp_budget", "level_cap")]
    attribute_rows = [field_row(form, t.key, t, report=report) for t in ATTRIBUTE_TERMS]
    skill_rows = [field_row(form, t.key, t, report=report) for t in SKILL_TERMS]
    status_rows = identity_rows + limit_rows + attribute_rows + skill_rows
    # The "Not saved" list: on a refused save's page, and kept current by the live check
    # on that page (emptied and hidden once everything is fixed).
    show_problems = after_save if live else form.is_bound
    problems = save_problems(form, status_rows) if show_problems and form.errors else []
    focus_summary = bool(problems) and not live and not any(row["errors"] for row in status_rows)
    if problems and not live and not focus_summary:
        # The first wrong field takes the focus when the refused page loads.
        first = next(row for row in status_rows if row["errors"])
        first["field"].field.widget.attrs["autofocus"] = True
    ledger_sum = character.ledger_sum() if report else 0
    return {
        "form": form,
        "character": character if character.pk else None,
        "report": report,
        "budget": form.values.get("dp_budget") if form.is_bound else character.dp_budget,
        "ledger_sum": ledger_sum,
        "saved_dp": report.dp_left + ledger_sum if report else None,
        "build_problems": build_problems(report),
        "field_problems": sum(1 for row in status_rows if row["errors"]),
        "identity_rows": identity_rows,
        "limit_rows": limit_rows,
        "attribute_rows": attribute_rows,
        "skill_rows": skill_rows,
        "status_rows": status_rows,
        "secondary_rows": secondary_rows(report),
        "problems": problems,
        "show_problems": show_problems,
        "focus_summary": focus_summary,
    }


def secondary_rows(report: rules.BuildReport | None) -> list[dict]:
    return secondary_values(report.secondary) if report else []


def secondary_values(secondary: rules.Secondary) -> list[dict]:
    values = secondary.as_dict()
    return [{"term": term, "value": values[term.key]} for term in SECONDARY_TERMS]


@login_required
def character_list(request):
    characters = request.user.characters.select_related("campaign")
    rows = [
        {"character": c, "report": c.evaluate()}
        if c.system.builder == "points"
        else {"character": c, "report": None, "derived": derived_rows(c)[:3]}
        for c in characters
    ]
    # A new account (a GM's, most often) in no campaign is shown how to start or join one.
    in_a_campaign = request.user.memberships.exists()
    return render(request, "characters/list.html", {"rows": rows, "in_a_campaign": in_a_campaign})


def new_character(request) -> Character:
    """A new character for the user; with ?campaign=ID, in that campaign with its rule
    system, UP and cap; else of ?system=NAME (default Aoristos)."""
    character = Character(owner=request.user)
    campaign_id = strict_id(request.GET.get("campaign"), name="campaign")
    if campaign_id is not None:
        campaign, _membership = get_campaign(request, campaign_id)
        character.campaign = campaign
        character.rule_system = campaign.rule_system
        character.dp_budget = campaign.starting_dp
        character.level_cap = campaign.level_cap
    else:
        system = request.GET.get("system") or RuleSystem.AORISTOS
        if system not in AVAILABLE_SYSTEMS:
            raise ParamError(_("There is no rule system “%(name)s” to make a character for.")
                             % {"name": system})
        character.rule_system = system
    if character.system.builder == "entered":  # start from the system's own defaults
        character.attributes = {stat.key: stat.default for stat in character.system.attributes}
        character.skills = {stat.key: stat.default for stat in character.system.skills}
    return character


def entered_editor(request, character: Character, *, message: str):
    """Create or edit a character of a system whose values are entered (characters.entered)."""
    form = EnteredForm(request.POST or None, instance=character)
    if request.method == "POST" and form.is_valid():
        character = form.save(by=request.user)
        messages.success(request, message % {"name": character.name})
        return redirect(character)
    status = 400 if form.is_bound else 200
    return render(request, "characters/entered_edit.html", entered_context(form), status=status)


def entered_context(form: EnteredForm) -> dict:
    character = form.instance

    def rows(group):
        return [{"stat": stat, "field": form[stat.key]} for stat in group]

    problems = [
        {"anchor": form[key].auto_id, "label": form[key].label, "message": " ".join(errors)}
        for key, errors in form.errors.items()
        if key in form.fields
    ]
    problems += [{"anchor": "summary", "label": "", "message": m} for m in form.non_field_errors()]
    attributes, skills = form.system.stats(form.house)
    return {
        "form": form,
        "system": form.system,
        "character": character if character.pk else None,
        "identity_rows": [form[key] for key in ENTERED_IDENTITY],
        "attribute_rows": rows(attributes),
        "skill_rows": rows(skills),
        "derived": derived_rows(character, form.values()),
        "problems": problems,
    }


@login_required
def character_create(request):
    character = new_character(request)
    if character.system.builder == "entered":
        return entered_editor(request, character, message=_("%(name)s was created."))
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
    if character.system.builder == "entered":
        return entered_editor(request, character, message=_("%(name)s was saved."))
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
    """Live check while a build is typed: the totals, and each field's cost and errors as
    out-of-band swaps. Nothing is saved. The builder's script sends ``fallback-<field>``
    (the last valid value of a field now wrong) and ``after-save`` (a save was refused on
    the page: show every problem and keep the "Not saved" list up to date)."""
    if pk is None:
        character, access = new_character(request), Access.EDIT
    else:
        character, access = get_character(request, pk, Access.EDIT)
    if character.system.builder == "entered":
        form = EnteredForm(request.POST, instance=character)
        form.is_valid()
        return render(request, "characters/entered_edit.html#preview", entered_context(form))
    form = CharacterForm(request.POST, instance=character, locked=locked_fields(character, access))
    form.is_valid()
    after_save = request.POST.get("after-save") == "1"
    context = editor_context(form, live=True, after_save=after_save)
    context["preview_rows"] = changed_rows(context["status_rows"], request.POST.get("changed"))
    return render(request, "characters/edit.html#preview", context)


def changed_rows(rows: list[dict], changed: str | None) -> list[dict]:
    """The fields whose cost, price or errors may differ from what the page shows, so the
    answer to a click carries one field rather than 31. A field's status depends on its
    own value and on the level cap only; without ``changed`` (or with the cap, or with a
    name the form does not have) every field is sent."""
    keys = set((changed or "").split(",")) - {""}
    known = {row["key"] for row in rows}
    if not keys or "level_cap" in keys or not keys <= known:
        return rows
    return [row for row in rows if row["key"] in keys]


@login_required
def character_sheet(request, pk: int):
    character, access = get_character(request, pk, Access.VIEW)
    own = character.owner_id == request.user.pk
    if character.system.builder == "entered":
        response = render(request, "characters/entered_sheet.html",
                          {**entered_sheet_context(character, access), "own_sheet": own})
    else:
        context = sheet_context(character, access, odds_query=request.GET or None)
        template = "characters/sheet.html#odds" if request.htmx else "characters/sheet.html"
        response = render(request, template, {**context, "own_sheet": own})
    if own and not request.htmx:
        # The site's service worker keeps a player's own sheet to read offline (issue 47;
        # core/views.py's service_worker): this says which sheets are the reader's own.
        response["X-Own-Sheet"] = "1"
    return response


def entered_sheet_context(character: Character, access: Access, *, item_form=None) -> dict:
    """The sheet of an entered system's character: its values, derived values with their
    formulas, what was rolled when it was made, what its campaign's house rules say of
    it, and the damage rows its system's engine draws (`characters.damage`)."""
    values = character.values()
    system = character.system
    house = house_of(character)
    attributes, skills = system.stats(house)
    return {
        "character": character,
        "system": system,
        "access": access,
        "can_edit": access >= Access.EDIT,
        "is_gm": access >= Access.GM,
        "attribute_rows": [{"stat": s, "value": values[s.key]} for s in attributes],
        "skill_groups": skill_groups(attributes, skills, values),
        "derived": derived_rows(character),
        "issues": [issue_text(issue) for issue in system.check(values, house)],
        "damage": damage_context(character, house),
        "impressions": impressions(character, access) if system.carries else None,
        **entered_equipment(character, access, values, house, item_form),
    }


def impressions(character: Character, access: Access) -> list[dict]:
    """The social carries kept for the character's pairs (T10), from the table's log."""
    if not character.campaign_id:
        return []
    from table.services import impressions as table_impressions  # the table builds on us

    return table_impressions(character, is_gm=access >= Access.GM)


def skill_groups(attributes, skills, values) -> list[dict]:
    """The skills as the sheet lists them: under the attribute each sorts under (T10's
    abilities, named as the campaign names them), or in one group when they sort under
    none (Phobia)."""
    terms = {stat.key: stat.term for stat in attributes}
    groups: dict[str, dict] = {}
    for stat in skills:
        group = groups.setdefault(stat.group, {"term": terms.get(stat.group), "rows": []})
        group["rows"].append({"stat": stat, "value": values[stat.key]})
    return list(groups.values())


def entered_equipment(character, access, values, house, item_form=None) -> dict:
    """An entered system's equipment: the items (one query), what they weigh against what
    the character can carry (``RuleSystem.carrying``) and, for its editors, the add form
    (with the campaign's catalogue, read only then)."""
    items = list(character.items.all())
    carried = sum((item.total_bulk for item in items), Decimal("0"))
    carrying = character.system.carrying(values, character.rolled, house, Fraction(carried))
    if item_form is None and access >= Access.EDIT:
        item_form = ItemForm(catalogue=item_catalogue(character), unit="kg")
    terms = {stat.key: stat.term for stat in character.system.attributes + character.system.skills}
    return {
        "items": items,
        "carrying": carrying,
        "hindered": [terms[key].short for key in carrying.hinders if key in terms]
        if carrying else [],
        "item_form": item_form,
    }


def item_catalogue(character: Character) -> dict:
    """The weapons and armour a character can take from its campaign's catalogue."""
    from combat.services import character_catalogue  # combat builds on characters

    return character_catalogue(character)


def sheet_context(character: Character, access: Access, *, odds_query=None, item_form=None):
    """The sheet. With roll rights (the owner, or the GM of the character's campaign, at
    that campaign's table) the test helper becomes the roller: tap properties, see the
    chance, roll at the table (``table.sheet``), and the character's favourite tests."""
    levels = character.levels()
    report = character.evaluate()
    load = character.load(levels)
    # A test uses the effective RÖR under load; the sheet lists the levels themselves.
    test_levels, odds_form, odds = sheet_test(character, odds_query, levels=levels, load=load)
    can_roll = access >= Access.EDIT and character.campaign_id is not None
    items = character.items.all()  # read once, by whichever of the page's parts comes first
    catalogue = item_catalogue(character) if access >= Access.EDIT and item_form is None else None
    context = {
        "character": character,
        "access": access,
        "can_edit": access >= Access.EDIT,
        "is_gm": access >= Access.GM,
        "can_roll": can_roll,
        "report": report,
        "saved_dp": character.saved_dp(report),
        "attribute_rows": [{"term": t, "value": levels[t.key]} for t in ATTRIBUTE_TERMS],
        "skill_rows": [{"term": t, "value": levels[t.key]} for t in SKILL_TERMS],
        "secondary_rows": secondary_values(character.secondary(levels)),
        "test_levels": test_levels,
        "odds_form": odds_form,
        "odds": odds,
        "items": items,
        "load": load,
        "item_form": item_form or ItemForm(catalogue=catalogue),
        # Read only where the page shows it (not for the odds or the equipment alone).
        "body": SimpleLazyObject(lambda: sheet_body(character, access, items, catalogue)),
    }
    if can_roll:
        context |= roller_context(character, odds_form, test_levels)
        # The table's own dice (issue 48): the roller's keypad, for the roller's role.
        own = character.campaign.own_dice_of(gm=access >= Access.GM)
        context |= {"own_dice": own, "die_faces": range(1, 7)}
        if own and odds:
            context["keypad_dice"] = odds["dice_hand"].dice_count
    return context


def sheet_body(character: Character, access: Access, items, catalogue) -> dict:
    """The sheet's body section (`characters.body`): everyone who sees the sheet sees it.
    The catalogue is read for the armour only when the character carries some from it."""
    if catalogue is None and any(item.catalogue.startswith("armour:") for item in items):
        catalogue = item_catalogue(character)
    return body_context(character, items, catalogue or {}, is_gm=access >= Access.GM)


@login_required
@require_POST
def item_add(request, pk: int):
    """Add equipment from the sheet; htmx swaps the equipment section, others reload."""
    character, access = get_character(request, pk, Access.EDIT)
    entered = character.system.builder == "entered"
    form = ItemForm(
        request.POST, instance=Item(character=character), catalogue=item_catalogue(character),
        unit="kg" if entered else "FP",
    )
    if form.is_valid():
        form.save()
        if not request.htmx:
            return redirect(f"{character.get_absolute_url()}#equipment")
        form = None
    if entered:
        template = "characters/entered_sheet.html"
        context = entered_sheet_context(character, access, item_form=form)
    else:
        template = "characters/sheet.html"
        context = sheet_context(character, access, item_form=form)
    if request.htmx:
        return render(request, f"{template}#equipment", context)
    return render(request, template, context, status=400)


@login_required
@require_POST
def item_delete(request, pk: int, item_pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    get_object_or_404(Item, pk=item_pk, character=character).delete()
    if request.htmx and character.system.builder == "entered":
        context = entered_sheet_context(character, access)
        return render(request, "characters/entered_sheet.html#equipment", context)
    if request.htmx:
        context = sheet_context(character, access)
        return render(request, "characters/sheet.html#equipment", context)
    return redirect(f"{character.get_absolute_url()}#equipment")


def sheet_test(character: Character, query, *, levels=None, load=None):
    """The sheet's success test from `query` (its properties, F, T and own ST): the levels
    a test uses (RÖR under load, p. 5), the bound OddsForm, and ``odds_for`` it. The sheet
    and a roll or favourite from it (``table.sheet``) read it the same way."""
    test_levels = character.test_levels(levels, load)
    form = OddsForm(query, levels=test_levels)
    return test_levels, form, odds_for(test_levels, form)


def odds_for(levels: dict[str, int], form: OddsForm) -> dict | None:
    """TB, GST and P(success) of a success test of the chosen properties (p. 5), and what
    rolling it needs (``keys``, ``dice_hand``, ``label``). None until a property is chosen."""
    if not form.is_bound or not form.is_valid() or not form.cleaned_data["properties"]:
        return None
    keys = form.cleaned_data["properties"]
    data = form.cleaned_data
    test = success.plan_test(
        levels, keys, free=data["free"], forced=data["forced"], threshold=data["threshold"]
    )
    return {
        "keys": keys,
        "label": test_label(keys),
        "test_base": test.test_base,
        "gst": test.gst,
        "threshold": test.threshold,
        "hand": str(test.hand),
        "dice_hand": test.hand,
        "percent": float(success.p_success(test.hand, test.test_base, test.threshold)) * 100,
    }


@login_required
def character_delete(request, pk: int):
    character, _access = get_character(request, pk, Access.EDIT)
    if character.owner_id != request.user.pk:
        raise PermissionDenied  # a GM edits a player's character but never deletes it
    if request.method == "POST":
        with transaction.atomic():
            # An undo protects the spend it undid (DpEntry.undoes): the undos go first.
            character.ledger.filter(undoes__isnull=False).delete()
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
