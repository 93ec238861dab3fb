"""Imports run off the request thread (issue 30): the upload is kept in
`DATA_DIR/imports/<job>.zip`, an `ImportJob` row names it, and this process's import
thread reads it (`archive.importer`). The page polls the job.

The import is one transaction, so its row cannot show progress from inside it (on SQLite
the transaction holds the write lock). Progress goes to the cache instead, which every
process of a hosted site shares (Redis), with the time of its last report: a job still
"running" whose progress has not moved for `STALLED` seconds died with its process, and
its transaction with it (nothing was imported).
"""

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, transaction
from django.utils import timezone

from archive import format as fmt
from archive.importer import Importer
from archive.models import ImportJob

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


def progress_key(job_id: int) -> str:
    return f"archive:import:{job_id}"


def report(job_id: int, done: int, total: int) -> None:
    cache.set(progress_key(job_id), {"done": done, "total": total, "at": time.time()},
              timeout=STALLED * 4)


def progress(job: ImportJob) -> dict:
    """How far a job is: done and total rows, and whether it was interrupted."""
    found = cache.get(progress_key(job.pk))
    if job.status != ImportJob.Status.RUNNING:
        found = found or {}
        return {"done": found.get("done", 0), "total": found.get("total", 0),
                "interrupted": False}
    if found is None:  # the process that held it is gone (the upload reported at once)
        return {"done": 0, "total": 0, "interrupted": True}
    return {"done": found["done"], "total": found["total"],
            "interrupted": time.time() - found["at"] > STALLED}


def start(*, user, upload, match_usernames: bool) -> ImportJob:
    """Keep the uploaded file and queue its import; the job's row at once."""
    forget_leftovers()
    job = ImportJob.objects.create(user=user, filename=upload.name[:200], size=upload.size,
                                   match_usernames=match_usernames)
    with open(upload_path(job.pk), "wb") as f:
        for chunk in upload.chunks():
            f.write(chunk)
    report(job.pk, 0, 0)
    transaction.on_commit(lambda: submit(job.pk))
    return job


def submit(job_id: int) -> None:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import")
        _running[job_id] = _executor.submit(run, job_id)


def forget_leftovers() -> None:
    """Delete the uploads of imports that died with their process (a killed server)."""
    for path in folder().glob("*.zip"):
        if time.time() - path.stat().st_mtime < STALLED:
            continue
        job = ImportJob.objects.filter(pk=int(path.stem)).first() if path.stem.isdigit() \
            else None
        if job is None or job.status != ImportJob.Status.RUNNING or progress(job)["interrupted"]:
            path.unlink(missing_ok=True)


def run(job_id: int) -> None:
    """Import job `job_id`'s file; the row says how it ended."""
    close_old_connections()
    job = ImportJob.objects.select_related("user").get(pk=job_id)
    path = upload_path(job_id)
    try:
        with fmt.Archive(path) as archive:
            importer = Importer(archive, job.user, match_usernames=job.match_usernames,
                                progress=lambda done, total: report(job_id, done, total))
            campaign = importer.run()
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.DONE, campaign=campaign, finished_at=timezone.now(),
            summary={"rows": importer.done, "placeholders": len(importer.placeholders),
                     "matched": sorted(name for name, user in importer.users.items()
                                       if user != job.user and user.is_active)})
    except fmt.ArchiveError as error:
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.FAILED, error=str(error)[:2000], finished_at=timezone.now())
    except Exception as error:  # noqa: BLE001 - the page says it failed, the log says why
        log.exception("import %s failed", job_id)
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.FAILED, finished_at=timezone.now(),
            error=f"the import failed on this server ({type(error).__name__}); nothing "
                  f"was imported")
    finally:
        path.unlink(missing_ok=True)
        with _lock:
            _running.pop(job_id, None)
        close_old_connections()


def wait() -> None:
    """Wait for every queued import of this process (tests, the command line)."""
    while True:
        with _lock:
            futures = list(_running.values())
        if not futures:
            return
        for future in futures:
            future.result()
