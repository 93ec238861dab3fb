from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from rules.aoristos import character as rules


def default_attributes() -> dict[str, int]:
    return {key: rules.DEFAULT_ATTRIBUTE for key in rules.ATTRIBUTES}


def default_skills() -> dict[str, int]:
    return {key: rules.DEFAULT_SKILL for key in rules.SKILLS}


class Character(models.Model):
    """An Aoristos rollperson (RP): the build a player bought with UP."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    name = models.CharField(_("Name"), max_length=100)
    concept = models.CharField(_("Concept"), max_length=200, blank=True)
    notes = models.TextField(_("Notes"), blank=True)
    dp_budget = models.PositiveSmallIntegerField(
        _("UP budget"),
        default=rules.DEFAULT_DP_BUDGET,
        validators=[MinValueValidator(0), MaxValueValidator(rules.MAX_DP_BUDGET)],
    )
    level_cap = models.PositiveSmallIntegerField(
        _("Level cap"),
        default=rules.DEFAULT_LEVEL_CAP,
        validators=[MinValueValidator(0), MaxValueValidator(rules.MAX_LEVEL)],
    )
    # Levels keyed by the glossary's code names; the rules core validates them.
    attributes = models.JSONField(default=default_attributes)
    skills = models.JSONField(default=default_skills)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("character")
        verbose_name_plural = _("characters")

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("characters:sheet", args=[self.pk])

    def attribute(self, key: str) -> int:
        return int(self.attributes.get(key, rules.DEFAULT_ATTRIBUTE))

    def skill(self, key: str) -> int:
        return int(self.skills.get(key, rules.DEFAULT_SKILL))

    def levels(self) -> dict[str, int]:
        """Every attribute and skill level, keyed by code name, in the rule text's order."""
        levels = {key: self.attribute(key) for key in rules.ATTRIBUTES}
        return levels | {key: self.skill(key) for key in rules.SKILLS}

    def load(self) -> dict:
        """Carried FP against Bärförmåga, and the effective RÖR and Förflyttning (p. 5)."""
        secondary = rules.secondary({key: self.attribute(key) for key in rules.ATTRIBUTES})
        bulk = sum((item.total_bulk for item in self.items.all()), Decimal("0"))
        penalty = rules.encumbrance_penalty(bulk, secondary.carrying_capacity)
        agility, movement = rules.apply_encumbrance(
            self.attribute("agility"), secondary.movement, penalty
        )
        return {
            "bulk": bulk,
            "carrying_capacity": secondary.carrying_capacity,
            "penalty": penalty,
            "agility": agility,
            "movement": movement,
        }

    def evaluate(self) -> rules.BuildReport:
        return rules.evaluate_build(
            {key: self.attribute(key) for key in rules.ATTRIBUTES},
            {key: self.skill(key) for key in rules.SKILLS},
            self.dp_budget,
            self.level_cap,
        )


class Item(models.Model):
    """A piece of equipment a character carries; its bulk counts toward the load (p. 5)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(_("Item"), max_length=100)
    bulk = models.DecimalField(
        _("FP each"),
        max_digits=5,
        decimal_places=1,
        default=Decimal("1"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("999"))],
    )
    quantity = models.PositiveSmallIntegerField(
        _("Number"), default=1, validators=[MinValueValidator(1), MaxValueValidator(999)]
    )

    class Meta:
        ordering = ["pk"]
        verbose_name = _("item")
        verbose_name_plural = _("items")

    def __str__(self):
        return self.name

    @property
    def total_bulk(self) -> Decimal:
        return self.bulk * self.quantity
