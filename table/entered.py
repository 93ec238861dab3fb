"""The live table's success test for a rule system other than Aoristos (rules.system):
the tray asks what the system's ``test_params`` list, shows the exact odds of its
``plan_test`` before the roll, and rolls with its ``roll_test`` on the server. Nothing
here knows a system: Phobia's difficulty in Ob dice is one of its test parameters."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rules import RulesError
from table.services import open_situation


class EnteredTestForm(forms.Form):
    """Character, what is tested, the system's test parameters and (the GM) secrecy."""

    MODE_TEST = "test"
    mode = forms.CharField(widget=forms.HiddenInput, initial=MODE_TEST, required=False)
    character = forms.ModelChoiceField(label=_("Character"), queryset=None, empty_label=None)
    stat = forms.ChoiceField(label=_("Tested against"))
    secret = forms.BooleanField(label=_("Secret roll (only you see it)"), required=False)

    def __init__(self, *args, campaign, characters, can_roll_secretly: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system = campaign.system
        self.campaign_id = campaign.pk
        # The campaign's (every character here plays in it): read once, not per character.
        self.house = campaign.house()
        self.fields["character"].queryset = characters
        values = {stat.key: stat.default for stat in system.attributes + system.skills}
        terms = system.testables(values, {}, self.house) if system.attributes else ()
        self.fields["stat"].choices = [(term.key, term.label) for term, _value in terms]
        for param in system.test_params:
            if param.choices:
                field = forms.TypedChoiceField(
                    choices=param.choices, coerce=int, initial=param.default
                )
            else:
                field = forms.IntegerField(
                    min_value=param.minimum, max_value=param.maximum, initial=param.default,
                    widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
                )
            field.label = gettext(param.name)
            field.help_text = gettext(param.help) if param.help else ""
            field.required = False
            self.fields[param.key] = field
        if not can_roll_secretly:
            del self.fields["secret"]

    def clean(self):
        cleaned = super().clean()
        for param in self.system.test_params:
            if cleaned.get(param.key) is None and param.key not in self.errors:
                cleaned[param.key] = param.default
        return cleaned

    def plan(self):
        """The test as the system plans it, with its exact odds; a ValidationError when the
        system refuses it (a reason for the player)."""
        character = self.cleaned_data["character"]
        system, house = self.system, self.house
        testables = system.testables(character.values(), character.rolled, house)
        values = {term.key: value for term, value in testables if value is not None}
        request = {param.key: self.cleaned_data[param.key] for param in system.test_params}
        request["stat"] = self.cleaned_data["stat"]
        # A situation its Lugn roll opened changes the character's other tests in it.
        request["situation"] = open_situation(self.campaign_id, character.pk)
        if request["stat"] not in values:
            raise forms.ValidationError(
                gettext("%(name)s has no value to test that against yet.")
                % {"name": character.name}
            )
        terms = {term.key: term for term, _value in testables}
        request["label"] = terms[request["stat"]].short
        try:
            return system.plan_test(values, request, house)
        except RulesError as error:
            raise forms.ValidationError(gettext(str(error))) from error


def odds_context(plan) -> dict:
    """What the tray shows before the roll: the label, dice, target and exact odds."""
    return {
        "system": True,
        "label": plan.label,
        "notation": plan.notation,
        "target": plan.target,
        "percent": float(plan.p_success) * 100,
        "others": {key: float(p) * 100 for key, p in plan.odds.items()},
        "situation": plan.params.get("situation"),
    }
