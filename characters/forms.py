from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from characters.models import Character, Item
from characters.terms import ATTRIBUTE_TERMS, SKILL_TERMS, label
from rules import RulesError
from rules.aoristos import character as rules


def level_field(initial: int) -> forms.IntegerField:
    return forms.IntegerField(
        min_value=rules.MIN_LEVEL,
        max_value=rules.MAX_LEVEL,
        initial=initial,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "level"}),
    )


def issue_message(issue: rules.BuildIssue) -> str:
    """The rules core's issue codes in the reader's language."""
    params = dict(issue.params)
    if issue.code == "over_budget":
        over = params["spent"] - params["budget"]
        return ngettext(
            "%(spent)s UP spent of %(budget)s: %(over)s point over budget.",
            "%(spent)s UP spent of %(budget)s: %(over)s points over budget.",
            over,
        ) % {"spent": params["spent"], "budget": params["budget"], "over": over}
    if issue.code == "above_level_cap":
        return _("Level %(level)s is above the level cap %(cap)s.") % params
    return issue.message


class CharacterForm(forms.ModelForm):
    """Name, budget and every level of a build; clean() re-validates it against the rules."""

    NUMBER_FIELDS = ("dp_budget", "level_cap") + rules.ATTRIBUTES + rules.SKILLS

    dp_budget = forms.IntegerField(
        label=_("UP budget"),
        min_value=0,
        max_value=rules.MAX_DP_BUDGET,
        help_text=_("15 for an everyday adult, up to 50 for a budding epic adventurer (p. 2)."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "level"}),
    )
    level_cap = forms.IntegerField(
        label=_("Level cap"),
        min_value=0,
        max_value=rules.MAX_LEVEL,
        help_text=_("5 is the realistic human maximum (p. 3); raise it only with the GM."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "level"}),
    )

    class Meta:
        model = Character
        fields = ("name", "concept", "notes", "dp_budget", "level_cap")
        widgets = {"notes": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args, locked: set[str] = frozenset(), **kwargs):
        super().__init__(*args, **kwargs)
        character = self.instance
        for term in ATTRIBUTE_TERMS:
            self.fields[term.key] = level_field(character.attribute(term.key))
            self.fields[term.key].label = label(term.key)
        for term in SKILL_TERMS:
            self.fields[term.key] = level_field(character.skill(term.key))
            self.fields[term.key].label = label(term.key)
        for name in locked:  # disabled fields keep the instance's value whatever is posted
            self.fields[name].disabled = True
        self.locked = set(locked)
        # Every number field's value for the totals, and the build priced from them: set by
        # clean() even when some fields are wrong, so the totals never vanish.
        self.values: dict[str, int] = {}
        self.report: rules.BuildReport | None = None

    def fallback(self, name: str) -> int:
        """The value the totals use while ``name`` is empty or wrong: the last valid value
        the page sent as ``fallback-<name>`` (the builder's script keeps it), else the
        saved or initial one. The fallback is checked like the field itself."""
        field = self.fields[name]
        initial = self.get_initial_for_field(field, name)
        raw = self.data.get(f"fallback-{name}")
        if raw is None or field.disabled:
            return initial
        try:
            value = field.clean(raw)
        except forms.ValidationError:
            return initial
        return initial if value is None else value

    def clean(self):
        cleaned = super().clean()
        # A field's own error (empty, not a number, out of bounds) is marked beside it;
        # the totals go on from its last valid value meanwhile.
        self.values = {
            name: cleaned[name] if name in cleaned else self.fallback(name)
            for name in self.NUMBER_FIELDS
        }
        try:
            self.report = rules.evaluate_build(
                {key: self.values[key] for key in rules.ATTRIBUTES},
                {key: self.values[key] for key in rules.SKILLS},
                self.values["dp_budget"],
                self.values["level_cap"],
            )
        except RulesError as error:  # the field bounds above should make this unreachable
            raise forms.ValidationError(str(error)) from error
        for issue in self.report.issues:
            if issue.code == "over_budget":
                # The whole build is over, not the budget field: a build-level error.
                self.add_error(None, issue_message(issue))
            elif issue.field not in self.errors:
                self.add_error(issue.field, issue_message(issue))
        return cleaned

    def save(self, commit=True):
        character = super().save(commit=False)
        character.attributes = {key: self.cleaned_data[key] for key in rules.ATTRIBUTES}
        character.skills = {key: self.cleaned_data[key] for key in rules.SKILLS}
        if commit:
            character.save()
        return character


class OddsForm(forms.Form):
    """The sheet's probability helper: which properties form the TB, and the hand's extras."""

    properties = forms.MultipleChoiceField(
        label=_("Properties in the TB"), required=False, widget=forms.CheckboxSelectMultiple
    )
    free = forms.IntegerField(
        label=_("Free dice (F)"), min_value=0, max_value=5, required=False, initial=0
    )
    forced = forms.IntegerField(
        label=_("Forced dice (T)"), min_value=0, max_value=5, required=False, initial=0
    )
    threshold = forms.IntegerField(
        label=_("ST"), min_value=0, max_value=999, required=False, help_text=_("empty: GST")
    )

    def __init__(self, *args, levels: dict[str, int], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["properties"].choices = [
            (key, f"{label(key)} {level}") for key, level in levels.items()
        ]

    def clean_free(self):
        return self.strict_int("free") or 0

    def clean_forced(self):
        return self.strict_int("forced") or 0

    def clean_threshold(self):
        return self.strict_int("threshold")

    def strict_int(self, name: str) -> int | None:
        """The field's number, typed in ASCII digits (core.params: "٣" or "²" is no number
        here, though Python's int() reads the first)."""
        value = self.cleaned_data[name]
        raw = str(self.data.get(self.add_prefix(name), "")).strip()
        if value is not None and not (raw.isascii() and raw.isdigit()):
            raise forms.ValidationError(_("Enter a whole number."), code="invalid")
        return value


class ItemForm(forms.ModelForm):
    """An item by hand, or from the catalogue of the character's campaign (weapons and
    armour the combat engine reads): then name and FP may be left empty and come from the
    catalogue (a weapon loaded: VV + MV, p. 5)."""

    class Meta:
        model = Item
        fields = ("catalogue", "name", "bulk", "quantity")
        widgets = {
            "bulk": forms.NumberInput(attrs={"step": "0.5", "inputmode": "decimal"}),
            "quantity": forms.NumberInput(attrs={"inputmode": "numeric"}),
        }

    def __init__(self, *args, catalogue=None, unit: str = "FP", **kwargs):
        """``unit``: what an item's weight is counted in, "FP" (Aoristos, p. 5) or "kg"
        (an entered system: Phobia's Belastning, lines 282-283, must be given)."""
        super().__init__(*args, **kwargs)
        self.unit = unit
        if unit == "kg":
            self.fields["bulk"].label = _("kg each")
            self.fields["bulk"].initial = None
        self.entries = catalogue or {}
        choices = [("", "–")]
        for kind, heading in (("weapon", _("Weapons")), ("armour", _("Armour and shields"))):
            group = [
                (f"{kind}:{key}", item.name)
                for key, item in sorted(self.entries.get(kind, {}).items(),
                                        key=lambda pair: pair[1].name)
            ]
            if group:
                choices.append((heading, group))
        self.fields["catalogue"] = forms.ChoiceField(
            label=_("From the catalogue"), choices=choices, required=False
        )
        self.fields["name"].required = False
        self.fields["bulk"].required = False

    def clean(self):
        data = super().clean()
        chosen = data.get("catalogue") or ""
        entry = None
        if chosen:
            kind, _sep, key = chosen.partition(":")
            entry = self.entries.get(kind, {}).get(key)
        if entry is not None:
            if not data.get("name"):
                data["name"] = entry.name
            if data.get("bulk") is None:
                bulk = getattr(entry, "weapon_bulk", None)
                if bulk is None:
                    bulk = getattr(entry, "bulk", None)  # a Phobia entry has no weight
                else:
                    bulk += entry.magazine_bulk
                if bulk is not None:
                    data["bulk"] = Decimal(str(round(bulk, 1)))
        if not data.get("name"):
            self.add_error("name", _("Name the item, or choose it from the catalogue."))
        if data.get("bulk") is None and "bulk" not in self.errors:
            if self.unit == "kg":
                self.add_error("bulk", _("Give what one weighs in kg."))
            else:
                data["bulk"] = Decimal("1")
        return data
