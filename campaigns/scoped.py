"""Ids a request names, resolved through the campaign they are used in (issue 42).

Anyone can sign up and run a campaign of their own, so an id in a form, a command, an
API body or an archive is never trusted: it is looked up here, through the campaign the
request acts in (and, for a character, that campaign's rule system), and refused
otherwise with `NotInCampaign`, a RulesError, so the JSON API answers 400 with its
message and a form shows it. Nothing is changed before the lookup.

`access.py` decides who may act in a campaign; this decides what a request may name
there. The fights' commands go through `combat.scoped.command`, which walks every field
of a parsed command and resolves the ones that name rows here, so a new command with a
`character_id` cannot forget it.
"""

from django.db.models import QuerySet

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.errors import RulesError, gettext_noop

# What a refusal names, each its own message for the translations.
MESSAGES = {
    "character": gettext_noop("no character {id} in this campaign"),
    "member": gettext_noop("no member {id} in this campaign"),
    "picture": gettext_noop("no picture {id} in this fight"),
    "template": gettext_noop("no NPC template {id} in this campaign"),
}


class NotInCampaign(RulesError):
    """An id that names no row of the campaign the request acts in."""

    def __init__(self, what: str, value):
        template = MESSAGES[what]
        shown = str(value)[:20]
        super().__init__(template.format(id=shown), code="not_in_campaign",
                         template=template, id=shown)
        self.what = what


def plain_id(value, what: str) -> int:
    """`value` as a row id (a whole number from 1), else NotInCampaign: an id that cannot
    name a row names none of this campaign."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
        raise NotInCampaign(what, value)
    return value


def one(queryset: QuerySet, value, what: str):
    """The row `value` names among `queryset` (already narrowed to the campaign)."""
    row = queryset.filter(pk=plain_id(value, what)).first()
    if row is None:
        raise NotInCampaign(what, value)
    return row


def character(campaign_id: int, value, *, system: str) -> Character:
    """A character of campaign `campaign_id` and of rule system `system` (the campaign's,
    or the fight's it is used in). A character of another campaign, of none, or of another
    system: refused, whoever owns it."""
    return one(Character.objects.filter(campaign_id=campaign_id, rule_system=system),
               value, "character")


def characters(campaign_id: int, values, *, system: str, queryset: QuerySet | None = None
               ) -> dict[int, Character]:
    """The characters `values` name, by id, each of campaign `campaign_id` and of rule
    system `system`, read in one query (from `queryset`, e.g. with what their levels
    need); NotInCampaign for the first value that names none of them."""
    ids = [plain_id(value, "character") for value in values]
    rows = Character.objects if queryset is None else queryset
    found = {c.pk: c for c in rows.filter(campaign_id=campaign_id, rule_system=system,
                                          pk__in=set(ids))} if ids else {}
    for pk in ids:
        if pk not in found:
            raise NotInCampaign("character", pk)
    return found


def member(campaign: Campaign, value, *, players_only: bool = False) -> Membership:
    """A membership of `campaign` (with its user), of an account that can log in: a
    placeholder seat is no member to hand anything to."""
    found = campaign.memberships.select_related("user").filter(user__is_active=True)
    if players_only:
        found = found.exclude(role=Membership.Role.GM)
    return one(found, value, "member")
