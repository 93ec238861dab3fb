"""The pages of issue 30: a campaign's archive downloaded (the GM's whole, a player's
view), an archive imported as a new campaign with its progress, a placeholder handed to
an account, and a character exported and imported on its own."""

import json

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.handlers.asgi import ASGIRequest
from django.db import transaction
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from archive import characters as character_files
from archive import format as fmt
from archive import handover, jobs
from archive.export import archive_filename, campaign_archive
from archive.models import ImportJob, Placeholder
from campaigns.access import Access, get_campaign, get_character
from core.params import ParamError, strict_id


def streamed(request, chunks):
    """A response that sends `chunks` as they are made. Under ASGI the iterator must be
    asynchronous, or Django reads it whole into memory first; each step runs in the
    request's own thread (the one database connection its snapshot reads through)."""
    if not isinstance(request, ASGIRequest):
        return StreamingHttpResponse(chunks)
    from asgiref.sync import sync_to_async

    def step():
        return next(chunks, None)

    async def agen():
        try:
            while (chunk := await sync_to_async(step)()) is not None:
                yield chunk
        finally:
            await sync_to_async(chunks.close)()

    return StreamingHttpResponse(agen())


@login_required
def campaign_download(request, pk: int):
    """The campaign's archive: the GM's whole one, or what this player sees."""
    campaign, membership = get_campaign(request, pk)
    membership.user = request.user
    response = streamed(request, campaign_archive(campaign, membership))
    response["Content-Type"] = "application/zip"
    name = archive_filename(campaign, gm=membership.is_gm)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


class ImportForm(forms.Form):
    """The archive to import. There is no choice of matching members to accounts here by
    username: every member waits as a placeholder (issue 42); a client that still sends
    `match_usernames` has it ignored, as any field the form does not have."""

    archive = forms.FileField(label=gettext_lazy("Campaign archive (.zip)"))

    def clean_archive(self):
        upload = self.cleaned_data["archive"]
        # A zip unpacks to about its own size at least: IMPORT_MAX_BYTES bounds it too.
        most = min(fmt.MAX_UPLOAD, fmt.max_unpacked())
        if upload.size > most:
            raise forms.ValidationError(
                _("The file is larger than %(most)s MB.") % {"most": most >> 20})
        return upload


@login_required
def campaign_import(request):
    """Upload an archive; its import runs off the request (`archive.jobs`)."""
    form = ImportForm(request.POST, request.FILES) if request.method == "POST" else ImportForm()
    running = ImportJob.objects.filter(user=request.user, status=ImportJob.Status.RUNNING)
    busy = next((job for job in running if not jobs.interrupted(job)), None)
    if any(jobs.interrupted(job) and job.campaign_id for job in running):
        jobs.sweep_soon()  # what a dead process wrote
    if request.method == "POST" and form.is_valid():
        if busy is not None:
            form.add_error(None, _("Your last import is still running: wait for it first."))
        else:
            job = jobs.start(user=request.user, upload=form.cleaned_data["archive"])
            return redirect("archive:import_job", job.pk)
    status = 400 if request.method == "POST" else 200
    recent = ImportJob.objects.filter(user=request.user).select_related("campaign")[:5]
    return render(request, "archive/import.html",
                  {"form": form, "recent": recent, "busy": busy}, status=status)


@login_required
def import_job(request, job: int):
    """How an import is going (polled by the page while it runs), and how it ended."""
    found = get_object_or_404(ImportJob.objects.select_related("campaign"), pk=job,
                              user=request.user)
    progress = jobs.progress(found)
    if progress["interrupted"] and found.campaign_id is not None:
        jobs.sweep_soon()  # its process died: what it wrote is deleted
    percent = round(100 * progress["done"] / progress["total"]) if progress["total"] else 0
    context = {"job": found, "progress": progress, "percent": min(percent, 100),
               "running": found.status == ImportJob.Status.RUNNING
               and not progress["interrupted"]}
    template = "archive/_job.html" if request.htmx else "archive/job.html"
    return render(request, template, context)


@login_required
@require_POST
def placeholder_handover(request, pk: int, placeholder: int):
    """The GM gives a placeholder's seat, characters and history to a member who has
    joined the campaign with their own account (`archive.handover.receives`): never to
    the GM, another placeholder or anyone outside the campaign (issue 42)."""
    campaign, _membership = get_campaign(request, pk, gm=True)
    holder = get_object_or_404(Placeholder.objects.select_related("user"), pk=placeholder,
                               campaign=campaign)
    try:
        member = strict_id(request.POST.get("member"), name="member")
    except ParamError:
        member = None
    target = (campaign.memberships.filter(pk=member).select_related("user").first()
              if member is not None else None)
    try:
        if not handover.receives(holder, target):
            raise handover.Refused
        handover.hand_over(holder, target)
    except handover.Refused:
        messages.error(request, _("Choose a player who has joined the campaign."))
        return redirect(campaign.get_absolute_url() + "#archive")
    messages.success(request, _("%(name)s's place now belongs to %(user)s.") % {
        "name": holder.name, "user": target.user.username})
    return redirect(campaign.get_absolute_url() + "#archive")


@login_required
def character_download(request, pk: int):
    """A character with its UP ledger, as one JSON file (its owner's)."""
    character, _access = get_character(request, pk, Access.EDIT)
    if character.owner_id != request.user.pk:
        raise PermissionDenied
    document = character_files.export(character)
    response = HttpResponse(json.dumps(document, ensure_ascii=False, indent=1),
                            content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{character_files.filename(character)}"')
    response["Cache-Control"] = "no-store"
    return response


class CharacterImportForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Character file (.json)"))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > character_files.MAX_BYTES:
            raise forms.ValidationError(_("The file is larger than %(most)s MB.") % {
                "most": character_files.MAX_BYTES >> 20})
        try:
            return character_files.parse(upload.read())
        except fmt.ArchiveError as error:
            raise forms.ValidationError(str(error)) from None


@login_required
def character_import(request):
    form = (CharacterImportForm(request.POST, request.FILES) if request.method == "POST"
            else CharacterImportForm())
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                character = character_files.create(form.cleaned_data["file"], request.user)
        except fmt.ArchiveError as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, _("%(name)s was imported.") % {"name": character.name})
            return redirect(character)
    status = 400 if request.method == "POST" else 200
    return render(request, "archive/character_import.html", {"form": form}, status=status)

