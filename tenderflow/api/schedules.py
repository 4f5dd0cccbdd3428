"""`/v1/schedules`: the queue's recurring schedules, for operators (the admin token as a Bearer
token, or a dashboard session), as `tenderflow schedules …` manages them.

Only job types that declare themselves schedulable can be put on a schedule, each with a payload of
its model (tenderflow.handlers.schedules); watches' schedules ('watch:<id>') may be paused, retimed
and run here, and are removed with their watch.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Depends, Response, status
from pydantic import BaseModel, Field, model_validator

from tenderflow.api.auth import Services, operator_or_scraper
from tenderflow.api.validation import RequestBody
from tenderflow.handlers.schedules import add_schedule, remove_schedule
from tenderflow.queue import Scheduler, ScheduleRow
from tenderflow.texts import Line

router = APIRouter(prefix="/v1/schedules", tags=["schedules (operators)"], dependencies=[Depends(operator_or_scraper)])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No schedule with that name"}}


class Timing(RequestBody):
    """When a schedule runs (a watch is polled): every so many seconds, or at cron times."""

    every_seconds: float | None = Field(default=None, gt=0, le=366 * 86400, description=(
        "Run this often (a watch made with neither: every 60 s)."))
    cron: Line | None = Field(default=None, max_length=200, description=(
        'Or at these times: a cron expression read in UTC ("*/10 7-19 * * 1-5").'))

    @model_validator(mode="after")
    def _one_rule(self) -> Timing:
        if self.every_seconds is not None and self.cron is not None:
            raise ValueError("give every_seconds or cron, not both")
        return self


class ScheduleRequest(Timing):
    type: Line = Field(max_length=63, description="A job type that can be scheduled (watch.poll).")
    payload: dict[str, Any] = Field(default_factory=dict)
    tenant: Line = Field(default="default", max_length=63)
    priority: int = Field(default=0, ge=-32768, le=32767)


class ScheduleChange(Timing):
    enabled: bool | None = Field(default=None, description="false: pause; true: resume (counted from now).")


class ScheduleView(BaseModel):
    name: str
    type: str
    payload: dict[str, Any]
    tenant: str
    priority: int
    every_seconds: float | None
    cron: str | None
    enabled: bool
    next_run_at: datetime
    last_run_at: datetime | None
    last_job_id: int | None
    last_job_state: str | None
    last_job_error: str | None


class RunQueued(BaseModel):
    job_id: int


def _view(row: ScheduleRow) -> ScheduleView:
    return ScheduleView(name=row.name, type=row.type, payload=row.payload, tenant=row.tenant, priority=row.priority,
                        every_seconds=row.interval_seconds, cron=row.cron, enabled=row.enabled,
                        next_run_at=row.next_run_at, last_run_at=row.last_run_at, last_job_id=row.last_job_id,
                        last_job_state=row.last_job_state, last_job_error=row.last_job_error)


@router.get("", response_model=list[ScheduleView], summary="Every schedule, with what its last run did")
def list_schedules(services: Services) -> list[ScheduleView]:
    with services.pool.connection() as conn:
        return [_view(row) for row in Scheduler(services.job_types).list_schedules(conn)]


@router.put("/{name}", response_model=ScheduleView,
            responses={400: {"description": "A bad name, type, payload or timing"}},
            summary="Create or replace a schedule")
def put_schedule(name: Line, body: ScheduleRequest, services: Services) -> ScheduleView:
    with services.pool.connection() as conn:
        return _view(add_schedule(conn, services.job_types, name=name, job_type=body.type, payload=body.payload,
                                  tenant=body.tenant, interval_seconds=body.every_seconds, cron=body.cron,
                                  priority=body.priority))


@router.patch("/{name}", response_model=ScheduleView, responses=_NOT_FOUND,
              summary="Pause, resume or retime a schedule")
def change_schedule(name: Line, body: ScheduleChange, services: Services) -> ScheduleView:
    with services.pool.connection() as conn:
        scheduler = Scheduler(services.job_types)
        scheduler.change(conn, name, enabled=body.enabled, interval_seconds=body.every_seconds, cron=body.cron)
        return _view(scheduler.get(conn, name))


@router.post("/{name}/run", status_code=status.HTTP_202_ACCEPTED, response_model=RunQueued, responses=_NOT_FOUND,
             summary="Run a schedule now, beside its timed runs")
def run_schedule(name: Line, services: Services) -> RunQueued:
    with services.pool.connection() as conn:
        return RunQueued(job_id=Scheduler(services.job_types).run_now(conn, name))


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=_NOT_FOUND,
               summary="Remove a schedule (a watch's goes with its watch)")
def delete_schedule(name: Line, services: Services) -> Response:
    with services.pool.connection() as conn:
        remove_schedule(conn, services.job_types, name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
