from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.models import AVAILABLE_SYSTEMS, JOIN_CODE_LENGTH, Campaign, RuleSystem
from campaigns.services import MAX_NOTE


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ("name", "rule_system", "starting_dp", "level_cap")
        help_texts = {
            "starting_dp": _("15 for everyday adults, up to 50 for budding epic adventurers."),
            "level_cap": _("5 is the realistic human maximum; raising it is a house rule."),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Phobia and T10 are listed so the choice is visible, but cannot be picked yet.
        self.fields["rule_system"].choices = [
            (
                value,
                label
                if value in AVAILABLE_SYSTEMS
                else _("%(name)s (coming later)") % {"name": label},
            )
            for value, label in RuleSystem.choices
        ]
        if self.instance.pk:
            self.fields["rule_system"].disabled = True

    def clean_rule_system(self):
        system = self.cleaned_data["rule_system"]
        if system not in AVAILABLE_SYSTEMS:
            raise forms.ValidationError(_("Only Aoristos can be played so far."))
        return system


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
