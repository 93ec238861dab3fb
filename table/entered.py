"""The live table's success test for a rule system other than Aoristos (rules.system):
the tray asks what the system's ``test_params`` list, shows the exact odds of its
``plan_test`` before the roll, and rolls with its ``roll_test`` on the server. Nothing
here knows a system: Phobia's difficulty in Ob dice is one of its test parameters."""

from django import forms
from django.utils.choices import CallableChoiceIterator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from campaigns import scoped
from characters.damage import latest_body
from rules import RulesError
from table.models import RollEvent
from table.services import open_situation


def hand_error(error: RulesError, examples) -> str:
    """What is wrong with a typed dice hand, in the reader's language (the rules core's
    message is English; its code and params say the same here)."""
    params = {"examples": ", ".join(examples), **error.params}
    messages = {
        "too_long": gettext("A dice hand has at most %(limit)s characters."),
        "too_many_dice": gettext(
            "“%(text)s” has a number of dice the tray cannot roll (at most %(limit)s)."
        ),
        "modifier_too_large": gettext(
            "The modifier in “%(text)s” is too large: at most ±%(limit)s."
        ),
    }
    template = messages.get(getattr(error, "code", ""))
    if template is None or "text" in template and "text" not in params:
        return gettext("That is not a dice hand. Write e.g. %(examples)s.") % params
    return template % params


OTHER = "other"  # the opponent is someone without a sheet: a name and a chance typed
MAX_CHANCE = 200  # the exact odds' limit (rules.phobia.success.MAX_EXACT_CHANCE)
EARLIER_ROLLS = 20  # how many of the newest tests the tray offers to oppose


class EnteredTestForm(forms.Form):
    """A success test (character, what is tested, the system's test parameters), an opposed
    test (where the system has them: against another character, someone without a sheet,
    or a roll made earlier) or a bare dice hand of the system ("1T10"); (the GM) secrecy.

    An opposed test's opponent is one choice: "character:<pk>" (any character of the
    campaign, tested against ``opponent_stat``), "other" (``opponent_name`` with
    ``opponent_chance``) or "roll:<seq>" (an earlier test in the log, its effect kept)."""

    MODE_TEST = "test"
    MODE_OPPOSED = "opposed"
    MODE_HAND = "hand"
    OWN_FIELDS = (
        *("mode", "character", "stat", "hand", "secret", "opponent", "opponent_stat"),
        *("opponent_name", "opponent_chance", "after", "toward", "toward_name"),
    )  # the rest: the system's test_params, and its opposed_params as "opponent_<key>"
    mode = forms.ChoiceField(
        choices=[
            (MODE_TEST, _("Success test")),
            (MODE_OPPOSED, _("Opposed test")),
            (MODE_HAND, _("Dice hand")),
        ],
        initial=MODE_TEST,
        required=False,
        widget=forms.RadioSelect,
    )
    character = forms.ModelChoiceField(
        label=_("Character"), queryset=None, empty_label=None, required=False
    )
    stat = forms.ChoiceField(label=_("Tested against"), required=False)
    opponent = forms.CharField(label=_("Against"), required=False, widget=forms.Select)
    opponent_stat = forms.ChoiceField(label=_("The opponent tests"), required=False)
    opponent_name = forms.CharField(label=_("Opponent"), max_length=60, required=False)
    opponent_chance = forms.IntegerField(
        label=_("The opponent's chance"), min_value=0, max_value=MAX_CHANCE, required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    # Where the system's tests carry (T10): the earlier roll this one continues, and
    # whom a social roll is with (its carry is kept per pair of people).
    after = forms.CharField(label=_("Continues"), required=False, widget=forms.Select)
    toward = forms.CharField(label=_("With whom (social)"), required=False,
                             widget=forms.Select)
    toward_name = forms.CharField(label=_("Name"), max_length=60, required=False)
    hand = forms.CharField(label=_("Hand"), max_length=40, required=False)
    secret = forms.BooleanField(label=_("Secret roll (only you see it)"), required=False)

    def __init__(self, *args, campaign, characters, can_roll_secretly: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system = campaign.system
        self.campaign = campaign
        self.campaign_id = campaign.pk
        self.is_gm = can_roll_secretly
        # The campaign's (every character here plays in it): read once, not per character.
        self.house = campaign.house()
        self.fields["character"].queryset = characters
        values = {stat.key: stat.default for stat in system.attributes + system.skills}
        terms = system.testables(values, {}, self.house) if system.attributes else ()
        self.fields["stat"].choices = [(term.key, term.label) for term, _value in terms]
        if system.carries:
            self.fields["after"].widget.choices = CallableChoiceIterator(self.continuations)
            self.fields["toward"].widget.choices = CallableChoiceIterator(self.counterparts)
        else:
            for name in ("after", "toward", "toward_name"):
                del self.fields[name]
        if system.opposition:
            # Someone without a sheet is given the system's value (Phobia: a chance;
            # T10: a bonus), with its bounds.
            self.fields["opponent_chance"] = param_field(system.opponent_value)
            self.fields["opponent_stat"].choices = self.fields["stat"].choices
            self.fields["opponent"].widget.choices = CallableChoiceIterator(self.opponents)
            for param in system.opposed_params:
                field = param_field(param)
                field.label = gettext("The opponent's %(name)s") % {
                    "name": gettext(param.name).lower()
                }
                self.fields[f"opponent_{param.key}"] = field
        else:
            self.fields["mode"].choices = [
                c for c in self.fields["mode"].choices if c[0] != self.MODE_OPPOSED
            ]
            for name in self.OWN_FIELDS:
                if name.startswith("opponent"):
                    del self.fields[name]
        for param in system.test_params:
            self.fields[param.key] = param_field(param)
        self.fields["hand"].initial = system.hand_examples[0] if system.hand_examples else ""
        self.fields["hand"].help_text = gettext("e.g. %(examples)s") % {
            "examples": ", ".join(system.hand_examples)
        }
        if not can_roll_secretly:
            del self.fields["secret"]

    def opponent_param_fields(self) -> list:
        """The bound fields of the opponent's own test parameters (``opposed_params``)."""
        return [self[f"opponent_{param.key}"] for param in self.system.opposed_params]

    @property
    def is_hand(self) -> bool:
        return self.cleaned_data.get("mode") == self.MODE_HAND

    @property
    def is_opposed(self) -> bool:
        return self.cleaned_data.get("mode") == self.MODE_OPPOSED

    @property
    def rolls_in_secret(self) -> bool:
        """Whether this roll is the GM's secret one: only such a roll continues, opposes or
        carries from a secret roll, or is rolled in a secret roll's Lugn situation
        (docs/rules/t10.md, "Secret rolls")."""
        return bool(self.cleaned_data.get("secret"))

    def opponents(self) -> list:
        """The opponents the tray offers (read only when the tray is shown): the
        campaign's characters, someone without a sheet, and the newest tests in the log
        this user sees (a player does not see the GM's secret ones)."""
        characters = [
            (f"character:{c.pk}", c.name) for c in self.campaign.characters.order_by("name")
        ]
        rolls = [
            (f"roll:{seq}", earlier_label(seq, name, label, chance) + secret_mark(secret))
            for seq, name, label, chance, secret in self.earlier_rolls().values_list(
                "seq", "character__name", "label", "test_base", "secret"
            )[:EARLIER_ROLLS]
        ] if self.system.delayed_opposition else []
        return [
            (gettext("Characters"), characters),
            (OTHER, gettext("Someone else (a name and a chance)")),
            *([(gettext("An earlier roll (its effect kept)"), rolls)] if rolls else []),
        ]

    def continuations(self) -> list:
        """The rolls a test may continue (T10): the newest tests this user sees, each
        with its degrees ("#12 Johan · Förhöra 7: 3 DoF"); the GM's secret ones marked."""
        rolls = self.earlier_rolls().values_list(
            "seq", "character__name", "label", "detail", "secret"
        )
        choices = [("", gettext("Nothing: a new roll"))]
        for seq, name, label, detail, secret in rolls[:EARLIER_ROLLS]:
            try:
                result = self.system.result_of(detail)
            except RulesError:
                continue
            choices.append(
                (f"roll:{seq}", continuation_label(seq, name, label, result) + secret_mark(secret))
            )
        return choices

    def counterparts(self) -> list:
        """Whom a social roll may be with: a character of the campaign or someone named."""
        characters = [
            (f"character:{c.pk}", c.name) for c in self.campaign.characters.order_by("name")
        ]
        return [
            ("", gettext("Nobody in particular")),
            (gettext("Characters"), characters),
            (OTHER, gettext("Someone else (a name)")),
        ]

    def earlier_rolls(self):
        """The tests this user may oppose later (lines 580-609), newest first: the
        campaign's own tests of this system (no hands, no opposed tests) that they see."""
        rolls = RollEvent.objects.filter(
            campaign_id=self.campaign_id, kind=RollEvent.Kind.TEST,
            detail__system=self.system.name,
        ).exclude(detail__has_key="opposed").exclude(detail__has_key="against")
        if not self.is_gm:
            rolls = rolls.filter(secret=False)
        return rolls.order_by("-seq")

    def clean(self):
        cleaned = super().clean()
        cleaned["mode"] = cleaned.get("mode") or self.MODE_TEST
        if cleaned["mode"] == self.MODE_HAND:
            text = (cleaned.get("hand") or "").strip()
            if not text:
                self.add_error("hand", gettext("Write a dice hand, e.g. %(examples)s.") % {
                    "examples": ", ".join(self.system.hand_examples)
                })
            elif "hand" not in self.errors:
                try:
                    cleaned["hand_plan"] = self.system.plan_hand(text)
                except RulesError as error:
                    self.add_error("hand", hand_error(error, self.system.hand_examples))
            return cleaned
        if cleaned.get("character") is None and "character" not in self.errors:
            self.add_error("character", gettext("Choose a character to test."))
        if not cleaned.get("stat") and "stat" not in self.errors:
            self.add_error("stat", gettext("Choose what to test."))
        for param in self.system.test_params:
            if cleaned.get(param.key) is None and param.key not in self.errors:
                cleaned[param.key] = param.default
        if cleaned["mode"] == self.MODE_OPPOSED and self.system.opposition:
            self.check_opponent(cleaned)
        if self.system.carries:
            self.check_carry(cleaned)
        return cleaned

    def check_carry(self, cleaned):
        """The earlier roll a test continues (``after``) and whom a social roll is with
        (``toward``: "character:<pk>", "other" with ``toward_name``, or nobody)."""
        choice = cleaned.get("after") or ""
        kind, _sep, number = choice.partition(":")
        if choice:
            seq = int(number) if kind == "roll" and number.isascii() and number.isdigit() \
                and len(number) < 19 else None
            cleaned["continued"] = (
                self.earlier_rolls().filter(seq=seq).first() if seq is not None else None
            )
            if cleaned["continued"] is None:
                self.add_error("after", gettext("There is no such roll to continue."))
            elif cleaned["continued"].secret and not self.rolls_in_secret:
                self.add_error("after", gettext(
                    "That roll is secret: only a secret roll may continue it, or the log "
                    "would show it to the players. Tick “Secret roll” or choose another."
                ))
        toward = cleaned.get("toward") or ""
        kind, _sep, number = toward.partition(":")
        cleaned["pair"] = None
        if toward == OTHER:
            name = " ".join((cleaned.get("toward_name") or "").split())
            if not name:
                self.add_error("toward_name", gettext("Name whom the roll is with."))
            else:
                cleaned["pair"] = {"key": "name:" + name.casefold(), "name": name}
        elif kind == "character" and number.isascii() and number.isdigit() and len(number) < 19:
            try:
                other = scoped.character(self.campaign.pk, int(number),
                                         system=self.campaign.rule_system)
            except scoped.NotInCampaign:
                self.add_error("toward", gettext("That character does not play here."))
            else:
                cleaned["pair"] = {"key": f"character:{other.pk}", "name": other.name}
        elif toward:
            self.add_error("toward", gettext("Choose whom the roll is with."))

    def check_opponent(self, cleaned):
        """The opponent, checked: one query for a character or an earlier roll."""
        choice = cleaned.get("opponent") or ""
        kind, _sep, number = choice.partition(":")
        pk = int(number) if number.isascii() and number.isdigit() and len(number) < 19 else None
        if choice == OTHER:
            if not (cleaned.get("opponent_name") or "").strip():
                self.add_error("opponent_name", gettext("Name the opponent."))
            if cleaned.get("opponent_chance") is None and "opponent_chance" not in self.errors:
                self.add_error("opponent_chance", gettext("Give the opponent's chance."))
        elif kind == "character" and pk is not None:
            cleaned["opponent_character"] = (
                self.campaign.characters.with_carried().filter(pk=pk).first()
            )
            if cleaned["opponent_character"] is None:
                self.add_error("opponent", gettext("That character does not play here."))
            elif not cleaned.get("opponent_stat") and "opponent_stat" not in self.errors:
                self.add_error("opponent_stat", gettext("Choose what the opponent tests."))
        elif kind == "roll" and pk is not None:
            cleaned["earlier"] = (
                self.earlier_rolls().select_related("character").filter(seq=pk).first()
            )
            if cleaned["earlier"] is None:
                self.add_error("opponent", gettext("There is no such roll to oppose."))
            elif cleaned["earlier"].secret and not self.rolls_in_secret:
                self.add_error("opponent", gettext(
                    "That roll is secret: only a secret roll may oppose it, or the log "
                    "would show it to the players. Tick “Secret roll” or choose another."
                ))
        else:
            self.add_error("opponent", gettext("Choose whom the test is against."))
        for param in self.system.opposed_params:
            name = f"opponent_{param.key}"
            if cleaned.get(name) is None and name not in self.errors:
                cleaned[name] = param.default

    def plan(self):
        """The test as the system plans it, with its exact odds; a ValidationError when the
        system refuses it (a reason for the player)."""
        data = self.cleaned_data
        request = {param.key: data[param.key] for param in self.system.test_params}
        if self.system.carries:
            request["after"] = self.carried_from(data["character"], data["stat"])
        return self.character_plan(data["character"], data["stat"], request)

    def social_pair(self) -> dict | None:
        """Whom this social roll is with, to keep in the log (None: not a social roll)."""
        data = self.cleaned_data
        pair = data.get("pair")
        if pair and self.system.carries and self.system.is_social(data["stat"]):
            return pair
        return None

    def carried_from(self, character, stat: str) -> dict | None:
        """The earlier roll a test continues: the one chosen, or else, for a social roll
        with someone, the character's newest social roll with them however long ago
        (T10, "Att använda DoS och DoF"); None when it continues nothing. A roll that is
        not secret carries from the pair's newest roll that is not secret either: the
        GM's secret ones carry only into the GM's later secret ones (docs/rules/t10.md,
        "Secret rolls"), so no log line shows a secret roll's number or degrees."""
        data = self.cleaned_data
        event = data.get("continued")
        pair = data.get("pair")
        if event is None and pair and self.system.is_social(stat):
            rolls = RollEvent.objects.filter(
                campaign_id=self.campaign_id, character_id=character.pk,
                detail__toward=pair["key"],
            )
            if not self.rolls_in_secret:
                rolls = rolls.filter(secret=False)
            event = rolls.order_by("-seq").first()
        if event is None:
            return None
        try:
            result = self.system.result_of(event.detail)
        except RulesError as error:
            raise forms.ValidationError(
                gettext("That roll cannot be read back from the log.")
            ) from error
        return {"result": result, "same": event.character_id == character.pk, "seq": event.seq}

    def opposition(self) -> dict:
        """The opposed test planned: the tested side's plan ``a`` and either the
        opponent's plan ``b`` with its ``name`` (active opposition, lines 556-578) or the
        ``earlier`` roll with its result (lines 580-609), and ``p``: the exact chance the
        tested side wins (overcomes the earlier roll). A ValidationError (a reason for the
        player) when the system refuses a side or nobody can ever win."""
        data, system = self.cleaned_data, self.system
        a = self.plan()
        earlier = data.get("earlier")
        if earlier is not None:
            try:
                result = system.result_of(earlier.detail)
            except RulesError as error:
                raise forms.ValidationError(
                    gettext("That roll cannot be read back from the log.")
                ) from error
            who = earlier.character.name if earlier.character else ""
            # The earlier roll's voluntary levels, if it succeeded (Phobia, lines 589-597).
            if hasattr(system, "against_earlier"):
                a = system.against_earlier(a, result)
            return {"a": a, "earlier": earlier, "result": result, "name": who,
                    "p": system.delayed_odds(a, result)}
        difficulty = {p.key: data[f"opponent_{p.key}"] for p in system.opposed_params}
        if data.get("opponent_character") is not None:
            opponent = data["opponent_character"]
            b = self.character_plan(opponent, data["opponent_stat"], difficulty)
            name = opponent.name
        else:
            name = data["opponent_name"].strip()
            try:
                b = system.plan_test({"chance": data["opponent_chance"]},
                                     {"stat": "chance", "label": name, **difficulty}, self.house)
            except RulesError as error:
                raise forms.ValidationError(gettext(str(error))) from error
        p = system.opposed_odds(a, b)
        if p is None:
            raise forms.ValidationError(gettext(
                "Nobody can win this: both sides are certain of the same result. "
                "Give one of them dice or another chance."
            ))
        return {"a": a, "b": b, "name": name,
                "character": data.get("opponent_character"), "p": p}

    def character_plan(self, character, stat: str, request: dict):
        """A test of ``character``'s ``stat`` with the test parameters of ``request``."""
        system, house = self.system, self.house
        entered = character.values()
        testables = system.testables(entered, character.rolled, house)
        derived = system.derived(entered, character.rolled, house)
        # Every entered value (T10's Initiativ decides a duel's start), then the derived
        # ones, then what each testable rolls with (a T10 skill falls back on its ability).
        values = entered | {d.key: d.value for d in derived if d.value is not None} | {
            term.key: value for term, value in testables if value is not None
        }
        # What it carries may hinder it (Phobia: overloaded above Bärförmåga).
        request = {**request, "stat": stat, "carried": character.carried()}
        # A situation its Lugn roll opened changes the character's other tests in it.
        request["situation"] = open_situation(
            self.campaign_id, character.pk, secret=self.rolls_in_secret
        )
        if system.reads_body:  # T10: the Utmattning its latest fight left on it
            request["body"], request["in_fight"] = latest_body(character, self.campaign_id)
        if request["stat"] not in values:
            raise forms.ValidationError(
                gettext("%(name)s has no value to test that against yet.")
                % {"name": character.name}
            )
        terms = {term.key: term for term, _value in testables}
        request["label"] = terms[request["stat"]].short
        try:
            return system.plan_test(values, request, house)
        except RulesError as error:
            raise forms.ValidationError(gettext(str(error))) from error


def param_field(param) -> forms.Field:
    """The tray's field for a system's test parameter (rules.system.TestParam): a choice
    where its values have names (Phobia's Ob3T6 Normalsvårt), else a whole number."""
    if param.choices:
        field = forms.TypedChoiceField(
            choices=param.choices, coerce=int, initial=param.default, empty_value=None
        )
    else:
        field = forms.IntegerField(
            min_value=param.minimum, max_value=param.maximum, initial=param.default,
            widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        )
    field.label = gettext(param.name)
    field.help_text = gettext(param.help) if param.help else ""
    field.required = False
    return field


def continuation_label(seq: int, name: str | None, label: str, result) -> str:
    """An earlier roll as the "continues" list names it: "#12 Johan · Förhöra 7: 3 DoF"."""
    dos, dof = result.marks.get("dos", 0), result.marks.get("dof", 0)
    degrees = f"{dos} DoS" if dos else f"{dof} DoF" if dof else "±0"
    return f"#{seq} {name or '?'} · {label} {result.total}: {degrees}"


def secret_mark(secret: bool) -> str:
    """What the GM's lists add to a secret roll's name: only a secret roll may continue or
    oppose it."""
    return " " + gettext("(secret)") if secret else ""


def earlier_label(seq: int, name: str | None, label: str, chance: int | None) -> str:
    """An earlier test as the opponent list names it: "#12 Sinclair · Gömma 15"."""
    return f"#{seq} {name or '?'} · {label} {chance if chance is not None else ''}".strip()


def hand_odds(plan) -> dict:
    """What the tray shows before a bare hand is rolled: its range and exact mean."""
    return {"hand": plan.notation, "low": plan.low, "high": plan.high, "mean": float(plan.mean)}


def opposition_odds(opposition: dict, system=None) -> dict:
    """What the tray shows before an opposed test: both sides and the exact chance that the
    tested side wins (ties rolled again) or overcomes the earlier roll."""
    context = odds_context(opposition["a"], system) | {"win": float(opposition["p"]) * 100}
    if "earlier" in opposition:
        result = opposition["result"]
        return context | {"against": {
            "seq": opposition["earlier"].seq, "name": opposition["name"],
            "label": opposition["earlier"].label, "effect": result.marks["effect"],
            "perfect": result.marks["perfect"],
        }}
    b = opposition["b"]
    return context | {"opponent": {
        "name": opposition["name"], "label": b.label, "target": b.target,
        "notation": b.notation, "situation": b.params.get("situation"),
    }}


def odds_context(plan, system=None) -> dict:
    """What the tray shows before the roll: the label, dice, target and exact odds, and
    the system's own template for what else it shows (T10: every DoS and DoF)."""
    return {
        "template": getattr(system, "odds_template", None),
        "params": dict(plan.params),
        # The chance of each degree where the system gives them ("degree:<n>", T10's
        # DoS above 0 and DoF below), in order.
        "degrees": sorted(
            (int(key.partition(":")[2]), float(p) * 100)
            for key, p in plan.odds.items() if key.startswith("degree:")
        ),
        "system": True,
        "label": plan.label,
        "notation": plan.notation,
        "target": plan.target,
        "percent": float(plan.p_success) * 100,
        "others": {key: float(p) * 100 for key, p in plan.odds.items()},
        "situation": plan.params.get("situation"),
        "burden": plan.params.get("burden"),  # Ob dice its load adds (overloaded)
        # Phobia's voluntary levels on one's own roll, and those an earlier roll imposes
        # on a later one against it (lines 589-597).
        "voluntary": plan.params.get("voluntary"),
        "imposed": plan.params.get("imposed"),
    }
