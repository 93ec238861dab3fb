from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from campaigns.models import AVAILABLE_SYSTEMS, JOIN_CODE_LENGTH, Campaign, RuleSystem
from campaigns.services import MAX_NOTE
from combat.forms import default_words, where_words
from rules import RulesError
from rules.system import MAX_HOUSE_TEXT, HouseRule


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ("name", "rule_system", "starting_dp", "level_cap", "dice_source")
        help_texts = {
            "starting_dp": _("15 for everyday adults, up to 50 for budding epic adventurers."),
            "level_cap": _("5 is the realistic human maximum; raising it is a house rule."),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A system the rules core lacks would be listed, but could not be picked.
        self.fields["rule_system"].choices = [
            (
                value,
                label
                if value in AVAILABLE_SYSTEMS
                else _("%(name)s (coming later)") % {"name": label},
            )
            for value, label in RuleSystem.choices
        ]
        # Starting UP and the level cap are Aoristos's (p. 2-3): a system whose characters
        # are entered has house rules instead (rules.system.HouseRule).
        for name in self.POINTS_FIELDS:
            self.fields[name].required = False
            self.fields[name].widget.attrs["data-points-only"] = ""
        self.fields["dice_source"].required = False  # issue 48: kept as it is when left out
        self.house_rule_keys: list[str] = []
        if self.instance.pk:
            self.fields["rule_system"].disabled = True
            system = self.instance.system
            if system.builder != "points":
                for name in self.POINTS_FIELDS:
                    del self.fields[name]
            house = self.instance.house()
            for rule in system.house_rules:
                self.fields[f"house_{rule.key}"] = house_rule_field(rule, house[rule.key])
                self.house_rule_keys.append(rule.key)

    POINTS_FIELDS = ("starting_dp", "level_cap")

    def clean_dice_source(self):
        """Left out (an older form, a script), it stays as it is: the server's at first."""
        return (self.cleaned_data.get("dice_source") or self.instance.dice_source
                or Campaign.DiceSource.SERVER)

    def clean_rule_system(self):
        system = self.cleaned_data["rule_system"]
        if system not in AVAILABLE_SYSTEMS:
            raise forms.ValidationError(
                _("Only %(systems)s can be played so far.")
                % {"systems": ", ".join(RuleSystem(value).label for value in AVAILABLE_SYSTEMS)}
            )
        return system

    def clean(self):
        cleaned = super().clean()
        system = cleaned.get("rule_system") or self.instance.rule_system
        for name in self.POINTS_FIELDS:
            if name not in self.fields:
                continue
            if system == RuleSystem.AORISTOS:
                if cleaned.get(name) is None and name not in self.errors:
                    self.add_error(name, forms.Field.default_error_messages["required"])
            else:  # hidden for other systems: whatever was typed there is not used
                self.errors.pop(name, None)
                cleaned[name] = self.instance._meta.get_field(name).get_default()
        if self.house_rule_keys:
            values = dict(self.instance.house_rules)
            for key in self.house_rule_keys:
                if cleaned.get(f"house_{key}", "") is None:  # a number left empty
                    values.pop(key, None)  # is the house rule's default again
                elif f"house_{key}" in cleaned:
                    values[key] = cleaned[f"house_{key}"]
            try:
                self.instance.system.house(values)
            except RulesError as error:  # the system's message is a msgid
                self.add_error(None, gettext(str(error)))
            else:
                self.instance.house_rules = values
        return cleaned


def house_rule_field(rule: HouseRule, value) -> forms.Field:
    """A house rule as a form field: its name, and its default and the text it stands in
    for as help, marked as a house rule (rules.system.HouseRule)."""
    plain = {"default": rule.default, "kind": rule.kind, "choices": rule.choices}
    help_text = gettext("House rule; default %(default)s (%(text)s).") % {
        "default": default_words(plain),  # on/off, the choice's name, the number
        "text": where_words(rule.text),
    }
    if rule.help:
        help_text += " " + gettext(rule.help)
    common = {"label": gettext(rule.name), "initial": value, "help_text": help_text}
    if rule.kind == "bool":
        return forms.BooleanField(required=False, **common)
    if rule.kind == "choice":
        choices = [(key, gettext(label)) for key, label in rule.choices]
        return forms.ChoiceField(choices=choices, **common)
    if rule.kind == "text":
        return forms.CharField(max_length=MAX_HOUSE_TEXT, **common)
    return forms.IntegerField(  # left empty: back to the default
        required=False,
        min_value=rule.minimum,
        max_value=rule.maximum,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        **common,
    )


class JoinCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Join code"),
        max_length=20,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "autocapitalize": "characters",
                "spellcheck": "false",
                "inputmode": "latin",
                "placeholder": "ABC234",
            }
        ),
    )

    def clean_code(self):
        code = "".join(self.cleaned_data["code"].split()).upper()
        if len(code) != JOIN_CODE_LENGTH:
            raise forms.ValidationError(
                _("A join code has %(length)s letters and digits.") % {"length": JOIN_CODE_LENGTH}
            )
        return code


class BringAnswerForm(forms.Form):
    """The GM's answer to a request to bring a character: accept (a note is required:
    the GM and the player read it on the campaign page) or decline (a note is optional)."""

    ACCEPT, DECLINE = "accept", "decline"

    answer = forms.ChoiceField(
        choices=[(ACCEPT, _("Accept")), (DECLINE, _("Decline"))],
        error_messages={"required": _("Accept or decline the request.")},
    )
    note = forms.CharField(
        label=_("Note"),
        required=False,
        strip=True,
        max_length=MAX_NOTE,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": MAX_NOTE}),
        help_text=_("Required to accept: why it may play here as it is. The player sees it."),
    )

    def clean_note(self):
        return self.cleaned_data["note"].replace("\x00", "")

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("answer") == self.ACCEPT and not cleaned.get("note"):
            self.add_error(
                "note", _("Write a note to accept: why this character may play here as it is.")
            )
        return cleaned
