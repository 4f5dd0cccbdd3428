"""Endpoints for remote pull workers: claim (long-poll), fetch input, heartbeat, complete, fail, stop.

A remote worker has no database and no storage credentials. It claims jobs here under its worker
token, fetches each job's input (the stored PDF, or the pages' text), runs the handler's pure
compute step, and posts the result. The server then does what a local worker's committer does:
`commit_attempts`, the one completion transaction, whose ownership guard refuses a result for a
claim that is no longer the current one (reclaimed after a missed lease, cancelled): such a post
gets HTTP 409 and nothing is written.

Every call about one job names the claim (job id, attempt) and must come from the worker instance
that holds it (`jobs.worker_id` = `remote:<token name>@<token id>:<instance>`); anything else is 409 as well.
The server keeps the caller's row in `workers` (kind 'remote') fresh on every claim and heartbeat.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, HTTPException, Query, status
from fastapi.responses import StreamingResponse
from pydantic import ValidationError

from tenderflow.api.auth import RemoteCaller, Services, Worker
from tenderflow.api.services import ApiServices
from tenderflow.errors import ResultRejectedError
from tenderflow.queue import ClaimedJob, Failure, jobs
from tenderflow.queue.completion import CommitOutcome, FinishedAttempt, commit_alone
from tenderflow.queue.jobs import sanitize_error
from tenderflow.remote.protocol import (
    ClaimRequest,
    ClaimResponse,
    CompleteRequest,
    CompletionResponse,
    FailRequest,
    HeartbeatRequest,
    HeartbeatResponse,
    PageInput,
    PagesInput,
    RemoteJob,
    StopRequest,
    StopResponse,
    WorkerHello,
)
from tenderflow.stages.compute import POOLS
from tenderflow.stages.contract import InputKind, StageJobHandler

log = structlog.get_logger("tenderflow.api.remote")
router = APIRouter(prefix="/v1/worker", tags=["remote workers"])

_STREAM_CHUNK_BYTES = 256 * 1024
_LOST: dict[int | str, dict[str, Any]] = {
    409: {"description": "This worker no longer holds the claim (reclaimed, cancelled, finished)"},
}


def _remote_handler(services: ApiServices, job_type: str) -> StageJobHandler[Any, Any]:
    handler = services.job_types.handler(job_type)
    if not isinstance(handler, StageJobHandler):
        raise HTTPException(status.HTTP_501_NOT_IMPLEMENTED, detail=f"job type {job_type!r} cannot run remotely")
    return handler


def _register(services: ApiServices, caller: RemoteCaller, hello: WorkerHello) -> None:
    with services.pool.connection() as conn:
        conn.execute(jobs.QUERIES["worker_register"], {
            "id": caller.worker_id, "host": hello.host, "pid": hello.pid,
            "pools": list(POOLS.get(hello.pool, ())), "threads": hello.threads, "kind": "remote", "now": None,
            "liveness_lock": None,  # no session of its own: a remote worker's jobs wait for their leases
        })


def _lost(job_id: int, attempt: int) -> HTTPException:
    return HTTPException(
        status.HTTP_409_CONFLICT,
        detail=f"job {job_id} attempt {attempt} is not held by this worker (reclaimed after a missed lease, "
        "cancelled, or already finished): its result is refused and nothing was written",
    )


def _held(services: ApiServices, caller: RemoteCaller, job_id: int, attempt: int) -> ClaimedJob:
    with services.pool.connection() as conn:
        held = jobs.held_by(conn, caller.worker_id, [(job_id, attempt)])
    if not held:
        raise _lost(job_id, attempt)
    return held[0]


def _wire(job: ClaimedJob, input_kind: InputKind) -> RemoteJob:
    return RemoteJob(id=job.id, attempt=job.attempts, type=job.type, payload=job.payload, tenant=job.tenant,
                     priority=job.priority, max_attempts=job.max_attempts, created_at=job.created_at,
                     input_kind=input_kind)


@router.post("/claim", response_model=ClaimResponse, summary="Claim jobs of a pool (long-poll)",
             responses={403: {"description": "The token is not scoped to this pool"}})
def claim_jobs(body: ClaimRequest, caller: Worker, services: Services) -> ClaimResponse:
    """Returns as soon as jobs are claimed, or with none after `wait_seconds` (capped by the server).

    A waiting claim holds a thread but no database connection: it sleeps on the process's one
    LISTEN thread, waking for an enqueue notification or every poll interval (the backstop).
    """
    settings = services.settings
    pool_name = body.hello.pool
    if pool_name not in POOLS:
        raise HTTPException(status.HTTP_400_BAD_REQUEST,
                            detail=f"unknown pool {pool_name!r}; choose one of {', '.join(POOLS)}")
    if not caller.token.may_run(pool_name):
        raise HTTPException(status.HTTP_403_FORBIDDEN,
                            detail=f"worker token {caller.token.name!r} may run pools "
                            f"{', '.join(caller.token.pools)}, not {pool_name!r}")
    types = POOLS[pool_name]
    input_kinds = {job_type: _remote_handler(services, job_type).stage.input_kind for job_type in types}
    _register(services, caller, body.hello)
    wakeups = services.wakeups
    wakeups.forget_waiter(caller.worker_id)
    may_wait = services.waiting_claims.acquire(blocking=False)
    try:
        claimed = _claim_until(services, caller, types, body, may_wait=may_wait)
    finally:
        if may_wait:
            services.waiting_claims.release()
    if not claimed and not may_wait and body.wait_seconds > 0:
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": str(_BUSY_RETRY_SECONDS)},
                            detail="too many claims are waiting on this server; retry later")
    for job in claimed:
        log.info("remote.job_claimed", job_id=job.id, type=job.type, attempt=job.attempts, worker_id=caller.worker_id)
    return ClaimResponse(
        jobs=[_wire(job, input_kinds[job.type]) for job in claimed],
        lease_seconds=settings.lease_seconds, heartbeat_seconds=settings.heartbeat_seconds,
        max_result_bytes=settings.max_result_bytes,
    )


_BUSY_RETRY_SECONDS = 5


def _claim_until(
    services: ApiServices, caller: RemoteCaller, types: tuple[str, ...], body: ClaimRequest, *, may_wait: bool
) -> list[ClaimedJob]:
    """Claim; while nothing is claimed and waiting is allowed, sleep on the listener until a job
    may be ready or the claim's wait is over."""
    settings, wakeups = services.settings, services.wakeups
    wait_seconds = min(body.wait_seconds, settings.claim_wait_seconds) if may_wait else 0.0
    deadline = time.monotonic() + wait_seconds
    claimed: list[ClaimedJob] = []
    while not services.stopping and not wakeups.waiter_stopped(caller.worker_id):
        marker = wakeups.marker(types, caller.worker_id)
        with services.pool.connection() as conn:
            claimed = jobs.claim(conn, worker_id=caller.worker_id, types=types, limit=body.limit,
                                 lease_seconds=settings.lease_seconds,
                                 default_tenant_cap=settings.tenant_max_running, tenants=caller.token.tenants)
        remaining = deadline - time.monotonic()
        if claimed or remaining <= 0:
            break
        wakeups.wait(types, marker, min(remaining, settings.poll_seconds), waiter=caller.worker_id)
    return claimed


def _file_chunks(handle: Any) -> Iterator[bytes]:
    with handle:
        while chunk := handle.read(_STREAM_CHUNK_BYTES):
            yield chunk


@router.get("/jobs/{job_id}/input", summary="The input of a claimed job: PDF bytes or the pages' text",
            responses={**_LOST, 200: {"content": {"application/pdf": {}, "application/json": {}}}})
def job_input(
    job_id: int, attempt: Annotated[int, Query(ge=1)], caller: Worker, services: Services
) -> Any:
    job = _held(services, caller, job_id, attempt)
    handler = _remote_handler(services, job.type)
    loaded = handler.load_input(job)
    if handler.stage.input_kind is InputKind.PDF:
        path = Path(loaded)
        # Opened now, not when the response starts: the local cache may evict the file meanwhile,
        # and an open file outlives its name.
        handle = path.open("rb")
        size = os.fstat(handle.fileno()).st_size
        return StreamingResponse(_file_chunks(handle), media_type="application/pdf",
                                 headers={"Content-Length": str(size)})
    return PagesInput(pages=[PageInput(number=page.number, text=page.text) for page in loaded])


@router.post("/heartbeat", response_model=HeartbeatResponse, summary="Renew held leases; say which are lost")
def heartbeat(body: HeartbeatRequest, caller: Worker, services: Services) -> HeartbeatResponse:
    _register(services, caller, body.hello)
    with services.pool.connection() as conn:
        held = jobs.held_by(conn, caller.worker_id, [(j.id, j.attempt) for j in body.jobs])
        owned = jobs.heartbeat(conn, held, lease_seconds=services.settings.lease_seconds)
    return HeartbeatResponse(owned=sorted(owned), lost=sorted({j.id for j in body.jobs} - owned),
                             heartbeat_seconds=services.settings.heartbeat_seconds)


def _commit(services: ApiServices, attempt: FinishedAttempt) -> CommitOutcome:
    """Commit a remote attempt. An outcome the database refuses (not a lost connection, which
    propagates as a 503) fails the job for good and answers 422: the remote worker treats that as
    final for the job and never retries it."""
    outcome = commit_alone(services.pool, services.job_types, attempt, backoff=services.backoff)
    if outcome.rejected:
        log.error("remote.outcome_rejected", job_id=attempt.job.id, error=outcome.error)
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            detail="the outcome could not be stored; the job has failed for good")
    return outcome


def _answer(caller: RemoteCaller, job: ClaimedJob, outcome: CommitOutcome) -> CompletionResponse:
    log.info("remote.job_finished", job_id=job.id, type=job.type, attempt=job.attempts,
             outcome=outcome.outcome, error=outcome.error, worker_id=caller.worker_id)
    if outcome.outcome == "lost":
        raise _lost(job.id, job.attempts)
    return CompletionResponse(outcome=outcome.outcome, error=outcome.error)


@router.post("/jobs/{job_id}/complete", response_model=CompletionResponse, summary="Post a job's result",
             responses={**_LOST, 413: {"description": "The body is larger than TENDERFLOW_MAX_RESULT_BYTES"},
                        422: {"description": "The result does not fit the stage's result model, or does not "
                              "hold against what the server knows (pages of the stored PDF, quotes on the "
                              "stored pages, bounded usage); the attempt is recorded as failed (retryable) "
                              "and nothing of the result is written"}})
def complete_job(job_id: int, body: CompleteRequest, caller: Worker, services: Services) -> CompletionResponse:
    """Parses the result into the stage's result model and checks it as the server would check its
    own (`StageHandler.verify`), then commits it in the completion transaction (ownership guard, the
    stage's commit step, job succeeded) — as for local workers."""
    job = _held(services, caller, job_id, body.attempt)
    handler = _remote_handler(services, job.type)
    try:
        result = handler.accept_remote(job, body.result)
    except (ValidationError, ResultRejectedError) as exc:
        error = sanitize_error(f"result refused from remote worker {caller.worker_id}: {exc}")
        log.warning("remote.result_refused", job_id=job.id, type=job.type, worker_id=caller.worker_id, error=error)
        failure = Failure(job, error, permanent=False, retry_seconds=services.backoff.delay(job.attempts))
        _answer(caller, job, _commit(services, FinishedAttempt(job, failure=failure)))
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=error) from exc
    return _answer(caller, job, _commit(services, FinishedAttempt(job, result=result)))


@router.post("/jobs/{job_id}/fail", response_model=CompletionResponse, responses=_LOST,
             summary="Report a failed attempt (retryable or permanent)")
def fail_job(job_id: int, body: FailRequest, caller: Worker, services: Services) -> CompletionResponse:
    job = _held(services, caller, job_id, body.attempt)
    delay = (min(body.retry_after_seconds, services.backoff.cap_seconds) if body.retry_after_seconds is not None
             else services.backoff.delay(job.attempts))
    failure = Failure(job, body.error, permanent=body.permanent, retry_seconds=delay)
    return _answer(caller, job, _commit(services, FinishedAttempt(job, failure=failure)))


@router.post("/stop", response_model=StopResponse, summary="Worker shutting down: give leases back")
def stop_worker(body: StopRequest, caller: Worker, services: Services) -> StopResponse:
    """Ends this instance's waiting claim at once, re-queues the jobs it hands back (the attempt is
    not held against them) and marks the worker stopped."""
    services.wakeups.stop_waiting(caller.worker_id)
    with services.pool.connection() as conn:
        held = jobs.held_by(conn, caller.worker_id, [(j.id, j.attempt) for j in body.release])
        with conn.transaction():
            ended = jobs.release_ended(conn, held)
            services.job_types.run_ended_hooks(conn, ended)  # a job released too often has failed
        released = {job.id for job in ended}
        conn.execute(jobs.QUERIES["worker_stop"], {"id": caller.worker_id, "now": None})
    return StopResponse(released=sorted(released))
