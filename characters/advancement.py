"""Advancement pages (p. 3): the GM awards UP, the player spends them a level at a time,
and the ledger shows every change.

Who may do what (campaigns.access decides, on every request):

- a character's advancement page, spends and undo: its owner and the GM of its campaign
  (Access.EDIT); other members of the campaign get 403, everybody else 404;
- awards: only the GM of the character's campaign (Access.GM), on the character's page or
  on the campaign's awards page (``get_campaign(..., gm=True)``: players 403).

Every form that changes the ledger carries its own ``idempotency_key`` (core.db.idempotency),
fresh on each render: a retried POST (a lost answer) is answered as the first one was and
changes nothing again.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from campaigns.access import Access, get_campaign, get_character
from characters import services
from characters.models import Character, DpEntry
from characters.terms import ATTRIBUTE_TERMS, SKILL_TERMS, TERMS
from core.db import idempotency
from rules import RulesError
from rules.aoristos import advancement
from rules.aoristos import character as rules

ALL = "all"


def number_input(**attrs) -> forms.NumberInput:
    return forms.NumberInput(attrs={"inputmode": "numeric", "class": "level", **attrs})


class AwardForm(forms.Form):
    """An award: a free amount with a reason, or by one of the book's tables (p. 3, 4).

    ``targets`` (campaign page only) adds the choice of one character or the whole group.
    After validation ``award_amount`` and ``award_reason`` hold what goes into the ledger;
    ``award_amount`` is also set, for the preview, when only the reason is missing.
    """

    METHODS = [
        ("free", gettext_lazy("Free amount")),
        ("travel", gettext_lazy("Travel")),
        ("hardship", gettext_lazy("Hardship")),
        ("training", gettext_lazy("Training")),
        ("combat", gettext_lazy("Combat")),
    ]
    # The four rows of "Strid, oavsett resultat" (top of p. 4).
    CHALLENGES = [
        (0, gettext_lazy("0 UP: no threat if the characters take it seriously")),
        (1, gettext_lazy("1 UP: the average character would win alone")),
        (2, gettext_lazy("2 UP: the average character would lose alone")),
        (3, gettext_lazy("3 UP: the whole group is threatened")),
    ]

    target = forms.ChoiceField(label=gettext_lazy("To"))
    method = forms.ChoiceField(
        label=gettext_lazy("Award"), choices=METHODS, initial="free", widget=forms.RadioSelect
    )
    amount = forms.IntegerField(
        label=gettext_lazy("UP"),
        required=False,
        min_value=1,
        max_value=services.MAX_AWARD,
        widget=number_input(),
    )
    travel_months = forms.IntegerField(
        label=gettext_lazy("Months of travel"),
        required=False,
        min_value=1,
        max_value=advancement.MAX_MONTHS,
        widget=number_input(),
    )
    hardship = forms.IntegerField(
        label=gettext_lazy("UP for the hardship (up to 3)"),
        required=False,
        min_value=1,
        max_value=advancement.MAX_HARDSHIP_DP,
        widget=number_input(),
    )
    training_hours = forms.IntegerField(
        label=gettext_lazy("Instruction hours per day"),
        required=False,
        min_value=0,
        max_value=advancement.MAX_HOURS_PER_DAY,
        widget=number_input(),
    )
    training_months = forms.IntegerField(
        label=gettext_lazy("Months of training"),
        required=False,
        min_value=1,
        max_value=advancement.MAX_MONTHS,
        widget=number_input(),
    )
    challenge = forms.TypedChoiceField(
        label=gettext_lazy("Challenge"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=CHALLENGES,
        widget=forms.RadioSelect,
    )
    psych_trauma_ok = forms.BooleanField(
        label=gettext_lazy("I know: 12 or more hours a day gives psyktrauma (p. 15)."),
        required=False,
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"), required=False, max_length=services.MAX_REASON
    )

    # The fields each table needs, in the order they are checked.
    NEEDS = {
        "free": ("amount",),
        "travel": ("travel_months",),
        "hardship": ("hardship",),
        "training": ("training_hours", "training_months"),
        "combat": ("challenge",),
    }

    def __init__(self, *args, targets: list[Character] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.targets = {str(c.pk): c for c in targets or []}
        if targets is None:
            del self.fields["target"]
        else:
            self.fields["target"].choices = [(ALL, _("The whole group"))] + [
                (str(c.pk), f"{c.name} ({c.owner.username})") for c in targets
            ]
        self.award_amount: int | None = None
        self.award_reason = ""
        self.psych_trauma = False
        self.needs_teacher = False

    def clean(self):
        cleaned = super().clean()
        method = cleaned.get("method")
        if method is None:
            return cleaned
        note = cleaned.get("reason", "").strip()
        if method == "free" and not note and "reason" not in self.errors:
            self.add_error("reason", _("Give a reason for the award."))
        missing = False
        for name in self.NEEDS[method]:
            if cleaned.get(name) is None:
                missing = True
                if name not in self.errors:
                    self.add_error(name, _("Fill this in for this kind of award."))
        if missing:
            return cleaned
        if method == "free":
            self.award_amount = cleaned["amount"]
            description = note
        else:
            try:
                award = advancement.table_award(method, **self.table_params(method, cleaned))
            except RulesError as error:  # the fields' bounds already match the rules
                raise forms.ValidationError(str(error)) from None
            self.award_amount = award.amount
            self.psych_trauma = award.psych_trauma
            self.needs_teacher = award.needs_teacher
            description = self.describe(method, cleaned)
            if note:
                description = f"{description}: {note}"
            if award.amount == 0:
                self.add_error(None, _("The table gives 0 UP: there is nothing to award."))
            if award.psych_trauma and not cleaned.get("psych_trauma_ok"):
                self.add_error(
                    "psych_trauma_ok",
                    _("Training 12 or more hours a day gives psyktrauma: tick to confirm."),
                )
        if len(description) > services.MAX_REASON:
            self.add_error(
                "reason",
                _("The reason may be at most %(max)s characters long.")
                % {"max": services.MAX_REASON - (len(description) - len(note))},
            )
        self.award_reason = description
        return cleaned

    @staticmethod
    def table_params(method: str, cleaned: dict) -> dict[str, int]:
        if method == "travel":
            return {"months": cleaned["travel_months"]}
        if method == "hardship":
            return {"amount": cleaned["hardship"]}
        if method == "training":
            return {
                "hours_per_day": cleaned["training_hours"],
                "months": cleaned["training_months"],
            }
        return {"challenge": cleaned["challenge"]}

    @staticmethod
    def describe(method: str, cleaned: dict) -> str:
        """The ledger's reason for a table award, in the GM's language."""
        if method == "travel":
            months = cleaned["travel_months"]
            return ngettext("Travel, %(months)s month", "Travel, %(months)s months", months) % {
                "months": months
            }
        if method == "hardship":
            return _("Hardship")
        if method == "training":
            months = cleaned["training_months"]
            return ngettext(
                "Training %(hours)s h a day for %(months)s month",
                "Training %(hours)s h a day for %(months)s months",
                months,
            ) % {"hours": cleaned["training_hours"], "months": months}
        return _("Combat, challenge %(challenge)s") % {"challenge": cleaned["challenge"]}

    def target_character(self) -> Character | None:
        """The chosen character, or None for the whole group."""
        target = self.cleaned_data.get("target", ALL)
        return None if target == ALL else self.targets[target]


# --- the character's advancement page ---------------------------------------------------


def level_rows(terms, levels: dict[str, int], saved: int, cap: int) -> list[dict]:
    """One row per attribute or skill: its level, the price of the next, and why it
    cannot be bought now (the same checks as services.dp_spend, for the buttons)."""
    rows = []
    for term in terms:
        level = levels[term.key]
        row = {"term": term, "level": level, "next": level + 1, "cost": None, "blocked": ""}
        if level >= rules.MAX_LEVEL:
            row["blocked"] = _("highest level")
        else:
            row["cost"] = advancement.raise_cost(advancement.raise_kind(term.key), level)
            if level + 1 > cap:
                row["blocked"] = _("level cap %(cap)s") % {"cap": cap}
            elif row["cost"] > saved:
                row["blocked"] = _("needs %(cost)s UP") % {"cost": row["cost"]}
        if not row["blocked"]:
            row["idempotency_key"] = idempotency.new_key()
        rows.append(row)
    return rows


# The page shows the newest ledger entries; a spend's undo is newer than the spend, so every
# undone spend shown is marked. ?ledger=all shows the whole ledger.
LEDGER_ROWS = 20


def ledger_rows(character: Character, limit: int | None = LEDGER_ROWS) -> list[dict]:
    entries = character.ledger.select_related("created_by").order_by("-pk")
    entries = list(entries if limit is None else entries[:limit])
    undone = {entry.undoes_id for entry in entries if entry.undoes_id}
    rows = []
    for entry in entries:
        term = TERMS.get(entry.key)
        rows.append({"entry": entry, "term": term, "undone": entry.pk in undone})
    return rows


def page_context(character: Character, access: Access, *, whole_ledger=False, **extra) -> dict:
    levels = character.levels()
    ledger = ledger_rows(character, None if whole_ledger else LEDGER_ROWS + 1)
    saved = character.saved_dp()
    cap = services.level_cap_for(character)
    last_spend = services.undoable_spend(character)
    context = {
        "character": character,
        "is_gm": access >= Access.GM,
        "saved_dp": saved,
        "cap": cap,
        "attribute_rows": level_rows(ATTRIBUTE_TERMS, levels, saved, cap),
        "skill_rows": level_rows(SKILL_TERMS, levels, saved, cap),
        "ledger": ledger if whole_ledger else ledger[:LEDGER_ROWS],
        "ledger_more": not whole_ledger and len(ledger) > LEDGER_ROWS,
        "last_spend": last_spend,
        "last_spend_term": TERMS[last_spend.key] if last_spend else None,
        "last_spend_cost": -last_spend.amount if last_spend else None,
        "error": None,
        "notice": None,
        "undo_key": idempotency.new_key(),
        "award_key": idempotency.new_key(),
    }
    if context["is_gm"] and "award_form" not in extra:
        context["award_form"] = AwardForm()
    # Each of the ~30 raise buttons is a form to the same URL: reversed once, not per row.
    context["award_url"] = reverse("characters:award", args=[character.pk])
    context["spend_url"] = reverse("characters:spend", args=[character.pk])
    context["undo_url"] = reverse("characters:undo", args=[character.pk])
    return context | extra


@login_required
def advancement_page(request, pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    context = page_context(character, access, whole_ledger=request.GET.get("ledger") == "all")
    return render(request, "characters/advancement.html", context)


def after_change(request, character, access, *, notice: str):
    """htmx swaps the page's main region; without JavaScript, back to the page."""
    if request.htmx:
        context = page_context(character, access, notice=notice)
        return render(request, "characters/advancement.html#main", context)
    messages.success(request, notice)
    return redirect("characters:advancement", character.pk)


def refused(request, character, access, error: str):
    """A refusal changes nothing and says why, in the region htmx swaps or the whole page."""
    context = page_context(character, access, error=error)
    template = "characters/advancement.html#main" if request.htmx else "characters/advancement.html"
    return render(request, template, context, status=400)


@login_required
@require_POST
def spend(request, pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    key = request.POST.get("key", "")[:50]
    try:
        entry = services.dp_spend(
            character=character,
            key=key,
            by=request.user,
            idempotency_key=idempotency.key_from(request.POST),
        )
    except idempotency.InvalidKey as error:
        return refused(request, character, access, error.message)
    except services.AdvancementError as error:
        return refused(request, character, access, error.message)
    notice = _("%(name)s raised to %(level)s for %(cost)s UP.") % {
        "name": TERMS[entry.key].swedish,
        "level": entry.level_after,
        "cost": -entry.amount,
    }
    return after_change(request, character, access, notice=notice)


@login_required
@require_POST
def undo(request, pk: int):
    character, access = get_character(request, pk, Access.EDIT)
    try:
        entry = services.dp_undo_last_spend(
            character=character,
            by=request.user,
            idempotency_key=idempotency.key_from(request.POST),
        )
    except idempotency.InvalidKey as error:
        return refused(request, character, access, error.message)
    except services.AdvancementError as error:
        return refused(request, character, access, error.message)
    notice = _("Undone: %(name)s is back at %(level)s; %(cost)s UP returned.") % {
        "name": TERMS[entry.key].swedish,
        "level": entry.level_after,
        "cost": entry.amount,
    }
    return after_change(request, character, access, notice=notice)


def award_notice(request, form: AwardForm, amount: int, count: int, name: str = "") -> None:
    if name:
        text = _("%(amount)s UP were awarded to %(name)s.") % {"amount": amount, "name": name}
    else:
        text = ngettext(
            "%(amount)s UP were awarded to each of %(count)s character.",
            "%(amount)s UP were awarded to each of %(count)s characters.",
            count,
        ) % {"amount": amount, "count": count}
    messages.success(request, text)
    if form.psych_trauma:
        messages.warning(
            request,
            _("Training 12 or more hours a day gives psyktrauma (p. 15): give it too."),
        )


def is_preview(request) -> bool:
    return "preview" in request.GET or "preview" in request.POST


@login_required
@require_POST
def award(request, pk: int):
    """The GM's award to one character, from its advancement page."""
    character, access = get_character(request, pk, Access.GM)
    form = AwardForm(request.POST)
    valid = form.is_valid()
    if valid and not is_preview(request):
        try:
            services.dp_award(
                character=character,
                amount=form.award_amount,
                reason=form.award_reason,
                by=request.user,
                idempotency_key=idempotency.key_from(request.POST),
            )
        except (idempotency.InvalidKey, services.AdvancementError) as error:
            form.add_error(None, error.message)
            valid = False
        else:
            award_notice(request, form, form.award_amount, 1, character.name)
            return redirect("characters:advancement", character.pk)
    if request.htmx and is_preview(request):
        return render(request, "campaigns/awards.html#preview", {"form": form, "live": True})
    context = page_context(character, access, award_form=form)
    return render(request, "characters/advancement.html", context, status=200 if valid else 400)


# --- the campaign's awards page ----------------------------------------------------------


def award_initial(query) -> dict:
    """The award form filled in from its link: an encounter's page links here with the
    simulated row of the fight's table (issue 29: ?method=combat&challenge=2&reason=...).
    Only known choices are taken; the GM still checks and sends the form."""
    initial = {"target": ALL}
    if query.get("method") in dict(AwardForm.METHODS):
        initial["method"] = query["method"]
    if query.get("challenge") in {str(value) for value, _label in AwardForm.CHALLENGES}:
        initial["challenge"] = int(query["challenge"])
    if query.get("reason"):
        initial["reason"] = query["reason"][: services.MAX_REASON]
    return initial


@login_required
def campaign_awards(request, pk: int):
    """The GM awards UP to one character of the campaign or to the whole group."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    characters = list(campaign.characters.select_related("owner").order_by("name", "pk"))
    form = AwardForm(request.POST or None, targets=characters, initial=award_initial(request.GET))
    status = 200
    if request.method == "POST":
        valid = form.is_valid()
        if valid and not is_preview(request):
            target = form.target_character()
            try:
                key = idempotency.key_from(request.POST)
                if target is None:
                    entries = services.dp_award_group(
                        campaign=campaign,
                        amount=form.award_amount,
                        reason=form.award_reason,
                        by=request.user,
                        idempotency_key=key,
                    )
                else:
                    entries = [
                        services.dp_award(
                            character=target,
                            amount=form.award_amount,
                            reason=form.award_reason,
                            by=request.user,
                            idempotency_key=key,
                        )
                    ]
            except (idempotency.InvalidKey, services.AdvancementError) as error:
                form.add_error(None, error.message)
                valid = False
            else:
                name = target.name if target else ""
                award_notice(request, form, form.award_amount, len(entries), name)
                return redirect(reverse("campaigns:awards", args=[campaign.pk]))
        if request.htmx and is_preview(request):
            return render(request, "campaigns/awards.html#preview", {"form": form, "live": True})
        status = 200 if valid else 400
    rows = [{"character": c, "saved_dp": c.saved_dp()} for c in characters]
    recent = (
        DpEntry.objects.filter(character__campaign=campaign, kind=DpEntry.Kind.AWARD)
        .select_related("character", "created_by")
        .order_by("-pk")[:20]
    )
    context = {
        "campaign": campaign,
        "form": form,
        "rows": rows,
        "recent": recent,
        "award_url": request.path,
        "award_key": idempotency.new_key(),
    }
    return render(request, "campaigns/awards.html", context, status=status)
