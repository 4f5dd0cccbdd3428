"""`/v1/watches`: a tenant's watched folders and S3 prefixes, and the schedules that poll them.

A tenant may watch only places the operator opened to it (TENDERFLOW_WATCH_ROOTS, `{tenant}` for
its name): anything else answers 403; and its polls never leave the root the watch was made under
(pipeline.watches.FolderSource). It has at most MAX_WATCHES_PER_TENANT watches, each polled at most
every MIN_INTERVAL_SECONDS. It sees and changes only its own watches (another's id is a
404): their files and what each became, the polling interval or cron times, pause and resume, a
poll now. The operator makes watches anywhere with `tenderflow watch`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response, status
from pydantic import BaseModel, Field

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.schedules import Timing
from tenderflow.pipeline import watches
from tenderflow.pipeline.uploads import check_languages
from tenderflow.queue import Scheduler
from tenderflow.texts import Line

router = APIRouter(prefix="/v1/watches", tags=["watches"])

FileState = Literal["waiting", "uploaded", "existing", "rejected"]
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such watch for this tenant"}}


_EVERY_SECONDS = Field(default=None, ge=watches.MIN_INTERVAL_SECONDS, le=366 * 86400, description=(
    f"Poll this often, at least every {watches.MIN_INTERVAL_SECONDS:g} s (a watch made with neither: every 60 s)."))


class WatchRequest(Timing):
    every_seconds: float | None = _EVERY_SECONDS
    source: Line = Field(max_length=1024, description="An absolute folder path or s3://bucket/prefix, under one "
                        "of the places the operator opened to you.")
    settle_seconds: float | None = Field(default=None, ge=0, le=86400, description=(
        "Take a file once unchanged this long (default: the operator's TENDERFLOW_WATCH_SETTLE_SECONDS)."))
    priority: int = Field(default=0, ge=-32768, le=32767)
    languages: Line | None = Field(default=None, max_length=200, description="OCR languages of its files (fra+eng).")


class WatchChange(Timing):
    every_seconds: float | None = _EVERY_SECONDS
    enabled: bool | None = Field(default=None, description="false: pause the polls; true: resume them.")


class WatchView(BaseModel):
    id: int
    kind: str = Field(description="folder or s3")
    source: str
    settle_seconds: float
    priority: int
    languages: str | None
    created_at: datetime
    every_seconds: float | None
    cron: str | None
    enabled: bool
    next_poll_at: datetime | None
    last_polled_at: datetime | None
    last_error: str | None
    last_summary: dict[str, Any] = Field(description="What the last poll did: files listed, uploaded, …")
    files: dict[str, int] = Field(description="Files seen, by state.")


class WatchedFile(BaseModel):
    path: str
    size: int
    modified_at: datetime
    state: FileState
    document_id: int | None
    reason: str | None = Field(description="Why it was rejected, or why it waits.")
    first_seen_at: datetime
    decided_at: datetime | None


class PollQueued(BaseModel):
    job_id: int


def _view(watch: watches.Watch) -> WatchView:
    return WatchView(id=watch.id, kind=watch.kind, source=watch.source,
                     settle_seconds=watch.settle_seconds, priority=watch.priority, languages=watch.languages,
                     created_at=watch.created_at, every_seconds=watch.interval_seconds, cron=watch.cron,
                     enabled=bool(watch.enabled), next_poll_at=watch.next_run_at if watch.enabled else None,
                     last_polled_at=watch.last_polled_at, last_error=watch.last_error,
                     last_summary=watch.last_summary, files=watch.files)


@router.post("", status_code=status.HTTP_201_CREATED, response_model=WatchView,
             responses={400: {"description": "Not a folder or S3 prefix, already watched, a bad timing"},
                        403: {"description": "Outside the places the operator opened to you"}},
             summary="Watch a folder or an S3 prefix: its new files become your documents")
def create_watch(body: WatchRequest, tenant: Tenant, services: Services, response: Response) -> WatchView:
    """Each new file is uploaded once (the same bytes twice are one document); a file is taken once
    unchanged for the settle time; bad files (not a PDF, empty) are listed with the reason, once."""
    kind, source = watches.parse_source(body.source)
    root = watches.check_within_roots(kind, source, services.settings.watch_roots, tenant)
    settle = body.settle_seconds if body.settle_seconds is not None else services.settings.watch_settle_seconds
    # The folder's file system and tesseract --list-langs are asked before a connection is taken.
    source = watches.real_folder(source) if kind == "folder" else source
    languages = check_languages(body.languages)
    with services.pool.connection() as conn:
        watch = watches.create_watch(conn, Scheduler(services.job_types), tenant=tenant, source=source, root=root,
                                     interval_seconds=body.every_seconds, cron=body.cron, settle_seconds=settle,
                                     priority=body.priority, languages=languages, check_folder=False)
    response.headers["Location"] = f"/v1/watches/{watch.id}"
    return _view(watch)


@router.get("", response_model=list[WatchView], summary="Your watches")
def list_watches(tenant: Tenant, services: Services) -> list[WatchView]:
    with services.pool.connection() as conn:
        return [_view(watch) for watch in watches.list_watches(conn, tenant=tenant)]


@router.get("/{watch_id}", response_model=WatchView, responses=_NOT_FOUND, summary="One watch")
def get_watch(watch_id: int, tenant: Tenant, services: Services) -> WatchView:
    with services.pool.connection() as conn:
        return _view(watches.get_watch(conn, watch_id, tenant=tenant))


@router.get("/{watch_id}/files", response_model=list[WatchedFile], responses=_NOT_FOUND,
            summary="The files a watch has seen, and what each became")
def watch_files(
    watch_id: int, tenant: Tenant, services: Services, state: FileState | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[WatchedFile]:
    with services.pool.connection() as conn:
        rows = watches.watch_files(conn, watch_id, tenant=tenant, state=state, limit=limit)
    return [WatchedFile(**{key: row[key] for key in WatchedFile.model_fields}) for row in rows]


@router.patch("/{watch_id}", response_model=WatchView, responses=_NOT_FOUND,
              summary="Change when a watch is polled, or pause and resume it")
def change_watch(watch_id: int, body: WatchChange, tenant: Tenant, services: Services) -> WatchView:
    with services.pool.connection() as conn:
        watches.get_watch(conn, watch_id, tenant=tenant)
        Scheduler(services.job_types).change(conn, watches.schedule_name(watch_id), enabled=body.enabled,
                                             interval_seconds=body.every_seconds, cron=body.cron)
        return _view(watches.get_watch(conn, watch_id, tenant=tenant))


@router.post("/{watch_id}/poll", status_code=status.HTTP_202_ACCEPTED, response_model=PollQueued,
             responses=_NOT_FOUND, summary="Poll a watch now, beside its schedule")
def poll_now(watch_id: int, tenant: Tenant, services: Services) -> PollQueued:
    with services.pool.connection() as conn:
        watches.get_watch(conn, watch_id, tenant=tenant)
        return PollQueued(job_id=Scheduler(services.job_types).run_now(conn, watches.schedule_name(watch_id)))


@router.delete("/{watch_id}", status_code=status.HTTP_204_NO_CONTENT, responses=_NOT_FOUND,
               summary="Stop watching (the documents it made stay)")
def remove_watch(watch_id: int, tenant: Tenant, services: Services) -> Response:
    with services.pool.connection() as conn:
        watches.remove_watch(conn, Scheduler(services.job_types), watch_id, tenant=tenant)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
