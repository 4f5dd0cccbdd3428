"""The `webhook.deliver` task: one attempt to POST one delivery to its endpoint.

    run     reads the delivery, its endpoint and, for a document's event, what the document's version
            is now (tenderflow.pipeline.announce.webhook_document), for a tender's, the revision that
            caused it (tenderflow.tenders.records.webhook_tender), then POSTs the signed event
            (tenderflow.webhooks.transport: allowed addresses only, one deadline, no redirects)
    commit  records the attempt (tenderflow.webhooks.deliveries.record_attempt); a failed one raises
            AttemptFailedError, so the record stays and the queue retries the job after the
            webhook backoff, or fails it once TENDERFLOW_WEBHOOK_MAX_ATTEMPTS are spent

A delivery is not sent, and ends `skipped`, when its document or tender was deleted meanwhile (nothing
of a deleted document is sent), or its endpoint was removed or disabled; that job succeeds. The job's
end-of-job hook ends the delivery when the job ends otherwise (a lost lease on its last attempt, a
cancellation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.errors import AttemptFailedError, ConfigurationError
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.task import Task
from tenderflow.pipeline import announce
from tenderflow.queue import Backoff, ClaimedJob, JobContext
from tenderflow.stages.contract import Pool
from tenderflow.tenders import records as tender_records
from tenderflow.webhooks import deliveries
from tenderflow.webhooks.addresses import AddressPolicy, Resolver, system_resolver
from tenderflow.webhooks.deliveries import DeliveryTarget
from tenderflow.webhooks.transport import PostOutcome, post


def address_policy(settings: Settings) -> AddressPolicy:
    """The operator's policy (TENDERFLOW_WEBHOOK_ALLOW_NETWORKS); ConfigurationError when it is malformed."""
    try:
        return AddressPolicy.from_setting(settings.webhook_allow_networks)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from exc


@dataclass(frozen=True)
class Delivery:
    """What `run` came to: the delivery, and either why it was not sent or the POST's outcome."""

    target: DeliveryTarget | None
    skipped: str | None = None
    outcome: PostOutcome | None = None


class DeliverHandler:
    def __init__(self, settings: Settings, pool: ConnectionPool, *, resolver: Resolver = system_resolver) -> None:
        self.settings = settings
        self.pool = pool
        self.policy = address_policy(settings)
        self.resolver = resolver
        self.backoff = Backoff(settings.webhook_backoff_base_seconds, settings.webhook_backoff_cap_seconds)

    def run(self, job: ClaimedJob, context: JobContext) -> Delivery:
        delivery_id = int(job.payload["delivery_id"])
        with self.pool.connection() as conn:
            target = deliveries.load(conn, delivery_id)
            if target is None:
                return Delivery(None, skipped="the delivery no longer exists")
            why = target.why_not_sent()
            if why is not None:
                return Delivery(target, skipped=why)
            data: dict[str, Any] | None = {}
            if target.document_id is not None and target.version is not None:
                data = announce.webhook_document(conn, target.document_id, target.version,
                                                  base_url=self.settings.public_url or "")
            elif target.tender_id is not None and target.revision is not None:
                data = tender_records.webhook_tender(conn, target.tender_id, target.revision,
                                                     base_url=self.settings.public_url or "")
                if data is None:
                    return Delivery(target, skipped=f"tender {target.tender_id} was deleted before it was sent")
            if data is None:
                return Delivery(target, skipped=f"document {target.document_id} was deleted before it was sent")
        body = deliveries.envelope(target, data)
        context.check()
        headers = deliveries.request_headers(target, body, attempt=target.attempts + 1)
        outcome = post(target.url, body, headers, policy=self.policy, resolver=self.resolver,
                       timeout_seconds=self.settings.webhook_timeout_seconds)
        return Delivery(target, outcome=outcome)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Delivery) -> None:
        target = result.target
        if target is None:
            return
        if result.outcome is None:
            deliveries.mark_skipped(conn, target.id, result.skipped or "not sent")
            return
        final = job.attempts >= self.settings.webhook_max_attempts
        delay = self.backoff.delay(job.attempts)
        record = deliveries.record_attempt(
            conn, target, job_id=job.id, outcome=result.outcome, final=final, retry_in_seconds=delay,
            disable_after=self.settings.webhook_disable_after_failures)
        if record.state == "delivered":
            return
        failure = result.outcome.failure()
        if record.state == "failed":
            why = "the endpoint is disabled" if not record.endpoint_enabled else \
                f"{job.attempts} attempts of {self.settings.webhook_max_attempts} made"
            raise AttemptFailedError(f"attempt {record.attempt}: {failure}; the delivery failed ({why})",
                                     permanent=True)
        wait = f"{delay:.1f}" if delay < 10 else f"{delay:.0f}"
        raise AttemptFailedError(f"attempt {record.attempt}: {failure}; next attempt in {wait} s", retry_after=delay)


def _build(resources: Resources) -> DeliverHandler:
    assert resources.pool is not None, "a task runs on a local worker, with the database"
    return DeliverHandler(resources.settings, resources.pool)


DELIVER = Task(name=deliveries.JOB_DELIVER, pool=Pool.EXTRACT, build=_build,
               ended=deliveries.end_deliveries_of_ended_jobs)
