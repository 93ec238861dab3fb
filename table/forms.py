import re

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


class SharedFields(dict):
    """A form's fields, shared by its instances instead of deep-copied for each one as
    Django's forms are (most of the time a roll spent making its form). Only for a form
    whose instances change which fields they have, never a field itself: a subclass gets
    its own copies again (Django's form metaclass makes its base fields a plain dict)."""

    def __deepcopy__(self, memo):
        return dict(self)


class HandForm(forms.Form):
    """A bare dice hand ("2B2T+1") from the tray. The roll view checks a hand with this
    form alone: it neither needs nor reads a character, so a hand costs no query.

    Its instances share their fields (`SharedFields`): one may drop "secret", none
    changes a field."""

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
            (dice.Purpose.STRESS, _("lowest free dice (stress, psyktrauma)")),
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
        plain = PLAIN_DICE.fullmatch(text)
        if plain and int(plain[1]) > dice.MAX_DICE:
            # A hand caps B at 6 (p. 4); a plain roll of seven dice is not six.
            raise forms.ValidationError(
                _("“%(text)s” has too many dice: a hand rolls at most 6."),
                params={"text": shown(text)},
            )
        try:
            return dice.parse_hand(plain_dice(text))
        except RulesError as error:
            if "text" in error.params:
                error.params["text"] = text  # quote what was typed, not the B it became
            raise forms.ValidationError(hand_error(error)) from error


HandForm.base_fields = SharedFields(HandForm.base_fields)

# A plain roll of six-sided dice in the common notation, "2T6" or "2d6+1": Aoristos rolls
# only six-sided dice, and a hand of base dice alone sums them all (p. 4), so nT6 is nB.
PLAIN_DICE = re.compile(r"(\d{1,2})\s*[TtDd]6(?![0-9])(.*)", re.S)


def plain_dice(text: str) -> str:
    """The common "2T6+1" as the hand "2B+1" (the same dice, all counted); any other
    text as it is."""
    match = PLAIN_DICE.fullmatch(text)
    if match is None:
        return text
    modifier = match[2].replace("\N{MINUS SIGN}", "-").replace("\N{EN DASH}", "-")
    return f"{match[1]}B{modifier}"


def shown(text: str, limit: int = 20) -> str:
    """What the user typed, short enough to quote back in an error."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConstantField(forms.IntegerField):
    """A whole number from −LIMIT to LIMIT added to the TB (the psychosis test is VIL + 20,
    p. 15). Takes a real minus sign (U+2212, as the rule book writes it) as well as "-";
    an error quotes what was typed."""

    LIMIT = 99

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.widget.attrs.update(min=-self.LIMIT, max=self.LIMIT, step=1)

    def to_python(self, value):
        text = value.strip() if isinstance(value, str) else value
        if isinstance(text, str):
            text = text.replace("\N{MINUS SIGN}", "-")
        try:
            number = super().to_python(text)
        except forms.ValidationError as error:
            raise forms.ValidationError(
                _(
                    "“%(text)s” is not a whole number. Write the constant in the TB as e.g. "
                    "20 or −2."
                ),
                code="invalid",
                params={"text": shown(str(value))},
            ) from error
        if number is not None and abs(number) > self.LIMIT:
            raise forms.ValidationError(
                _("“%(text)s” is too large: the constant in the TB is at most ±%(limit)s."),
                code="out_of_range",
                params={"text": shown(str(value).strip()), "limit": self.LIMIT},
            )
        return number


class RollForm(HandForm):
    """The dice tray: a free hand, or a success test of a character's properties (p. 5)
    with the GST as the default ST.

    A test may be of no property at all: an empty TB, TB 0 and GST 4 (the weekly healing
    test, p. 14). A constant adds to the TB without being a property, so it leaves the GST
    alone (the psychosis test VIL + 20 has GST 6, and the GM sets the ST, p. 15). A test
    still needs a character: the one who rolls."""

    field_order = [
        *("mode", "hand", "purpose", "character", "properties", "empty", "constant"),
        *("free", "forced", "threshold", "secret"),
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
    # Said on purpose: a tap on "roll" with nothing ticked is a slip, not a test of nothing.
    empty = forms.BooleanField(label=_("Empty TB: a test of nothing (GST 4)"), required=False)
    constant = ConstantField(label=_("Constant in the TB"), required=False, initial=0)
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
            elif not cleaned.get("properties") and not cleaned.get("empty"):
                self.add_error("properties", _("Choose the properties the test is of."))
        return cleaned

    def chosen_character(self, text: str):
        """The chosen character if this user may roll for it, with what its levels need
        (one query), else None."""
        if not (text.isascii() and text.isdigit() and len(text) <= 18):
            return None
        return self.characters.with_levels().filter(pk=int(text)).first()

    def test(self):
        """The chosen success test: (character, test_base, GST, threshold, hand, label).
        No property is an empty TB (TB 0, GST 4, p. 14); the constant adds to the TB."""
        data = self.cleaned_data
        keys = data["properties"]
        constant = data.get("constant") or 0
        test = success.plan_test(
            self.character.test_levels(),
            keys,
            free=data.get("free") or 0,
            forced=data.get("forced") or 0,
            threshold=data.get("threshold"),
            constant=constant,
        )
        return {
            "character": self.character,
            "test_base": test.test_base,
            "gst": test.gst,
            "threshold": test.threshold,
            "hand": test.hand,
            "label": test_label(keys, constant),
        }

    def property_rows(self) -> list[tuple]:
        """Each property's checkbox with the chosen character's level, the one a test uses
        (RÖR under load, p. 5), so the tray shows what a tick adds to the TB."""
        levels = self.chosen_levels()
        return [(choice, levels.get(choice.data["value"])) for choice in self["properties"]]

    def chosen_levels(self) -> dict[str, int]:
        """The test levels of the character the form holds; unbound, of the first of the
        list (what the select shows); none if no character is chosen or may be."""
        character = self.character
        if character is None and self.is_bound:
            character = self.chosen_character(str(self.data.get("character", "")))
        elif character is None:
            character = self.characters.with_levels().first()
        return character.test_levels() if character else {}
