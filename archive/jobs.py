"""Imports run off the request thread (issue 30): the upload is kept in
`DATA_DIR/imports/<job>.zip`, an `ImportJob` row names it, and this process's import
thread reads it (`archive.importer`). The page polls the job.

The importer writes its rows in short transactions (issue 42), so the job's own row says
how far it is, for every server process and for the command line's imports alike: rows
done of the archive's total, and when it last reported (at least every second while it
works). A job still "running" that has not reported for `STALLED` seconds died with its
process. What it had written is a hidden campaign (nobody who can log in is its member
yet): `sweep` deletes it on the import thread, queued when the next import starts, and
when the job's page or the import page is opened and sees a job interrupted.
"""

import datetime
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from archive import format as fmt
from archive.importer import Importer, discard
from archive.models import ImportJob
from campaigns.models import Membership

log = logging.getLogger(__name__)

STALLED = 10  # seconds without progress (a job reports every second): its process is gone
_executor: ThreadPoolExecutor | None = None
_lock = threading.Lock()
_running: dict[int, object] = {}


def folder() -> Path:
    path = Path(settings.DATA_DIR) / "imports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_path(job_id: int) -> Path:
    return folder() / f"{job_id}.zip"


def interrupted(job: ImportJob) -> bool:
    """A running job whose process is gone: it has not reported for STALLED seconds."""
    if job.status != ImportJob.Status.RUNNING:
        return False
    with _lock:
        if job.pk in _running:  # this process runs it
            return False
    last = job.beat_at or job.created_at
    return last is None or timezone.now() - last > datetime.timedelta(seconds=STALLED)


def progress(job: ImportJob) -> dict:
    """How far a job is: done and total rows, and whether it was interrupted."""
    return {"done": job.done, "total": job.total, "interrupted": interrupted(job)}


def start(*, user, upload) -> ImportJob:
    """Keep the uploaded file and queue its import; the job's row at once."""
    forget_leftovers()
    job = ImportJob.objects.create(user=user, filename=upload.name[:200], size=upload.size,
                                   beat_at=timezone.now())
    with open(upload_path(job.pk), "wb") as f:
        for chunk in upload.chunks():
            f.write(chunk)
    transaction.on_commit(lambda: submit(job.pk))
    return job


SWEEP = -1  # the key of a queued `sweep` among the running jobs (no job's id)


def submit(job_id: int) -> None:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import")
        _running[job_id] = _executor.submit(run, job_id)


def sweep_soon() -> None:
    """Queue a `sweep` on the import thread (one at a time, between imports): deleting a
    big campaign takes a while, and no page waits for it."""
    global _executor
    with _lock:
        if SWEEP in _running:
            return
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import")
        _running[SWEEP] = _executor.submit(swept)


def swept() -> None:
    close_old_connections()
    try:
        sweep()
    except Exception:  # noqa: BLE001 - the next one tries again
        log.exception("the sweep of interrupted imports failed")
    finally:
        with _lock:
            _running.pop(SWEEP, None)
        close_old_connections()


def forget_leftovers() -> None:
    """After imports that died with their process (a killed server): delete what they
    wrote (`sweep`, soon) and their uploads."""
    sweep_soon()
    for path in folder().glob("*.zip"):
        job = ImportJob.objects.filter(pk=int(path.stem)).first() if path.stem.isdigit() \
            else None
        if job is None or job.status != ImportJob.Status.RUNNING or interrupted(job):
            path.unlink(missing_ok=True)


def sweep() -> None:
    """Delete the hidden campaign of every interrupted job (and of a failed one whose
    importer could not), in batches (`discard`). A campaign whose GM's membership is
    written is no hidden one: its import finished (the job's row says so in the same
    transaction), and it stays."""
    for job in ImportJob.objects.filter(status__in=[ImportJob.Status.RUNNING,
                                                    ImportJob.Status.FAILED],
                                        campaign__isnull=False):
        if job.status == ImportJob.Status.RUNNING and not interrupted(job):
            continue
        shown = Membership.objects.filter(campaign_id=job.campaign_id,
                                          role=Membership.Role.GM).exists()
        try:
            if not shown:
                discard(job.campaign_id)
        except Exception:  # noqa: BLE001 - the next sweep tries again
            log.exception("import %s: its hidden campaign was not deleted", job.pk)
            continue
        ImportJob.objects.filter(pk=job.pk).update(campaign=None)


def run(job_id: int) -> None:
    """Import job `job_id`'s file; the row says how it ended."""
    close_old_connections()
    job = ImportJob.objects.select_related("user").get(pk=job_id)
    path = upload_path(job_id)
    importer = None
    try:
        with fmt.Archive(path) as archive:
            importer = Importer(archive, job.user, job=job_id)
            importer.run()  # marks the job done
    except fmt.ArchiveError as error:
        failed(job_id, importer, str(error)[:2000])
    except Exception as error:  # noqa: BLE001 - the page says it failed, the log says why
        log.exception("import %s failed", job_id)
        failed(job_id, importer, f"the import failed on this server "
                                 f"({type(error).__name__}); nothing was imported")
    finally:
        path.unlink(missing_ok=True)
        with _lock:
            _running.pop(job_id, None)
        close_old_connections()


def failed(job_id: int, importer: Importer | None, error: str) -> None:
    """The job refused or failed. The importer deleted what it had written; if it could
    not, the job still names the campaign for `sweep`."""
    left = importer is not None and importer.made is not None and not importer.discarded
    ImportJob.objects.filter(pk=job_id).update(
        status=ImportJob.Status.FAILED, error=error, finished_at=timezone.now(),
        **({} if left else {"campaign": None}))


def wait() -> None:
    """Wait for every queued import of this process (tests, the command line)."""
    while True:
        with _lock:
            futures = list(_running.values())
        if not futures:
            return
        for future in futures:
            future.result()
