"""The roller on an Aoristos character's sheet: what it shows to whoever may roll for the
character (its owner, and the GM of its campaign). The roll itself, and the favourite
tests' changes, go through the table (``table.sheet``), which builds on this."""

from django import forms
from django.utils.translation import gettext_lazy

from characters.terms import label
from core.db import idempotency
from rules.aoristos import character as rules


def roller_context(character, odds_form, test_levels: dict[str, int]) -> dict:
    """What the sheet's roller shows: each attribute and skill as a toggle with its level
    (skills at level 0 apart, behind "show all"), the favourites and a fresh key."""
    widgets = {widget.data["value"]: widget for widget in odds_form["properties"]}
    chosen = set(odds_form.cleaned_data["properties"]) if odds_form.is_valid() else set()

    def toggle(key):
        return {"key": key, "name": label(key), "widget": widgets[key], "level": test_levels[key]}

    zero_skills = [toggle(key) for key in rules.SKILLS if not test_levels[key]]
    return {
        "attribute_toggles": [toggle(key) for key in rules.ATTRIBUTES],
        "skill_toggles": [toggle(key) for key in rules.SKILLS if test_levels[key]],
        "zero_skill_toggles": zero_skills,
        # A chosen skill at level 0 keeps "show all" open, so no chosen box is hidden.
        "show_zero_skills": any(row["key"] in chosen for row in zero_skills),
        "favourites": list(character.favourite_tests.all()),
        "favourite_form": FavouriteNameForm(),
        "idempotency_key": idempotency.new_key(),
        "rolled": None,
    }


class FavouriteNameForm(forms.Form):
    favourite_name = forms.CharField(label=gettext_lazy("Name"), max_length=40, strip=True)
