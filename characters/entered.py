"""Characters of a rule system whose values are entered, not bought (``builder =
"entered"``: Phobia, and T10 to come): one form, one sheet and one live check, made from
what the system says (rules.system), with no knowledge of any system.

- The form has a field per attribute and skill, bounded by the system under the
  campaign's house rules (defaults outside a campaign), and the system's ``check`` marks
  what is wrong beside each field.
- What the system rolls once when a character is made (Phobia's Lugn 2T6) is rolled on
  the server when it is first saved, kept on the character and, in a campaign, told at
  the table as a line of its log.
"""

import secrets

from django import forms
from django.db import transaction
from django.utils.translation import gettext as _

from characters.models import Character

rng = secrets.SystemRandom()  # tests replace it with scripted dice

IDENTITY_FIELDS = ("name", "concept", "notes")


def house_of(character: Character) -> dict:
    """The house rules a character is made under: its campaign's, else the defaults."""
    if character.campaign_id:
        return character.campaign.house()
    return character.system.house(None)


def issue_text(issue) -> str:
    return _(issue.message) % dict(issue.params)


class EnteredForm(forms.ModelForm):
    """Name, concept, notes and every stat of an entered system's character."""

    class Meta:
        model = Character
        fields = IDENTITY_FIELDS
        widgets = {"notes": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        character = self.instance
        self.system = character.system
        self.house = house_of(character)
        values = character.values()
        self.stat_keys = []
        attributes, skills = self.system.stats(self.house)
        for stat in attributes + skills:
            low, high = self.system.bounds(stat, self.house)
            # Out of range, the answer states the range (issue 43: Django's own message
            # named one end only, and the page never said what the values may be).
            outside = _("%(term)s is %(low)s to %(high)s.") % {
                "term": stat.term.swedish, "low": low, "high": high}
            self.fields[stat.key] = forms.IntegerField(
                label=stat.term.label,
                min_value=low,
                max_value=high,
                initial=values[stat.key],
                error_messages={"min_value": outside, "max_value": outside},
                widget=forms.NumberInput(attrs={
                    "inputmode": "numeric", "class": "level",
                    "aria-describedby": f"id_{stat.key}_range"}),
            )
            self.stat_keys.append(stat.key)

    def clean(self):
        cleaned = super().clean()
        values = {key: cleaned[key] for key in self.stat_keys if key in cleaned}
        if len(values) == len(self.stat_keys):
            for issue in self.system.check(values, self.house):
                if not issue.field:
                    self.add_error(None, issue_text(issue))
                elif issue.field in self.fields and issue.field not in self.errors:
                    self.add_error(issue.field, issue_text(issue))
        return cleaned

    def values(self) -> dict[str, int]:
        """The values the page shows derived figures from: each valid one typed, else the
        saved one."""
        saved = self.instance.values()
        if not self.is_bound:
            return saved
        cleaned = getattr(self, "cleaned_data", {})
        return {
            key: cleaned.get(key, saved[key]) if key not in self.errors else saved[key]
            for key in self.stat_keys
        }

    @transaction.atomic
    def save(self, commit=True, *, by=None):
        character = super().save(commit=False)
        attributes = {stat.key for stat in self.system.attributes}
        values = {key: self.cleaned_data[key] for key in self.stat_keys}
        character.attributes = {k: v for k, v in values.items() if k in attributes}
        character.skills = {k: v for k, v in values.items() if k not in attributes}
        created = character.pk is None
        if created:
            character.rolled = self.system.creation_rolls(values, rng)
        character.save()
        if created and character.rolled and character.campaign_id:
            tell_the_table(character, by)
        return character


def derived_rows(character: Character, values: dict[str, int] | None = None) -> list:
    """The derived values (rules.system.Derived) of a character, from ``values`` (the ones
    being typed) or its saved ones. A character not yet saved has rolled nothing: the
    figures that need a roll have no value until it is saved."""
    values = values or character.values()
    return list(character.system.derived(values, character.rolled, house_of(character)))


def tell_the_table(character: Character, by) -> None:
    """What was rolled at creation, as a line of the campaign's table log."""
    from table.services import notice_record  # the table builds on characters

    figures = {d.key: d for d in derived_rows(character)}
    lines = []
    for key, dice in character.rolled.items():
        figure = figures.get(key)
        lines.append(
            {
                "term": figure.term.swedish if figure else key,
                "dice": dice,
                "sum": sum(dice),
                "value": figure.value if figure else None,
                "formula": figure.formula if figure else "",
            }
        )
    notice_record(
        campaign_id=character.campaign_id,
        kind="creation",
        actor=getattr(by, "username", ""),
        character=character.name,
        lines=lines,
    )
