from django import forms
from django.utils.choices import CallableChoiceIterator
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from characters.terms import label, test_label
from rules import RulesError
from rules.aoristos import character as rules
from rules.aoristos import dice, success


def hand_error(error: RulesError) -> str:
    """What is wrong with a dice hand, in the reader's language: the rules core's message
    is English (the JSON API shows it), its code and params say the same here."""
    messages = {
        "too_long": gettext("A dice hand has at most %(limit)s characters."),
        "unrecognised": gettext(
            "“%(text)s” is not a dice hand. Write B, then F or T, then + or − a number: "
            "e.g. 2B2T+1."
        ),
        "given_twice": pgettext("dice", "“%(text)s” has %(kind)s twice. Write e.g. 2B2T+1."),
        "too_many_dice": gettext("“%(text)s” has too many dice: a hand rolls at most 6."),
        "modifier_too_large": gettext(
            "The modifier in “%(text)s” is too large: at most ±%(limit)s."
        ),
    }
    template = messages.get(getattr(error, "code", ""))
    if template is None:
        return gettext("That is not a dice hand. Write e.g. 2B2T+1.")
    return template % error.params


class HandForm(forms.Form):
    """A bare dice hand ("2B2T+1") from the tray. The roll view checks a hand with this
    form alone: it neither needs nor reads a character, so a hand costs no query."""

    MODE_HAND = "hand"
    MODE_TEST = "test"

    mode = forms.ChoiceField(
        choices=[(MODE_TEST, _("Success test")), (MODE_HAND, _("Dice hand"))],
        initial=MODE_TEST,
        widget=forms.RadioSelect,
    )
    hand = forms.CharField(label=_("Hand"), max_length=40, required=False, initial="1B1T")
    purpose = forms.ChoiceField(
        label=_("Counts"),
        required=False,
        initial=dice.Purpose.TEST,
        choices=[
            (dice.Purpose.TEST, _("highest free dice (tests, attacks)")),
            (dice.Purpose.STRESS, _("lowest free dice (stress)")),
        ],
    )
    secret = forms.BooleanField(label=_("Secret roll (only you see it)"), required=False)

    def __init__(self, *args, can_roll_secretly: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if not can_roll_secretly:
            del self.fields["secret"]

    def clean_hand(self):
        text = self.cleaned_data["hand"].strip()
        if self.data.get("mode") != self.MODE_HAND:
            return None
        if not text:
            raise forms.ValidationError(_("Write a dice hand, e.g. 2B2T+1."))
        try:
            return dice.parse_hand(text)
        except RulesError as error:
            raise forms.ValidationError(hand_error(error)) from error


class RollForm(HandForm):
    """The dice tray: a free hand, or a success test of a character's properties (p. 5)
    with the GST as the default ST."""

    field_order = [
        *("mode", "hand", "purpose", "character", "properties", "free", "forced", "threshold"),
        "secret",
    ]

    # Checked in clean() against the characters this user may roll for, and only in a test:
    # a bare hand neither needs nor checks one.
    character = forms.CharField(label=_("Character"), required=False, widget=forms.Select)
    properties = forms.MultipleChoiceField(
        label=_("Properties in the TB"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(key, label(key)) for key in rules.ATTRIBUTES + rules.SKILLS],
    )
    free = forms.IntegerField(
        label=_("Free dice (F)"), min_value=0, max_value=5, required=False, initial=0
    )
    forced = forms.IntegerField(
        label=_("Forced dice (T)"), min_value=0, max_value=5, required=False, initial=0
    )
    threshold = forms.IntegerField(label=_("ST"), min_value=0, max_value=999, required=False)

    def __init__(self, *args, characters, can_roll_secretly: bool, **kwargs):
        """`characters`: a queryset of the characters this user may roll for. Validating
        fetches only the chosen one; the list is read only if the form is rendered."""
        super().__init__(*args, can_roll_secretly=can_roll_secretly, **kwargs)
        self.characters = characters
        self.character = None
        self.fields["character"].widget.choices = CallableChoiceIterator(
            lambda: [(c.pk, c.name) for c in characters]
        )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("mode") == self.MODE_TEST:
            self.character = self.chosen_character(cleaned.get("character", ""))
            if self.character is None:
                self.add_error("character", _("Choose a character to test."))
            elif not cleaned.get("properties"):
                self.add_error("properties", _("Choose the properties the test is of."))
        return cleaned

    def chosen_character(self, text: str):
        """The chosen character if this user may roll for it, with what its levels need
        (one query), else None."""
        if not (text.isascii() and text.isdigit() and len(text) <= 18):
            return None
        return self.characters.with_levels().filter(pk=int(text)).first()

    def test(self):
        """The chosen success test: (character, test_base, GST, threshold, hand, label)."""
        data = self.cleaned_data
        keys = data["properties"]
        test = success.plan_test(
            self.character.test_levels(),
            keys,
            free=data.get("free") or 0,
            forced=data.get("forced") or 0,
            threshold=data.get("threshold"),
        )
        return {
            "character": self.character,
            "test_base": test.test_base,
            "gst": test.gst,
            "threshold": test.threshold,
            "hand": test.hand,
            "label": test_label(keys),
        }
