"""The live table's success test for a rule system other than Aoristos (rules.system):
the tray asks what the system's ``test_params`` list, shows the exact odds of its
``plan_test`` before the roll, and rolls with its ``roll_test`` on the server. Nothing
here knows a system: Phobia's difficulty in Ob dice is one of its test parameters."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rules import RulesError
from table.services import open_situation


def hand_error(error: RulesError, examples) -> str:
    """What is wrong with a typed dice hand, in the reader's language (the rules core's
    message is English; its code and params say the same here)."""
    params = {"examples": ", ".join(examples), **error.params}
    messages = {
        "too_long": gettext("A dice hand has at most %(limit)s characters."),
        "too_many_dice": gettext(
            "“%(text)s” has a number of dice the tray cannot roll (at most %(limit)s)."
        ),
        "modifier_too_large": gettext(
            "The modifier in “%(text)s” is too large: at most ±%(limit)s."
        ),
    }
    template = messages.get(getattr(error, "code", ""))
    if template is None or "text" in template and "text" not in params:
        return gettext("That is not a dice hand. Write e.g. %(examples)s.") % params
    return template % params


class EnteredTestForm(forms.Form):
    """A success test (character, what is tested, the system's test parameters) or a bare
    dice hand of the system ("1T10"), and (the GM) secrecy."""

    MODE_TEST = "test"
    MODE_HAND = "hand"
    OWN_FIELDS = ("mode", "character", "stat", "hand", "secret")  # the rest: test_params
    mode = forms.ChoiceField(
        choices=[(MODE_TEST, _("Success test")), (MODE_HAND, _("Dice hand"))],
        initial=MODE_TEST,
        required=False,
        widget=forms.RadioSelect,
    )
    character = forms.ModelChoiceField(
        label=_("Character"), queryset=None, empty_label=None, required=False
    )
    stat = forms.ChoiceField(label=_("Tested against"), required=False)
    hand = forms.CharField(label=_("Hand"), max_length=40, required=False)
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
        self.fields["hand"].initial = system.hand_examples[0] if system.hand_examples else ""
        self.fields["hand"].help_text = gettext("e.g. %(examples)s") % {
            "examples": ", ".join(system.hand_examples)
        }
        if not can_roll_secretly:
            del self.fields["secret"]

    @property
    def is_hand(self) -> bool:
        return self.cleaned_data.get("mode") == self.MODE_HAND

    def clean(self):
        cleaned = super().clean()
        cleaned["mode"] = cleaned.get("mode") or self.MODE_TEST
        if cleaned["mode"] == self.MODE_HAND:
            text = (cleaned.get("hand") or "").strip()
            if not text:
                self.add_error("hand", gettext("Write a dice hand, e.g. %(examples)s.") % {
                    "examples": ", ".join(self.system.hand_examples)
                })
            elif "hand" not in self.errors:
                try:
                    cleaned["hand_plan"] = self.system.plan_hand(text)
                except RulesError as error:
                    self.add_error("hand", hand_error(error, self.system.hand_examples))
            return cleaned
        if cleaned.get("character") is None and "character" not in self.errors:
            self.add_error("character", gettext("Choose a character to test."))
        if not cleaned.get("stat") and "stat" not in self.errors:
            self.add_error("stat", gettext("Choose what to test."))
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


def hand_odds(plan) -> dict:
    """What the tray shows before a bare hand is rolled: its range and exact mean."""
    return {"hand": plan.notation, "low": plan.low, "high": plan.high, "mean": float(plan.mean)}


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
