import re

from django import forms
from django.utils.choices import CallableChoiceIterator
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from campaigns import scoped
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


class CharacterIds(forms.MultipleChoiceField):
    """Characters of the campaign ticked by id (an opposed test's sides). Which of them
    play here is the form's clean() (one query for every id the form names, through
    `campaigns.scoped`), so a wrong id is refused with its reason; the list is read only
    when the form is rendered."""

    widget = forms.CheckboxSelectMultiple

    def valid_value(self, value) -> bool:
        return True  # checked against the campaign in RollForm.check_sides


def plain_pk(text) -> int | None:
    """A typed id as a number, or None when it cannot be one."""
    text = str(text)
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) <= 18 else None


OTHER = "other"  # the other side is represented by someone without a sheet: a name, a TB
MAX_ON_A_SIDE = 30  # characters a side may name (a campaign's table is a few)


class RollForm(HandForm):
    """The dice tray: a free hand, a success test of a character's properties (p. 5)
    with the GST as the default ST, or an opposed test (p. 5).

    A test may be of no property at all: an empty TB, TB 0 and GST 4 (the weekly healing
    test, p. 14). A constant adds to the TB without being a property, so it leaves the GST
    alone (the psychosis test VIL + 20 has GST 6, and the GM sets the ST, p. 15). A test
    still needs a character: the one who rolls.

    An opposed test (p. 5: each side sums the relevant TBs of everyone on it; only the
    representatives' F and T apply) is the test above for the side that rolls
    (``character`` represents it and is one this user may roll for; its properties,
    constant, F and T), with ``helpers`` beside it, against the other side: ``opponent``
    represents it, "character:<pk>" (any character of the campaign) or "other" (someone
    without a sheet: ``opponent_name`` with the TB ``opponent_tb``), with
    ``opponent_helpers``, the properties ``opponent_properties`` its characters test and
    its representative's ``opponent_free`` and ``opponent_forced``. No ST: the higher
    total wins."""

    MODE_OPPOSED = "opposed"

    field_order = [
        *("mode", "hand", "purpose", "character", "properties", "empty", "constant"),
        *("free", "forced", "threshold", "helpers", "opponent", "opponent_name"),
        *("opponent_tb", "opponent_helpers", "opponent_properties", "opponent_free"),
        *("opponent_forced", "secret"),
    ]

    mode = forms.ChoiceField(
        choices=[
            (HandForm.MODE_TEST, _("Success test")),
            (MODE_OPPOSED, _("Opposed test")),
            (HandForm.MODE_HAND, _("Dice hand")),
        ],
        initial=HandForm.MODE_TEST,
        widget=forms.RadioSelect,
    )
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
    # An opposed test's sides (p. 5), checked in clean() through the campaign.
    helpers = CharacterIds(label=_("Also on this side"), required=False)
    opponent = forms.CharField(label=_("Against"), required=False, widget=forms.Select)
    opponent_name = forms.CharField(label=_("Opponent"), max_length=60, required=False)
    opponent_tb = forms.IntegerField(
        label=_("The opponent's TB"), min_value=0, max_value=999, required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    opponent_helpers = CharacterIds(label=_("Also on the other side"), required=False)
    opponent_properties = forms.MultipleChoiceField(
        label=_("The other side's properties in the TB"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(key, label(key)) for key in rules.ATTRIBUTES + rules.SKILLS],
    )
    opponent_free = forms.IntegerField(
        label=_("The other side's free dice (F)"), min_value=0, max_value=5, required=False,
        initial=0,
    )
    opponent_forced = forms.IntegerField(
        label=_("The other side's forced dice (T)"), min_value=0, max_value=5,
        required=False, initial=0,
    )

    def __init__(self, *args, characters, can_roll_secretly: bool, campaign, **kwargs):
        """`characters`: a queryset of the characters this user may roll for. Validating
        fetches only the chosen one; the list is read only if the form is rendered.
        `campaign`: the table's, whose characters an opposed test's sides may name."""
        super().__init__(*args, can_roll_secretly=can_roll_secretly, **kwargs)
        self.characters = characters
        self.campaign = campaign
        self.character = None
        self.sides = None  # an opposed test's characters, once clean() has read them
        self.fields["character"].widget.choices = CallableChoiceIterator(
            lambda: [(c.pk, c.name) for c in characters]
        )
        everyone = CallableChoiceIterator(lambda: [(c.pk, c.name) for c in self.everyone()])
        self.fields["helpers"].widget.choices = everyone
        self.fields["opponent_helpers"].widget.choices = everyone
        self.fields["opponent"].widget.choices = CallableChoiceIterator(self.opponents)
        self._everyone = None

    def everyone(self) -> list:
        """The campaign's characters, every one a side may name (read once, to render)."""
        if self._everyone is None:
            self._everyone = list(
                self.campaign.characters.filter(rule_system=self.campaign.rule_system)
                .order_by("name", "pk")
            )
        return self._everyone

    def opponents(self) -> list:
        """Who may represent the other side: a character of the campaign, or someone
        without a sheet."""
        return [
            ("", gettext("Choose whom the test is against.")),
            (gettext("Characters"), [(f"character:{c.pk}", c.name) for c in self.everyone()]),
            (OTHER, gettext("Someone else (a name and a TB)")),
        ]

    @property
    def is_opposed(self) -> bool:
        return self.cleaned_data.get("mode") == self.MODE_OPPOSED

    def clean(self):
        cleaned = super().clean()
        mode = cleaned.get("mode")
        if mode in (self.MODE_TEST, self.MODE_OPPOSED):
            self.character = self.chosen_character(cleaned.get("character", ""))
            if self.character is None:
                self.add_error("character", self.not_rollable(cleaned.get("character", ""),
                                                              opposed=mode == self.MODE_OPPOSED))
            elif not cleaned.get("properties") and not cleaned.get("empty"):
                self.add_error("properties", _("Choose the properties the test is of."))
        if mode == self.MODE_OPPOSED:
            self.check_sides(cleaned)
        return cleaned

    def not_rollable(self, text: str, *, opposed: bool) -> str:
        """Why the chosen character cannot roll here. In an opposed test, a character of
        the campaign this player may not roll for is named (a side is rolled by its own
        player, or by the GM); any other id plays nowhere here."""
        pk = plain_pk(text)
        if not opposed or pk is None:
            return gettext("Choose a character to test.")
        try:
            theirs = scoped.character(self.campaign.pk, pk, system=self.campaign.rule_system)
        except scoped.NotInCampaign:
            return gettext("That character does not play here.")
        return gettext(
            "%(name)s is not your character: you roll for your own side. Put %(name)s on "
            "the other side, or let their player roll."
        ) % {"name": theirs.name}

    def check_sides(self, cleaned):
        """The sides of an opposed test, read through the campaign in one query: every
        character named (the other side's representative, the characters beside either
        representative) plays in it, nobody is on both sides, and a side with characters
        says what they test. Keeps them in ``self.sides``."""
        opponent = cleaned.get("opponent") or ""
        kind, _sep, number = opponent.partition(":")
        named = {"helpers": cleaned.get("helpers") or [],
                 "opponent_helpers": cleaned.get("opponent_helpers") or []}
        if opponent == OTHER:
            if not (cleaned.get("opponent_name") or "").strip():
                self.add_error("opponent_name", gettext("Name the opponent."))
            if cleaned.get("opponent_tb") is None and "opponent_tb" not in self.errors:
                self.add_error("opponent_tb", gettext("Give the opponent's TB."))
        elif kind == "character" and plain_pk(number) is not None:
            named["opponent"] = [number]
        else:
            self.add_error("opponent", gettext("Choose whom the test is against."))
        ids = {}
        for field, values in named.items():
            if len(values) > MAX_ON_A_SIDE:
                self.add_error(field, gettext("At most %(limit)s characters on a side.")
                               % {"limit": MAX_ON_A_SIDE})
                return
            ids[field] = [plain_pk(value) for value in values]
        wrong = [field for field, pks in ids.items() if None in pks]
        found = {}
        if not wrong:
            every = [pk for pks in ids.values() for pk in pks]
            try:
                found = scoped.characters(
                    self.campaign.pk, every, system=self.campaign.rule_system,
                    queryset=self.campaign.characters.with_levels(),
                )
            except scoped.NotInCampaign as error:
                missing = plain_pk(error.params.get("id", ""))
                wrong = [field for field, pks in ids.items() if missing in pks]
        for field in wrong:
            self.add_error(field, gettext("That character does not play here."))
        if wrong or self.character is None or self.errors:
            return
        ours = unique([self.character, *(found[pk] for pk in ids["helpers"])])
        theirs = unique([found[pk] for pk in ids.get("opponent", []) + ids["opponent_helpers"]])
        both = [c for c in theirs if c.pk in {mine.pk for mine in ours}]
        if both:
            field = "opponent" if both[0].pk in ids.get("opponent", []) else "opponent_helpers"
            self.add_error(field, gettext("%(name)s cannot be on both sides.")
                           % {"name": both[0].name})
            return
        if theirs and not cleaned.get("opponent_properties"):
            self.add_error("opponent_properties",
                           gettext("Choose the properties the other side tests."))
            return
        self.sides = (ours, theirs)

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

    def opposition(self) -> dict:
        """The opposed test planned (p. 5): each side (``a``, the one that rolls, and
        ``b``) as the rules core sums it (`success.opposed_side`) with its label, its
        participants (name, TB; the representative first) and constant. Its exact odds
        are `success.opposed_odds` of the two sides (the tray's odds; a roll needs none)."""
        data = self.cleaned_data
        ours, theirs = self.sides
        keys_a, constant = data["properties"], data.get("constant") or 0
        a = success.opposed_side(
            [c.test_levels() for c in ours], keys_a, constant=constant,
            free=data.get("free") or 0, forced=data.get("forced") or 0,
        )
        keys_b = data.get("opponent_properties") or []
        someone = []
        if data.get("opponent") == OTHER:
            someone = [{"name": " ".join(data["opponent_name"].split()),
                        "test_base": data["opponent_tb"]}]
        b = success.opposed_side(
            [c.test_levels() for c in theirs], keys_b if theirs else [],
            constant=someone[0]["test_base"] if someone else 0,
            free=data.get("opponent_free") or 0, forced=data.get("opponent_forced") or 0,
        )
        return {
            "a": {
                "side": a, "label": test_label(keys_a, constant), "constant": constant,
                "character": self.character,
                "participants": participants(ours, a.shares),
            },
            "b": {
                "side": b, "label": test_label(keys_b) if keys_b else "", "constant": 0,
                "character": theirs[0] if theirs and not someone else None,
                "participants": someone + participants(theirs, b.shares),
            },
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


def unique(characters: list) -> list:
    """`characters` with each one once, in order (a helper ticked who also represents)."""
    seen, kept = set(), []
    for character in characters:
        if character.pk not in seen:
            seen.add(character.pk)
            kept.append(character)
    return kept


def participants(characters: list, shares) -> list[dict]:
    """An opposed side's characters with their TBs, as the log keeps them: the id (the
    archive rewrites it), the name as it is now and the TB it brought."""
    return [{"character_id": c.pk, "name": c.name, "test_base": share}
            for c, share in zip(characters, shares, strict=True)]


class ScreenForm(forms.Form):
    """A new table screen (issue 47; table/screens.py): its name, so the GM tells them apart."""

    name = forms.CharField(label=_("Name of the screen"), max_length=40,
                           initial=_("TV"), widget=forms.TextInput(attrs={"autocomplete": "off"}))

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(_("Give the screen a name."))
        return name


class ScreenCodeForm(forms.Form):
    """The code a table screen is opened by, typed on the TV (no account)."""

    code = forms.CharField(
        label=_("The table screen's code"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters",
                                      "spellcheck": "false", "placeholder": "ABCD2345"}),
    )

    def clean_code(self):
        # Read aloud and typed on a remote: spaces and dashes between groups are allowed.
        return re.sub(r"[\s-]", "", self.cleaned_data["code"]).upper()


class HandoutForm(forms.Form):
    """A handout the GM gives (issue 47; table/handouts.py): a title, a text or a picture
    (or both), and to whom: every player, one of them, or the table screen too."""

    EVERY = "all"
    SCREEN = "screen"

    title = forms.CharField(label=_("Title"), max_length=100,
                            widget=forms.TextInput(attrs={"autocomplete": "off"}))
    text = forms.CharField(label=_("Text"), required=False, max_length=4000,
                           widget=forms.Textarea(attrs={"rows": 4}))
    picture = forms.FileField(label=_("Picture (PNG, JPEG or WebP, at most 5 MB)"),
                              required=False)
    to = forms.ChoiceField(label=_("To"))

    def __init__(self, *args, players=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.players = {f"m{m.pk}": m for m in players}
        self.fields["to"].choices = [
            (self.EVERY, _("Every player")),
            (self.SCREEN, _("Every player, and shown on the table screen")),
            *((key, m.user.username) for key, m in self.players.items()),
        ]

    def clean_title(self):
        return " ".join(self.cleaned_data["title"].split())

    def clean_picture(self):
        from core import pictures

        upload = self.cleaned_data.get("picture")
        if not upload:
            return None
        if upload.size > pictures.MAX_BYTES:  # refused before it is read
            raise forms.ValidationError(_("The picture is larger than 5 MB."))
        return pictures.picture_facts(upload.read())

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not cleaned.get("text", "").strip() and not cleaned.get("picture"):
            raise forms.ValidationError(_("A handout is a text, a picture or both: give one."))
        return cleaned

    @property
    def recipient(self):
        return self.players.get(self.cleaned_data["to"])
