"""The session journal of a campaign: every member writes entries (Markdown, rendered
safely), newest first; the GM pins one entry as the recap, shown above the others.

Who may do what: members read and write (get_campaign: 404 for everyone else); an entry
is changed or deleted by its author and by the GM; only the GM pins.
"""

from datetime import timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign
from campaigns.markdown import render_markdown
from campaigns.models import Campaign, JournalEntry, Membership

PAGE_SIZE = 20
BODY_MAX_LENGTH = 20_000
# An entry saved again later than this after it was written shows "edited".
EDIT_GRACE = timedelta(minutes=2)


class EntryForm(forms.ModelForm):
    body = forms.CharField(
        label=gettext_lazy("Text"),
        required=False,
        max_length=BODY_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 10, "aria-describedby": "markdown-hint"}),
    )

    class Meta:
        model = JournalEntry
        fields = ("title", "body")


def journal_url(campaign: Campaign, entry: JournalEntry | None = None) -> str:
    url = reverse("campaigns:journal", args=[campaign.pk])
    return f"{url}#entry-{entry.pk}" if entry is not None else url


def tell_the_table(campaign: Campaign, entry: JournalEntry, *, kind: str, by) -> None:
    """A new post or a pinned recap appears in the table's log, linked to the entry."""
    from table.services import notice_record  # the table builds on campaigns

    notice_record(
        campaign_id=campaign.pk,
        kind=kind,
        actor=by.username,
        title=entry.title,
        url=journal_url(campaign, entry),
    )


def can_change(membership: Membership, entry: JournalEntry) -> bool:
    """The author edits and deletes their entry; the GM every entry of the campaign."""
    return membership.is_gm or entry.author_id == membership.user_id


def get_entry(request, pk: int, entry_pk: int, *, change: bool = False):
    """The campaign, membership and entry: 404 for non-members and for entries of other
    campaigns, 403 when `change` is asked for by someone who may not."""
    campaign, membership = get_campaign(request, pk)
    entry = get_object_or_404(JournalEntry, pk=entry_pk, campaign=campaign)
    if change and not can_change(membership, entry):
        raise PermissionDenied
    return campaign, membership, entry


def annotate(entries, membership: Membership) -> None:
    for entry in entries:
        entry.can_change = can_change(membership, entry)
        entry.edited = entry.updated_at - entry.created_at > EDIT_GRACE


def preview_of(request) -> SafeString:
    return render_markdown(request.POST.get("body", "")[:BODY_MAX_LENGTH])


def preview_partial(request):
    """The htmx answer to the Preview button: the rendered Markdown alone, nothing saved."""
    return render(request, "campaigns/journal.html#preview", {"preview": preview_of(request)})


def typed(request) -> dict:
    """What was typed, for a form shown again without its errors (a preview without JS)."""
    return {"title": request.POST.get("title", ""), "body": request.POST.get("body", "")}


def journal_page(request, campaign, membership, form, *, preview=None, status=200):
    entries = campaign.journal.select_related("author")
    pinned = entries.filter(pinned=True).first()
    if pinned is not None:
        entries = entries.exclude(pk=pinned.pk)
    # get_page turns ?page=abc into page 1 and ?page=999 into the last page.
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    annotate([pinned, *page] if pinned else page, membership)
    context = {
        "campaign": campaign,
        "membership": membership,
        "is_gm": membership.is_gm,
        "pinned": pinned,
        "page": page,
        "form": form,
        "preview": preview,
    }
    return render(request, "campaigns/journal.html", context, status=status)


@login_required
def journal(request, pk: int):
    """The journal; POST writes a new entry (any member), or previews it with `preview`."""
    campaign, membership = get_campaign(request, pk)
    if request.method != "POST":
        return journal_page(request, campaign, membership, EntryForm())
    if "preview" in request.POST:
        if request.htmx:
            return preview_partial(request)
        form = EntryForm(initial=typed(request))
        return journal_page(request, campaign, membership, form, preview=preview_of(request))
    form = EntryForm(request.POST, instance=JournalEntry(campaign=campaign, author=request.user))
    if form.is_valid():
        with transaction.atomic():
            entry = form.save()
            tell_the_table(campaign, entry, kind="journal", by=request.user)
        messages.success(request, _("The entry was added to the journal."))
        return redirect(journal_url(campaign, entry))
    return journal_page(request, campaign, membership, form, status=400)


@login_required
def journal_edit(request, pk: int, entry_pk: int):
    campaign, _membership, entry = get_entry(request, pk, entry_pk, change=True)
    context = {"campaign": campaign, "entry": entry, "cancel_url": journal_url(campaign, entry)}
    if request.method != "POST":
        context["form"] = EntryForm(instance=entry)
        return render(request, "campaigns/journal_edit.html", context)
    if "preview" in request.POST:
        if request.htmx:
            return preview_partial(request)
        context["form"] = EntryForm(instance=entry, initial=typed(request))
        context["preview"] = preview_of(request)
        return render(request, "campaigns/journal_edit.html", context)
    form = EntryForm(request.POST, instance=entry)
    if form.is_valid():
        form.save()
        messages.success(request, _("The entry was saved."))
        return redirect(journal_url(campaign, entry))
    context["form"] = form
    return render(request, "campaigns/journal_edit.html", context, status=400)


@login_required
def journal_delete(request, pk: int, entry_pk: int):
    """GET asks for confirmation; POST deletes."""
    campaign, _membership, entry = get_entry(request, pk, entry_pk, change=True)
    if request.method == "POST":
        entry.delete()
        messages.success(request, _("“%(title)s” was deleted.") % {"title": entry.title})
        return redirect(journal_url(campaign))
    context = {
        "campaign": campaign,
        "entry": entry,
        "deleting": True,
        "cancel_url": journal_url(campaign, entry),
    }
    return render(request, "campaigns/journal_edit.html", context)


@login_required
@require_POST
def journal_pin(request, pk: int, entry_pk: int):
    """The GM pins an entry as the recap, unpinning any other; pinning the recap again
    unpins it. A campaign has at most one recap."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    entry = get_object_or_404(JournalEntry, pk=entry_pk, campaign=campaign)
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)  # one pin change at a time
        pin = not JournalEntry.objects.filter(pk=entry.pk, pinned=True).exists()
        # update(), not save(): pinning is not an edit, updated_at stays.
        campaign.journal.filter(pinned=True).update(pinned=False)
        if pin:
            campaign.journal.filter(pk=entry.pk).update(pinned=True)
            tell_the_table(campaign, entry, kind="recap", by=request.user)
    if pin:
        messages.success(request, _("“%(title)s” is now the recap.") % {"title": entry.title})
    else:
        messages.success(request, _("“%(title)s” is no longer the recap.") % {"title": entry.title})
    return redirect(journal_url(campaign, entry))
