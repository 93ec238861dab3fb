"""The campaign's catalogue of weapons and armour: the rule system's starter entries, each
number with its source (a page of the text, or a house default), and what the GM adds or
changes for this campaign (a GM entry with a starter's key replaces it here)."""

import functools

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign
from combat.models import CatalogueItem
from combat.services import catalogue
from combat.templatetags.aoristos_combat import term
from rules.engine import engine_for
from rules.errors import RulesError

SKILLS = ("brawling", "melee_weapons", "firearms", "bow", "sling", "throwing", "blowpipe")
AREAS = ("head", "torso", "right_arm", "left_arm", "right_leg", "left_leg")


# An entry is changed by saving one with its name: the key, the code's name for it, is
# made from the name (issue 26: the page showed keys like "assault_carbine").
KEY_HELP = gettext_lazy("Leave empty: made from the name; an entry with the same name is "
                        "changed.")


def skill_choices():
    return [(s, term(s)) for s in SKILLS]


class WeaponForm(forms.Form):
    key = forms.SlugField(label=gettext_lazy("Key"), max_length=40, required=False,
                          help_text=KEY_HELP)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    skill = forms.ChoiceField(label=gettext_lazy("Skill"), choices=skill_choices)
    real = forms.BooleanField(label=gettext_lazy("Real weapon (p. 8)"), required=False,
                              initial=True)
    strength = forms.IntegerField(label=gettext_lazy("Strength"), initial=0, min_value=-99,
                                  max_value=999)
    hands = forms.ChoiceField(label=gettext_lazy("Hands"),
                              choices=[("1", "1"), ("2", "2"), ("1,2", "1/2")])
    windup = forms.IntegerField(label="UL", initial=0, min_value=0, max_value=99)
    reload = forms.IntegerField(label="OL", required=False, min_value=0, max_value=99)
    reload_each = forms.IntegerField(label=gettext_lazy("OL per cartridge (n)"),
                                     required=False, min_value=1, max_value=99)
    fire_modes = forms.CharField(label=gettext_lazy("Fire modes"), initial="1", max_length=40)
    magazine = forms.IntegerField(label="MS", required=False, min_value=1, max_value=999)
    chambered = forms.BooleanField(label="+1", required=False)
    max_shots = forms.IntegerField(label="max", required=False, min_value=1, max_value=999)
    ranged = forms.BooleanField(label=gettext_lazy("Ranged"), required=False)
    thrown = forms.BooleanField(label=gettext_lazy("Thrown"), required=False)
    contact = forms.BooleanField(label=gettext_lazy("Contact (adds FYS)"), required=False)
    firearm = forms.ChoiceField(label=gettext_lazy("Firearm"), required=False,
                                choices=[("", "–"), ("short", gettext_lazy("short")),
                                         ("long", gettext_lazy("long"))])
    range_categories = forms.MultipleChoiceField(
        label=gettext_lazy("Range categories (p. 10)"), required=False,
        choices=[("improvised", gettext_lazy("improvised")), ("thrown", gettext_lazy("thrown")),
                 ("heavy_or_long", gettext_lazy("heavy crossbow or long firearm")),
                 ("rifled", gettext_lazy("rifled barrel"))],
        widget=forms.CheckboxSelectMultiple)
    bow_strength = forms.IntegerField(label=gettext_lazy("Bow strength"), required=False,
                                      min_value=0, max_value=99)
    laser_sight = forms.BooleanField(label=gettext_lazy("Laser sight"), required=False)
    scope = forms.BooleanField(label=gettext_lazy("Scope"), required=False)
    explosive = forms.BooleanField(label=gettext_lazy("Explosive (no area)"), required=False)
    weapon_bulk = forms.DecimalField(label="VV", initial=0, min_value=0, max_value=999,
                                     decimal_places=1)
    magazine_bulk = forms.DecimalField(label="MV", initial=0, min_value=0, max_value=999,
                                       decimal_places=1)

    def item(self) -> dict:
        data = dict(self.cleaned_data)
        data["hands"] = [int(h) for h in data["hands"].split(",")]
        data["range_categories"] = list(data["range_categories"])
        data["firearm"] = data["firearm"] or None
        data["weapon_bulk"] = float(data["weapon_bulk"])
        data["magazine_bulk"] = float(data["magazine_bulk"])
        data["sources"] = []
        return {k: v for k, v in data.items() if v is not None or k == "firearm"}


class ArmourForm(forms.Form):
    key = forms.SlugField(label=gettext_lazy("Key"), max_length=40, required=False,
                          help_text=KEY_HELP)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    shield = forms.BooleanField(label=gettext_lazy("Shield (p. 8)"), required=False)
    bulk = forms.DecimalField(label="FP", initial=0, min_value=0, max_value=999,
                              decimal_places=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for area in AREAS:
            self.fields[f"area_{area}"] = forms.IntegerField(
                label=area, required=False, min_value=0, max_value=999)

    def item(self) -> dict:
        data = self.cleaned_data
        areas = [[area, data[f"area_{area}"]] for area in AREAS if data.get(f"area_{area}")]
        return {"key": data["key"], "name": data["name"], "shield": data["shield"],
                "bulk": float(data["bulk"]), "areas": areas, "sources": []}


# Aoristos's catalogue forms are made by hand (its weapons have many parts); another
# engine describes its forms as data (`catalogue_fields`) and `SpecForm` builds them.
FORMS = {"weapon": WeaponForm, "armour": ArmourForm}


class SpecForm(forms.Form):
    """A catalogue form made from an engine's field list (see PhobiaCombat.catalogue_fields):
    each field with its label, bounds or choices; `item()` is the dict the engine reads."""

    def __init__(self, *args, spec=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = list(spec)
        for field in self.spec:
            key, kind = field["key"], field["kind"]
            label = gettext_lazy(field.get("label", key))
            if kind == "areas":
                for area, name in field["choices"]:
                    self.fields[f"{key}_{area}"] = forms.IntegerField(
                        label=name, required=False, min_value=field.get("minimum", 0),
                        max_value=field.get("maximum", 999))
                continue
            common = {"label": label, "initial": field.get("initial")}
            if kind == "slug":
                made = forms.SlugField(max_length=40, required=False, help_text=KEY_HELP,
                                       **common)
            elif kind == "text":
                made = forms.CharField(max_length=100, **common)
            elif kind == "int":
                made = forms.IntegerField(min_value=field.get("minimum"),
                                          max_value=field.get("maximum"), **common)
            elif kind == "choice":
                made = forms.ChoiceField(choices=[tuple(c) for c in field["choices"]], **common)
            else:
                made = forms.BooleanField(required=False, **common)
            self.fields[key] = made

    def item(self) -> dict:
        data = self.cleaned_data
        item: dict = {}
        for field in self.spec:
            key = field["key"]
            if field["kind"] == "areas":
                item[key] = [[area, data[f"{key}_{area}"]] for area, _name in field["choices"]
                             if data.get(f"{key}_{area}")]
            else:
                item[key] = data[key]
        return item


def forms_for(engine) -> dict:
    """The catalogue's form class per kind for `engine`, each taking (data, prefix=)."""
    spec = getattr(engine, "catalogue_fields", None)
    if spec is None:
        return FORMS
    return {kind: functools.partial(SpecForm, spec=fields) for kind, fields in spec().items()}


def key_for(name: str, entries: dict) -> str:
    """The key of a new entry named `name`: the key of the entry of that name (the GM
    changes it), else one made from the name that no other entry has."""
    for key, item in entries.items():
        if item.name.casefold() == name.strip().casefold():
            return key
    # snake_case, as the engines want their keys: "Kortkarbin Ö" -> "kortkarbin_o".
    base = slugify(name).replace("-", "_")[:36].strip("_")
    if not base[:1].isalpha():
        base = f"item_{base}".rstrip("_")
    key, n = base, 1
    while key in entries:
        n += 1
        key = f"{base}_{n}"
    return key


def rows(items: dict, own: dict[tuple[str, str], int], spec=None) -> dict[str, list]:
    """The catalogue's entries per kind, by name; with an engine's field list (`spec`),
    `shown` gives each choice field's label and each area's name."""
    out = {}
    for kind, entries in items.items():
        fields = (spec or {}).get(kind, ())
        out[kind] = [
            {"item": item, "own": own.get((kind, key)),
             "text": sorted({src for _f, src in item.sources if src != "house"}),
             "shown": shown(item, fields)}
            for key, item in sorted(entries.items(), key=lambda pair: pair[1].name)
        ]
    return out


def shown(item, fields) -> dict:
    """An item's choice values by their labels, and its areas as (name, value) pairs."""
    out = {}
    for field in fields:
        names = dict(map(tuple, field.get("choices", ())))
        value = getattr(item, field["key"], None)
        if field["kind"] == "choice":
            out[field["key"]] = names.get(value, value)
        elif field["kind"] == "areas":
            out[field["key"]] = [(names.get(area, area), n) for area, n in value or ()]
    return out


@login_required
def catalogue_page(request, pk: int):
    campaign, membership = get_campaign(request, pk)
    try:
        engine = engine_for(campaign.rule_system)
    except RulesError:
        raise Http404 from None
    form_classes = forms_for(engine)
    kind = request.POST.get("kind") or request.GET.get("kind") or "weapon"
    if kind not in form_classes:
        kind = "weapon"
    forms_ = {name: cls(prefix=name) for name, cls in form_classes.items()}
    status = 200
    if request.method == "POST":
        if not membership.is_gm:
            raise PermissionDenied
        form = form_classes[kind](request.POST, prefix=kind)
        forms_[kind] = form
        if form.is_valid():
            data = form.item()
            if not data.get("key"):
                data["key"] = key_for(data["name"], catalogue(campaign.pk, engine).get(kind, {}))
            try:
                engine.item_from_dict(kind, data)
            except RulesError as error:
                form.add_error(None, str(error))
            else:
                CatalogueItem.objects.update_or_create(
                    campaign=campaign, kind=kind, key=data["key"], defaults={"data": data}
                )
                saved = _("%(name)s is in the catalogue.") % {"name": data["name"]}
                messages.success(request, saved)
                return redirect("combat:catalogue", pk=campaign.pk)
        status = 400
    own = {
        (kind_, key): item_pk
        for item_pk, kind_, key in CatalogueItem.objects.filter(campaign=campaign).values_list(
            "pk", "kind", "key"
        )
    }
    context = {
        "campaign": campaign,
        "membership": membership,
        "rows": rows(catalogue(campaign.pk, engine), own,
                     getattr(engine, "catalogue_fields", dict)()),
        "forms": forms_,
        "items_template": f"{engine.template}/_catalogue.html",
    }
    return render(request, "combat/catalogue.html", context, status=status)


@login_required
@require_POST
def catalogue_delete(request, pk: int, item_pk: int):
    campaign, _membership = get_campaign(request, pk, gm=True)
    get_object_or_404(CatalogueItem, pk=item_pk, campaign=campaign).delete()
    return redirect("combat:catalogue", pk=campaign.pk)
