import re

from django import forms
from django.utils.formats import localize
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from core import pictures
from core.pictures import picture_facts

# The house rules' labels, by key: the rule system lists its house rules (key, kind,
# default, rule page); the form shows each with its default and marks it a house rule.
HOUSE_RULE_LABELS = {
    "movement_by_round_total": _("Movement cost by the round's total distance"),
    "melee_reach": _("Melee reach (m)"),
    "pack_extra_cp": _("Taking an item out of a pack: extra KP"),
}
HOUSE_RULE_HELP = {
    "movement_by_round_total": _(
        "House rule. On: as the rule text reads (p. 7): 2 m, then 8 m more cost 6 KP. Off: "
        "each move on its own, as the Ansgar example counts (5 KP)."
    ),
    "melee_reach": _(
        "House rule. The text says foes are in melee when close enough to reach each other "
        "(p. 10); default 2 m."
    ),
    "pack_extra_cp": _(
        "House rule. The text says only that taking out what is packed away costs more than "
        "drawing from a holster (p. 7); default 1 KP more, 2 KP in all."
    ),
}


def default_words(rule: dict) -> str:
    """A house rule's default in plain words, as the field shows it: on or off, the
    choice's name, or the number (issue 26: "standard False", "standard shock_value")."""
    default = rule["default"]
    if rule["kind"] == "bool":
        return (
            pgettext("a house rule that is", "on")
            if default
            else pgettext("a house rule that is", "off")
        )
    if rule["kind"] == "choice":
        names = dict(rule["choices"])
        return gettext(names[default]) if default in names else str(default)
    return str(localize(default))


def where_words(text: str) -> str:
    """Where in the rule text a house rule stands in for: the excerpts' "lines 830-835" in
    the page's language; a page ("s. 7") or a section's name as the text writes it."""
    if text.startswith("lines "):
        return gettext("lines %(numbers)s") % {"numbers": text.removeprefix("lines ")}
    page = re.match(r"p\. ([\d-]+)(.*)$", text)
    if page:  # "p. 4, Strid, oavsett resultat": "s. 4, ..." on a Swedish page (issue 43)
        return gettext("p. %(pages)s") % {"pages": page[1]} + page[2]
    return gettext(text)  # a section's name, with what it lacks (T10's, marked for gettext)


class EncounterForm(forms.Form):
    """A new encounter: its name and the engine's house rules, each marked a house rule
    with its default. `campaign` gives the starting values of rules the campaign has too
    (Phobia's damage columns and difficulty per row)."""

    name = forms.CharField(label=_("Name"), max_length=100)

    def __init__(self, *args, house_rules=(), campaign=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.house_rule_keys = []
        self.house_rule_defaults = {}
        campaign_values = campaign.house() if campaign is not None else {}
        for rule in house_rules:
            key = rule["key"]
            label = HOUSE_RULE_LABELS.get(key) or gettext(rule.get("label", key))
            help_text = HOUSE_RULE_HELP.get(key) or gettext(
                "House rule; default %(default)s (%(text)s)."
            ) % {"default": default_words(rule), "text": where_words(rule.get("rule", ""))} + (
                " " + gettext(rule["help"]) if rule.get("help") else ""
            )
            initial = campaign_values.get(key, rule["default"])
            common = {"label": label, "initial": initial, "help_text": help_text}
            if rule["kind"] == "bool":
                field = forms.BooleanField(required=False, **common)
            elif rule["kind"] == "choice":
                field = forms.ChoiceField(
                    choices=[(value, gettext(name)) for value, name in rule["choices"]], **common
                )
            elif rule["kind"] == "int":
                # A rule added later may be left out of a post made before it: its default.
                field = forms.IntegerField(min_value=rule["minimum"], max_value=rule["maximum"],
                                           required=rule.get("required", True), **common)
            else:
                field = forms.FloatField(min_value=rule.get("minimum", 0.5),
                                         max_value=rule.get("maximum", 10), **common)
            self.fields[f"house_{key}"] = field
            self.house_rule_keys.append(key)
            self.house_rule_defaults[key] = rule["default"]

    def house_rules(self) -> dict:
        values = {key: self.cleaned_data[f"house_{key}"] for key in self.house_rule_keys}
        return {
            key: self.house_rule_defaults[key] if value is None else value
            for key, value in values.items()
        }


class MapPictureForm(forms.Form):
    """The GM's picture under the battle map (issue 27): PNG, JPEG or WebP of at most
    5 MB, checked as an image on the server (Pillow reads and verifies it), with the
    width in metres it spans and where its top left corner lies."""

    picture = forms.FileField(label=_("Picture (PNG, JPEG or WebP, at most 5 MB)"))
    width = forms.FloatField(label=_("Width in metres"), min_value=1, max_value=2000, initial=30)
    x = forms.FloatField(label="x", min_value=-10000, max_value=10000, initial=0, required=False)
    y = forms.FloatField(label="y", min_value=-10000, max_value=10000, initial=0, required=False)
    shown = forms.BooleanField(label=_("Players see it"), required=False, initial=True)

    # A picture's width × height: more is refused unread. Every phone that opens the map
    # decodes the picture whole (4 bytes a pixel): 4096 × 4096 is 64 MB; a 6000 × 6000
    # PNG of 50 kB would be 144 MB on every phone (issue 42).
    MAX_PIXELS = pictures.MAX_PIXELS

    def clean_picture(self):
        from combat.models import MapPicture

        upload = self.cleaned_data["picture"]
        if upload.size > MapPicture.MAX_BYTES:
            raise forms.ValidationError(_("The picture is larger than 5 MB."))
        return picture_facts(upload.read())


