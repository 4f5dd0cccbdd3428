-- Named queries of webhooks: endpoints, events, deliveries and their attempts (migration 0016).

-- name: endpoint_insert
INSERT INTO webhook_endpoints (tenant, url, events, description, secret)
VALUES (%(tenant)s, %(url)s, %(events)s, %(description)s, %(secret)s)
RETURNING id;

-- name: endpoint_count_live
SELECT count(*) FROM webhook_endpoints WHERE tenant = %(tenant)s AND removed_at IS NULL;

-- name: endpoint_list
SELECT id, tenant, url, events, description, enabled, disabled_reason, consecutive_failures, last_delivered_at,
       created_at, previous_secret_expires_at > now() AS rotating
  FROM webhook_endpoints
 WHERE removed_at IS NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   AND (%(id)s::bigint IS NULL OR id = %(id)s::bigint)
 ORDER BY id;

-- name: endpoint_update
UPDATE webhook_endpoints
   SET url = coalesce(%(url)s, url), events = coalesce(%(events)s, events),
       description = coalesce(%(description)s, description)
 WHERE id = %(id)s AND removed_at IS NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
RETURNING id;

-- name: endpoint_set_enabled
-- Enabling starts the count of failures afresh; disabling says why.
UPDATE webhook_endpoints
   SET enabled = %(enabled)s,
       disabled_reason = CASE WHEN %(enabled)s THEN NULL ELSE %(reason)s END,
       consecutive_failures = CASE WHEN %(enabled)s THEN 0 ELSE consecutive_failures END
 WHERE id = %(id)s AND removed_at IS NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
RETURNING id;

-- name: endpoint_remove
-- The row stays for its deliveries' sake; its secrets go.
UPDATE webhook_endpoints
   SET removed_at = now(), enabled = false, disabled_reason = 'removed', secret = NULL, previous_secret = NULL,
       previous_secret_expires_at = NULL
 WHERE id = %(id)s AND removed_at IS NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
RETURNING id;

-- name: endpoint_rotate
UPDATE webhook_endpoints
   SET previous_secret = secret, secret = %(secret)s,
       previous_secret_expires_at = now() + make_interval(secs => %(keep_seconds)s)
 WHERE id = %(id)s AND removed_at IS NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
RETURNING id;

-- name: endpoint_open_deliveries
-- An endpoint's deliveries still to be sent (but `except_id`), with the jobs sending them.
SELECT id, job_id FROM webhook_deliveries
 WHERE endpoint_id = %(endpoint_id)s AND state IN ('pending', 'retrying') AND id <> coalesce(%(except_id)s::bigint, 0);

-- name: deliveries_close
-- pending or retrying -> cancelled or skipped, with the reason.
UPDATE webhook_deliveries
   SET state = %(state)s, last_error = %(reason)s, finished_at = now(), next_attempt_at = NULL
 WHERE id = ANY(%(ids)s::bigint[]) AND state IN ('pending', 'retrying');

-- name: event_emit
-- One event, and one pending delivery per endpoint of the tenant that is enabled and wants this
-- event type (no event at all when none does). A document's event names the document and its
-- version, a tender's the tender and its revision.
WITH endpoints AS (
    SELECT id FROM webhook_endpoints
     WHERE tenant = %(tenant)s AND enabled AND removed_at IS NULL AND %(type)s = ANY(events)
),
event AS (
    INSERT INTO webhook_events (tenant, type, document_id, version, tender_id, revision)
    SELECT %(tenant)s, %(type)s, %(document_id)s, %(version)s, %(tender_id)s, %(revision)s
     WHERE EXISTS (SELECT 1 FROM endpoints)
    RETURNING id
)
INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant)
SELECT event.id, endpoints.id, %(tenant)s FROM event CROSS JOIN endpoints
RETURNING id;

-- name: pings_lock
-- A tenant's pings decide their limits in turn (tenderflow.webhooks.deliveries.PINGS_*).
SELECT pg_advisory_xact_lock(7241005, hashtext(%(tenant)s));

-- name: pings_recent
-- The tenant's pings still waiting for their receiver (pending, and younger than a ping's timeout),
-- its pings of the last minute, and the seconds until the oldest of those is a minute old.
SELECT count(*) FILTER (WHERE d.state = 'pending'
                          AND d.created_at > now() - make_interval(secs => %(in_flight_seconds)s)),
       count(*),
       extract(epoch FROM min(d.created_at) + interval '1 minute' - now())
  FROM webhook_deliveries d
  JOIN webhook_events e ON e.id = d.event_id
 WHERE d.tenant = %(tenant)s AND e.type = 'ping' AND d.created_at > now() - interval '1 minute';

-- name: event_insert_ping
INSERT INTO webhook_events (tenant, type) VALUES (%(tenant)s, 'ping') RETURNING id;

-- name: delivery_insert
INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant) VALUES (%(event_id)s, %(endpoint_id)s, %(tenant)s)
RETURNING id;

-- name: delivery_set_jobs
UPDATE webhook_deliveries d SET job_id = j.job_id
  FROM unnest(%(ids)s::bigint[], %(job_ids)s::bigint[]) AS j(id, job_id)
 WHERE d.id = j.id;

-- name: delivery_load
-- Everything one attempt needs: the delivery, its endpoint (URL, secrets, whether it may be sent to)
-- and its event.
SELECT d.id, d.state, d.attempts, d.tenant, d.endpoint_id, w.url, w.enabled, w.removed_at IS NOT NULL AS removed,
       w.secret, CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
       e.public_id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.document_id, e.version,
       e.tender_id, e.revision
  FROM webhook_deliveries d
  JOIN webhook_endpoints w ON w.id = d.endpoint_id
  JOIN webhook_events e ON e.id = d.event_id
 WHERE d.id = %(id)s;

-- name: attempt_record
-- One attempt: its row (numbered after the delivery's attempts so far: redeliveries continue the
-- count) and the delivery's new state, in one statement.
WITH numbered AS (
    UPDATE webhook_deliveries
       SET attempts = attempts + 1, state = %(state)s, last_status = %(status_code)s, last_error = %(error)s,
           next_attempt_at = now() + make_interval(secs => %(retry_seconds)s::double precision),
           finished_at = CASE WHEN %(state)s IN ('delivered', 'failed') THEN now() END
     WHERE id = %(delivery_id)s
    RETURNING attempts
)
INSERT INTO webhook_attempts (delivery_id, attempt, job_id, outcome, status_code, error, address, duration_ms, response)
SELECT %(delivery_id)s, numbered.attempts, %(job_id)s, %(outcome)s, %(status_code)s, %(error)s, %(address)s,
       %(duration_ms)s, %(response)s
  FROM numbered
RETURNING attempt;

-- name: endpoint_delivered
-- A delivered attempt clears the endpoint's count of failures. Written only when there is one to
-- clear, or once a minute for last_delivered_at: a busy endpoint's row is not a lock that every
-- delivery's commit waits on.
UPDATE webhook_endpoints SET consecutive_failures = 0, last_delivered_at = now()
 WHERE id = %(id)s
   AND (consecutive_failures > 0 OR last_delivered_at IS NULL OR last_delivered_at < now() - interval '1 minute');

-- name: endpoint_failed
-- A failed attempt adds to the endpoint's count of failures, and the one that reaches
-- %(disable_after)s (0: never) disables the endpoint. `disabled_now`: this attempt did it.
WITH before AS (
    SELECT id, enabled FROM webhook_endpoints WHERE id = %(id)s FOR UPDATE
)
UPDATE webhook_endpoints w
   SET consecutive_failures = w.consecutive_failures + 1,
       enabled = w.enabled AND (%(disable_after)s = 0 OR w.consecutive_failures + 1 < %(disable_after)s),
       disabled_reason = CASE
           WHEN w.enabled AND %(disable_after)s > 0 AND w.consecutive_failures + 1 >= %(disable_after)s
           THEN %(reason)s ELSE w.disabled_reason END
  FROM before
 WHERE w.id = before.id
RETURNING w.enabled, before.enabled AND NOT w.enabled AS disabled_now, w.consecutive_failures;

-- name: delivery_end
-- The job of a delivery ended without its attempt recorded as final (out of attempts after a lost
-- lease, cancelled, released too often): the delivery ends with it, unless it already ended.
UPDATE webhook_deliveries
   SET state = %(state)s, last_error = coalesce(%(error)s, last_error), finished_at = now(), next_attempt_at = NULL
 WHERE id = ANY(%(ids)s::bigint[]) AND state IN ('pending', 'retrying');

-- name: delivery_list
-- Newest first, `before_id` the cursor.
SELECT d.id, d.tenant, d.endpoint_id, w.url, e.public_id AS event_id, e.type AS event_type, e.document_id,
       e.version, e.tender_id, e.revision, d.state, d.attempts, d.redeliveries, d.last_status, d.last_error, d.next_attempt_at, d.created_at,
       d.finished_at
  FROM webhook_deliveries d
  JOIN webhook_endpoints w ON w.id = d.endpoint_id
  JOIN webhook_events e ON e.id = d.event_id
 WHERE (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND (%(endpoint_id)s::bigint IS NULL OR d.endpoint_id = %(endpoint_id)s::bigint)
   AND (%(state)s::text IS NULL OR d.state = %(state)s::text)
   AND (%(document_id)s::bigint IS NULL OR e.document_id = %(document_id)s::bigint)
   AND (%(event_type)s::text IS NULL OR e.type = %(event_type)s::text)
   AND (%(before_id)s::bigint IS NULL OR d.id < %(before_id)s::bigint)
 ORDER BY d.id DESC
 LIMIT %(limit)s;

-- name: attempt_list
SELECT attempt, job_id, outcome, status_code, error, address, duration_ms, response, at
  FROM webhook_attempts WHERE delivery_id = %(delivery_id)s ORDER BY attempt;

-- name: delivery_redeliver
-- A delivery that has ended goes back to pending (its attempts count on); the caller enqueues its job.
UPDATE webhook_deliveries d
   SET state = 'pending', redeliveries = d.redeliveries + 1, finished_at = NULL, next_attempt_at = NULL,
       last_error = NULL
  FROM webhook_endpoints w
 WHERE d.id = %(id)s AND w.id = d.endpoint_id AND w.removed_at IS NULL
   AND (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND d.state IN ('delivered', 'failed', 'skipped', 'cancelled')
RETURNING d.id, d.redeliveries, d.tenant;

-- name: deliveries_failed_of_endpoint
SELECT id FROM webhook_deliveries
 WHERE endpoint_id = %(endpoint_id)s AND state IN ('failed', 'cancelled')
   AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
 ORDER BY id;
