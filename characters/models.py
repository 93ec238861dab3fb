from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from campaigns.models import RuleSystem
from rules import get_system
from rules.aoristos import character as rules


def default_attributes() -> dict[str, int]:
    return {key: rules.DEFAULT_ATTRIBUTE for key in rules.ATTRIBUTES}


def default_skills() -> dict[str, int]:
    return {key: rules.DEFAULT_SKILL for key in rules.SKILLS}


class CommaJoined(models.Aggregate):
    """A text column's values joined with commas: GROUP_CONCAT on SQLite (whose STRING_AGG
    arrived only in 3.44), STRING_AGG on PostgreSQL."""

    function = "STRING_AGG"
    template = "%(function)s(%(expressions)s, ',')"
    output_field = models.TextField()

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="GROUP_CONCAT", **extra_context)


class CharacterQuerySet(models.QuerySet):
    def with_levels(self):
        """Annotate what levels() and load() would each ask the database for: the keys
        raised by spends not undone (``raised_keys``) and the FP carried
        (``carried_bulk``). The live table rolls a success test from one query."""
        spends = (
            DpEntry.objects.filter(
                character=models.OuterRef("pk"),
                kind=DpEntry.Kind.SPEND,
                undone_by__isnull=True,
            )
            .values("character")
            .annotate(keys=CommaJoined("key"))
            .values("keys")
        )
        return self.annotate(
            raised_keys=models.Subquery(spends, output_field=models.TextField())
        ).with_carried()

    def with_carried(self):
        """Annotate what the character carries (``carried_bulk``: Aoristos's FP, an entered
        system's kg), read by ``Character.carried`` without another query."""
        bulk = models.DecimalField(max_digits=12, decimal_places=1)
        carried = (
            Item.objects.filter(character=models.OuterRef("pk"))
            .values("character")
            .annotate(total=models.Sum(models.F("bulk") * models.F("quantity"), output_field=bulk))
            .values("total")
        )
        return self.annotate(carried_bulk=models.Subquery(carried, output_field=bulk))


class Character(models.Model):
    """An Aoristos rollperson (RP): the build a player bought with UP."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    # A character may play in one campaign; removed from it, it stays with its owner.
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
    )
    name = models.CharField(_("Name"), max_length=100)
    concept = models.CharField(_("Concept"), max_length=200, blank=True)
    notes = models.TextField(_("Notes"), blank=True)
    gm_notes = models.TextField(_("GM notes"), blank=True)  # only the campaign's GM sees these
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
    # The rule system the character is made for (rules.get_system): a campaign seats only
    # its own system's characters.
    rule_system = models.CharField(
        _("Rule system"), max_length=20, choices=RuleSystem, default=RuleSystem.AORISTOS
    )
    # Values keyed by the system's code names (glossary.md); the rules core validates them.
    attributes = models.JSONField(default=default_attributes)
    skills = models.JSONField(default=default_skills)
    # What the system rolled once when the character was made (Phobia's Lugn 2T6): every
    # die, rolled on the server and kept.
    rolled = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("character")
        verbose_name_plural = _("characters")

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("characters:sheet", args=[self.pk])

    @property
    def system(self):
        """The character's rule system (rules.system.RuleSystem)."""
        return get_system(self.rule_system)

    def values(self) -> dict[str, int]:
        """Every stat's value for a system whose characters are entered (not bought): the
        stored one, else the stat's default."""
        system = self.system
        stored = self.attributes | self.skills
        return {stat.key: int(stored.get(stat.key, stat.default))
                for stat in system.attributes + system.skills}

    def attribute(self, key: str) -> int:
        return int(self.attributes.get(key, rules.DEFAULT_ATTRIBUTE))

    def skill(self, key: str) -> int:
        return int(self.skills.get(key, rules.DEFAULT_SKILL))

    def build_levels(self) -> dict[str, int]:
        """The levels bought at creation, keyed by code name, in the rule text's order."""
        levels = {key: self.attribute(key) for key in rules.ATTRIBUTES}
        return levels | {key: self.skill(key) for key in rules.SKILLS}

    def raises(self) -> dict[str, int]:
        """Levels gained through the UP ledger: spends that were not undone."""
        if hasattr(self, "raised_keys"):  # annotated by with_levels()
            keys = self.raised_keys.split(",") if self.raised_keys else []
        else:
            spends = self.ledger.filter(kind=DpEntry.Kind.SPEND, undone_by__isnull=True)
            keys = spends.values_list("key", flat=True)
        raised: dict[str, int] = {}
        for key in keys:
            raised[key] = raised.get(key, 0) + 1
        return raised

    def levels(self) -> dict[str, int]:
        """Current levels: the build plus the ledger (p. 3)."""
        raised = self.raises()
        return {key: level + raised.get(key, 0) for key, level in self.build_levels().items()}

    def test_levels(self, levels: dict[str, int] | None = None, load=None) -> dict[str, int]:
        """The levels a success test uses: the current ones, with the effective RÖR under
        load (p. 5). Pass what the caller has read already."""
        levels = levels or self.levels()
        load = load or self.load(levels)
        return levels | {"agility": load["agility"]}

    def secondary(self, levels: dict[str, int] | None = None) -> rules.Secondary:
        """Secondary attributes from the current (unmodified) primaries (p. 2)."""
        levels = levels or self.levels()
        return rules.secondary({key: levels[key] for key in rules.ATTRIBUTES})

    def ledger_sum(self) -> int:
        """UP the ledger added since the build: awards and refunds less spends. A character
        not yet saved has no ledger."""
        if self.pk is None:
            return 0
        return self.ledger.aggregate(total=models.Sum("amount"))["total"] or 0

    def saved_dp(self, report: rules.BuildReport | None = None) -> int:
        """UP kept for later development: the build's UP left plus the ledger's sum. Pass
        ``report`` to price a build being edited instead of the saved one."""
        return (report or self.evaluate()).dp_left + self.ledger_sum()

    def carried(self) -> Decimal:
        """What the character's items weigh together (FP; kg in an entered system)."""
        if hasattr(self, "carried_bulk"):  # annotated by with_carried()
            return self.carried_bulk or Decimal("0")
        return sum((item.total_bulk for item in self.items.all()), Decimal("0"))

    def load(self, levels: dict[str, int] | None = None) -> dict:
        """Carried FP against Bärförmåga, and the effective RÖR and Förflyttning (p. 5)."""
        levels = levels or self.levels()
        secondary = self.secondary(levels)
        bulk = self.carried()
        penalty = rules.encumbrance_penalty(bulk, secondary.carrying_capacity)
        agility, movement = rules.apply_encumbrance(levels["agility"], secondary.movement, penalty)
        return {
            "bulk": bulk,
            "carrying_capacity": secondary.carrying_capacity,
            "penalty": penalty,
            "agility": agility,
            "movement": movement,
        }

    def combat_stats(self, house: dict | None = None) -> tuple[dict[str, int], dict]:
        """What a combat engine's `character_block` takes: the levels a fight uses and the
        derived values by key. Aoristos: current levels with RÖR and Förflyttning under load
        (p. 5). An entered system: the entered values and the system's derived values under
        the campaign's house rules `house`."""
        system = self.system
        if system.builder == "points":
            levels = self.levels()
            load = self.load(levels)
            derived = self.secondary(levels).as_dict() | {"movement": load["movement"]}
            return levels | {"agility": load["agility"]}, derived
        values = self.values()
        house = system.house(house or {})
        derived = {d.key: d.value for d in system.derived(values, self.rolled, house)}
        # What it carries, where the system weighs it (Phobia: overloaded above
        # Bärförmåga, lines 274-283): the Ob dice its load adds, which a fight puts on
        # every action (`burden`).
        carrying = system.carrying(values, self.rolled, house, Fraction(self.carried()))
        if carrying is not None and carrying.levels:
            derived["burden"] = carrying.levels
        return values, derived

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
    # "weapon:<key>" or "armour:<key>" of the campaign's catalogue (combat.services): the
    # character carries it into encounters.
    catalogue = models.CharField(_("From the catalogue"), max_length=60, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("item")
        verbose_name_plural = _("items")

    def __str__(self):
        return self.name

    @property
    def total_bulk(self) -> Decimal:
        return self.bulk * self.quantity


class DpEntry(models.Model):
    """One line of a character's UP ledger: an award, a spend, or the undoing of a spend.

    A character's levels are its build plus its spends that were not undone; its saved UP
    are the build's UP left plus the sum of ``amount`` over the ledger (p. 3).
    """

    class Kind(models.TextChoices):
        AWARD = "award", _("Award")
        SPEND = "spend", _("Spend")
        UNDO = "undo", _("Undo")

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="ledger")
    kind = models.CharField(max_length=10, choices=Kind)
    amount = models.IntegerField()  # + for awards and refunds, - for spends
    key = models.CharField(max_length=30, blank=True)  # attribute or skill raised
    level_before = models.PositiveSmallIntegerField(null=True, blank=True)
    level_after = models.PositiveSmallIntegerField(null=True, blank=True)
    reason = models.CharField(_("Reason"), max_length=200, blank=True)
    dp_before = models.IntegerField()
    dp_after = models.IntegerField()
    undoes = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="undone_by"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The key of the form that made this entry (core.db.idempotency): a retried POST finds
    # its entry by the constraint below instead of making another. One group award makes
    # one entry per character, all with its key: hence per character. NULL (no key: old
    # clients, the shell) is outside the constraint.
    idempotency_key = models.CharField(  # noqa: DJ001
        max_length=64, null=True, blank=True, editable=False
    )

    class Meta:
        ordering = ["-pk"]
        verbose_name = _("UP ledger entry")
        verbose_name_plural = _("UP ledger entries")
        constraints = [
            models.UniqueConstraint(
                fields=["created_by", "character", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="one_entry_per_idempotency_key",
            ),
        ]

    def __str__(self):
        return f"{self.character}: {self.kind} {self.amount:+d}"
