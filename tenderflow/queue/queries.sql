-- Named queries of the job queue. Every query that reads the clock takes %(now)s: NULL means the
-- database clock (production); tests pass a time to move the clock without sleeping.
-- The claims' tokens (ids, attempts, worker_ids) go as binary arrays (%(ids)b): psycopg dumps a
-- list as a text array with a regular expression per element, most of a batch's cost in Python.

-- name: job_enqueue
-- Many jobs in one statement, and their wake-up: one round trip. A unique_key already present is
-- skipped (idempotent enqueue): its job's id is not returned here (see job_ids_by_unique_key).
-- Payloads arrive as JSON text, parsed once, here. The NOTIFY (one per job type, only when a job
-- was inserted that may run now: one due later is found by the workers' polls, a wake-up for it would
-- find nothing) is sent by the server when the transaction commits.
WITH inserted AS (
    INSERT INTO jobs (type, payload, tenant, priority, max_attempts, run_after, unique_key)
    SELECT t.type, t.payload, t.tenant, t.priority, t.max_attempts,
           coalesce(t.run_after, %(now)s::timestamptz, now()), t.unique_key
      FROM unnest(%(types)s::text[], %(payloads)s::text[]::jsonb[], %(tenants)s::text[], %(priorities)s::smallint[],
                  %(max_attempts)s::integer[], %(run_afters)s::timestamptz[], %(unique_keys)s::text[])
           AS t(type, payload, tenant, priority, max_attempts, run_after, unique_key)
    ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
    RETURNING id, unique_key, type, run_after
),
woken AS (
    SELECT count(pg_notify(%(channel)s, w.type)) AS sent
      FROM (SELECT DISTINCT type FROM inserted WHERE run_after <= coalesce(%(now)s::timestamptz, now())) w
)
SELECT i.id, i.unique_key FROM inserted i CROSS JOIN woken ORDER BY i.id;

-- name: job_enqueue_one
-- One job: job_enqueue with a row of values instead of arrays (cheaper to send for a single job).
WITH inserted AS (
    INSERT INTO jobs (type, payload, tenant, priority, max_attempts, run_after, unique_key)
    VALUES (%(type)s::text, %(payload)s::text::jsonb, %(tenant)s::text, %(priority)s::smallint,
            %(max_attempts)s::integer, coalesce(%(run_after)s::timestamptz, %(now)s::timestamptz, now()),
            %(unique_key)s::text)
    ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
    RETURNING id, type, run_after
),
woken AS (  -- 'type:id': an idle worker claims the job it names by its id (job_claim_named); due now only
    SELECT count(pg_notify(%(channel)s, type || ':' || id)) AS sent
      FROM inserted WHERE run_after <= coalesce(%(now)s::timestamptz, now())
)
SELECT i.id FROM inserted i CROSS JOIN woken;

-- name: job_ids_by_unique_key
SELECT unique_key, id FROM jobs WHERE unique_key = ANY(%(unique_keys)s::text[]);

-- name: job_notify
SELECT pg_notify(%(channel)s, type) FROM unnest(%(types)s::text[]) AS t(type);

-- name: job_claim_lock
-- Claims are serialised by this transaction-level lock, so each claim's statement (which runs
-- after it, on a fresh snapshot) sees every earlier claim: the per-tenant cap is then exact.
SELECT pg_advisory_xact_lock(%(lock_key)s);

-- name: job_claim_lock_own_transaction
-- The same lock, and settings for a claim's own transaction (a claim inside a caller's transaction
-- takes the lock alone: the settings would outlast the claim). The planner cannot estimate the
-- recursive heads or the per-head LIMIT, so the claim's cost estimate grows with the queue:
--   jit off              past jit_above_cost it would JIT-compile: ~0.9 s for a ~1 ms statement
--   force_generic_plan   the plan's shape comes from the query (loose index scan, LATERAL on
--                        jobs_queued_idx), not from the values, yet the custom plans PostgreSQL
--                        keeps choosing cost more to plan (~0.6 ms) than to run
--   synchronous_commit   off: the claim does not wait for its WAL flush, most of an idle worker's
--                        enqueue -> start latency. Safe because the ownership token is (id, attempts,
--                        worker_id): a claim lost in a server crash puts the job back with its old
--                        attempts, and when another worker claims it again the token differs in
--                        worker_id, so nothing the first worker writes lands; any write that does
--                        wait (complete, fail) flushes the WAL, the claim with it.
SELECT set_config('jit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true),
       set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(%(lock_key)s);

-- name: job_claim_named_lock
-- The lock for job_claim_named in its own transaction: a primary-key lookup needs neither of
-- job_claim's planner settings; the claim's commit does not wait for its WAL flush, as above.
SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(%(lock_key)s);

-- name: claim_started
-- Not a query: the statement both claims (job_claim, job_claim_named) end with, after their `claimed`
-- CTE of the ids to start: each job running, its attempt counted, the worker's, leased.
UPDATE jobs j
   SET state = 'running',
       attempts = j.attempts + 1,
       worker_id = %(worker_id)s,
       started_at = coalesce(%(now)s::timestamptz, now()),
       leased_until = coalesce(%(now)s::timestamptz, now()) + make_interval(secs => %(lease_seconds)s)
  FROM claimed
 WHERE j.id = claimed.id
RETURNING j.id, j.type, j.payload, j.tenant, j.priority, j.attempts, j.max_attempts, j.created_at, j.worker_id

-- name: job_claim
-- Fill up to %(limit)s free slots of one worker with jobs of %(types)s:
--   heads      one row per (type, tenant) with queued jobs: a loose index scan, one index descent each
--   room       how many more jobs each tenant may run under its cap (only %(tenants)s, when given)
--   candidates each head's next jobs in (priority desc, run_after) order, numbered per tenant (turn):
--              a job's priority orders its own tenant's jobs only
--   chosen     the tenant's priority (the operator's, job_tenant_limits) first, then round robin across
--              tenants (turn), then oldest
WITH RECURSIVE heads AS (
    SELECT t.type,
           (SELECT j.tenant FROM jobs j
             WHERE j.state = 'queued' AND j.type = t.type
             ORDER BY j.tenant LIMIT 1) AS tenant
      FROM unnest(%(types)s::text[]) AS t(type)
    UNION ALL
    SELECT h.type,
           (SELECT j.tenant FROM jobs j
             WHERE j.state = 'queued' AND j.type = h.type AND j.tenant > h.tenant
             ORDER BY j.tenant LIMIT 1)
      FROM heads h
     WHERE h.tenant IS NOT NULL
),
room AS (
    SELECT t.tenant, coalesce(l.priority, 0) AS tenant_priority,
           CASE WHEN coalesce(l.max_running, %(default_tenant_cap)s) = 0 THEN %(limit)s
                ELSE greatest(coalesce(l.max_running, %(default_tenant_cap)s)
                              - (SELECT count(*) FROM jobs r WHERE r.state = 'running' AND r.tenant = t.tenant),
                              0)
           END AS room
      FROM (SELECT DISTINCT tenant FROM heads WHERE tenant IS NOT NULL) t
      LEFT JOIN job_tenant_limits l ON l.tenant = t.tenant
     WHERE %(tenants)s::text[] IS NULL OR t.tenant = ANY(%(tenants)s::text[])
),
candidates AS (
    SELECT c.id, r.tenant_priority, c.run_after, r.room,
           row_number() OVER (PARTITION BY c.tenant ORDER BY c.priority DESC, c.run_after, c.id) AS turn
      FROM heads h
      JOIN room r ON r.tenant = h.tenant
     CROSS JOIN LATERAL (
           SELECT j.id, j.tenant, j.priority, j.run_after
             FROM jobs j
            WHERE j.state = 'queued' AND j.type = h.type AND j.tenant = h.tenant
              AND j.run_after <= coalesce(%(now)s::timestamptz, now())
            ORDER BY j.priority DESC, j.run_after
            LIMIT least(r.room, %(limit)s)
     ) c
),
chosen AS MATERIALIZED (
    SELECT id FROM candidates
     WHERE turn <= room
     ORDER BY tenant_priority DESC, turn, run_after, id
     LIMIT %(limit)s
),
claimed AS MATERIALIZED (
    SELECT j.id FROM jobs j
     WHERE j.id = ANY(ARRAY(SELECT id FROM chosen)) AND j.state = 'queued'
       FOR UPDATE SKIP LOCKED
)
-- include: claim_started

-- name: job_claim_named
-- An idle worker's claim of the one job a notification named ('type:id', job_enqueue_one): a
-- primary-key lookup instead of job_claim's search, about half its cost on an idle server (most of
-- enqueue -> start). The same rules as job_claim for that job: queued, of %(types)s, due, of
-- %(tenants)s when given, and its tenant under its cap (exact: this runs under the same advisory
-- lock). The order is not consulted: the worker uses this only while its last claim left slots
-- free (nothing else of its types was runnable then), so the named job is the next one anyway.
-- Nothing is returned when another worker was quicker, the job is not due yet, or its tenant is
-- at its cap; the worker's own claims take it from there.
WITH named AS MATERIALIZED (
    SELECT j.id, j.tenant FROM jobs j
     WHERE j.id = %(id)s AND j.state = 'queued' AND j.type = ANY(%(types)s::text[])
       AND j.run_after <= coalesce(%(now)s::timestamptz, now())
       AND (%(tenants)s::text[] IS NULL OR j.tenant = ANY(%(tenants)s::text[]))
       FOR UPDATE SKIP LOCKED
),
claimed AS MATERIALIZED (
    SELECT n.id FROM named n
      LEFT JOIN job_tenant_limits l ON l.tenant = n.tenant
     WHERE coalesce(l.max_running, %(default_tenant_cap)s) = 0
        OR (SELECT count(*) FROM jobs r WHERE r.state = 'running' AND r.tenant = n.tenant)
           < coalesce(l.max_running, %(default_tenant_cap)s)
)
-- include: claim_started

-- name: job_heartbeat
-- Renew every lease a worker holds in one statement; the ids returned are the ones still owned.
UPDATE jobs j
   SET leased_until = coalesce(%(now)s::timestamptz, now()) + make_interval(secs => %(lease_seconds)s)
  FROM unnest(%(ids)b::bigint[], %(attempts)b::integer[], %(worker_ids)b::text[]) AS held(id, attempts, worker_id)
 WHERE j.id = held.id AND j.attempts = held.attempts AND j.worker_id = held.worker_id AND j.state = 'running'
RETURNING j.id;

-- name: job_lock_owned
-- First statement of a completion transaction: lock the jobs this worker still owns. A job
-- reclaimed (attempts moved on) or cancelled is not returned, and nothing is written for it.
SELECT j.id FROM jobs j
  JOIN unnest(%(ids)b::bigint[], %(attempts)b::integer[], %(worker_ids)b::text[]) AS held(id, attempts, worker_id)
    ON j.id = held.id AND j.attempts = held.attempts AND j.worker_id = held.worker_id
 WHERE j.state = 'running'
 ORDER BY j.id
   FOR UPDATE OF j;

-- name: ended_counted
-- Not a query: the CTE that the queries ending jobs include where they say `-- include: ended_counted`
-- (tenderflow/sqlfiles.py), after their `ended` CTE: the /metrics outcome counters (the queue's migration 0007)
-- of the jobs that ended there (a job moved back to queued is no outcome).
counted AS MATERIALIZED (
    SELECT job_outcomes_add(array_agg(e.type), array_agg(e.state::text),
                            array_agg(extract(epoch FROM e.finished_at - e.started_at)::float8)) AS rows
      FROM ended e WHERE e.state IN ('succeeded', 'failed', 'cancelled')
)

-- name: job_complete
-- running -> succeeded, for the jobs this claim still owns; each one counted (the queue's migration 0007).
WITH ended AS (
    UPDATE jobs j
       SET state = 'succeeded', leased_until = NULL, last_error = NULL,
           finished_at = coalesce(%(now)s::timestamptz, now())
      FROM unnest(%(ids)b::bigint[], %(attempts)b::integer[], %(worker_ids)b::text[]) AS held(id, attempts, worker_id)
     WHERE j.id = held.id AND j.attempts = held.attempts AND j.worker_id = held.worker_id AND j.state = 'running'
    RETURNING j.id, j.type, j.state, j.started_at, j.finished_at
),
-- include: ended_counted
SELECT e.id FROM ended e CROSS JOIN counted;

-- name: job_fail
-- Retry after backoff while attempts remain and the error is not permanent; else end failed.
-- `permanent` in the answer: ended failed by a permanent failure of the handler's run (not of a commit).
WITH ended AS (
    UPDATE jobs j
       SET state = CASE WHEN f.permanent OR j.attempts >= j.max_attempts THEN 'failed' ELSE 'queued' END::job_state,
           run_after = CASE WHEN f.permanent OR j.attempts >= j.max_attempts THEN j.run_after
                            ELSE coalesce(%(now)s::timestamptz, now()) + make_interval(secs => f.retry_seconds) END,
           finished_at = CASE WHEN f.permanent OR j.attempts >= j.max_attempts
                              THEN coalesce(%(now)s::timestamptz, now()) END,
           leased_until = NULL,
           last_error = f.error
      FROM unnest(%(ids)b::bigint[], %(attempts)b::integer[], %(worker_ids)b::text[], %(errors)s::text[],
                  %(permanent)s::boolean[], %(at_commit)s::boolean[], %(retry_seconds)s::double precision[])
           AS f(id, attempts, worker_id, error, permanent, at_commit, retry_seconds)
     WHERE j.id = f.id AND j.attempts = f.attempts AND j.worker_id = f.worker_id AND j.state = 'running'
    RETURNING j.id, j.type, j.tenant, j.payload, j.attempts, j.state, j.last_error,
              f.permanent AND NOT f.at_commit AND j.state = 'failed' AS permanent, j.started_at, j.finished_at
),
-- include: ended_counted
SELECT e.id, e.type, e.tenant, e.payload, e.attempts, e.state, e.last_error, e.permanent
  FROM ended e CROSS JOIN counted;

-- name: job_release
-- Give leases back on shutdown: queued again at once. The attempt is not held against the job
-- (max_attempts moves up with it) but attempts never goes down, so (id, attempts) stays unique.
-- A job released %(max_releases)s times already ends failed instead: it would never finish.
WITH ended AS (
    UPDATE jobs j
       SET state = CASE WHEN j.releases < %(max_releases)s THEN 'queued' ELSE 'failed' END::job_state,
           leased_until = NULL,
           max_attempts = CASE WHEN j.releases < %(max_releases)s THEN j.max_attempts + 1 ELSE j.max_attempts END,
           releases = j.releases + 1,
           run_after = coalesce(%(now)s::timestamptz, now()),
           finished_at = CASE WHEN j.releases >= %(max_releases)s THEN coalesce(%(now)s::timestamptz, now()) END,
           last_error = CASE WHEN j.releases < %(max_releases)s
                             THEN 'released by worker ' || j.worker_id || ' at shutdown'
                             ELSE 'given back at worker shutdown ' || (j.releases + 1) || ' times: the job never '
                                  || 'finishes before its workers stop'
                        END
      FROM unnest(%(ids)b::bigint[], %(attempts)b::integer[], %(worker_ids)b::text[]) AS held(id, attempts, worker_id)
     WHERE j.id = held.id AND j.attempts = held.attempts AND j.worker_id = held.worker_id AND j.state = 'running'
    RETURNING j.id, j.type, j.tenant, j.payload, j.attempts, j.state, j.last_error, j.started_at, j.finished_at
),
-- include: ended_counted
SELECT e.id, e.type, e.tenant, e.payload, e.attempts, e.state, e.last_error FROM ended e CROSS JOIN counted;

-- name: job_reclaim
-- Expired leases: back to queued while attempts remain, else failed. SKIP LOCKED: a job being
-- completed right now is locked by its completion and is not reclaimed.
-- With %(dead_after)s (seconds), also the jobs of a dead local worker before their leases end: a
-- worker whose liveness lock (migration 0006) no session holds any more and whose last heartbeat is older
-- than that; never in the first 2 x dead_after after the server started (every session was new
-- then, and the workers' listeners may still be reconnecting).
WITH held AS MATERIALIZED (
    SELECT (l.classid::bigint << 32) | l.objid::bigint AS key
      FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
),
expired AS MATERIALIZED (
    SELECT j.id, j.leased_until < coalesce(%(now)s::timestamptz, now()) AS lease_over
      FROM jobs j
      LEFT JOIN workers w ON w.id = j.worker_id
     WHERE j.state = 'running'
       AND (j.leased_until < coalesce(%(now)s::timestamptz, now())
            OR (%(dead_after)s::float8 IS NOT NULL AND w.liveness_lock IS NOT NULL
                AND w.last_seen_at < coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(dead_after)s)
                AND pg_postmaster_start_time() < now() - make_interval(secs => 2 * %(dead_after)s)
                AND w.liveness_lock NOT IN (SELECT key FROM held)))
     ORDER BY j.id
     LIMIT %(limit)s
       FOR UPDATE OF j SKIP LOCKED
),
ended AS (
    UPDATE jobs j
       SET state = CASE WHEN j.attempts < j.max_attempts THEN 'queued' ELSE 'failed' END::job_state,
           run_after = coalesce(%(now)s::timestamptz, now()),
           finished_at = CASE WHEN j.attempts >= j.max_attempts THEN coalesce(%(now)s::timestamptz, now()) END,
           leased_until = NULL,
           last_error = CASE WHEN expired.lease_over AND j.attempts < j.max_attempts
                             THEN 'lease expired (worker ' || j.worker_id || ' stopped heartbeating)'
                             WHEN expired.lease_over
                             THEN 'lease expired on final attempt (worker ' || j.worker_id || ' stopped heartbeating)'
                             ELSE 'worker ' || j.worker_id
                                  || CASE WHEN j.attempts < j.max_attempts THEN ' died' ELSE ' died on final attempt' END
                                  || ' (its database session ended and it stopped heartbeating)'
                        END
      FROM expired
     WHERE j.id = expired.id
    RETURNING j.id, j.type, j.tenant, j.payload, j.attempts, j.state, j.last_error, j.started_at, j.finished_at
),
-- include: ended_counted
SELECT e.id, e.type, e.tenant, e.payload, e.attempts, e.state, e.last_error FROM ended e CROSS JOIN counted;

-- name: job_cancel
-- queued or running -> cancelled. A running job's worker finds out at its next heartbeat.
WITH ended AS (
    UPDATE jobs
       SET state = 'cancelled', leased_until = NULL, finished_at = coalesce(%(now)s::timestamptz, now()),
           last_error = coalesce(last_error, 'cancelled')
     WHERE id = %(id)s AND state IN ('queued', 'running')
    RETURNING id, type, tenant, payload, attempts, state, last_error, started_at, finished_at
),
-- include: ended_counted
SELECT e.id, e.type, e.tenant, e.payload, e.attempts, e.state, e.last_error FROM ended e CROSS JOIN counted;

-- name: job_cancel_many
-- queued or running -> cancelled for those of %(ids)s that no other transaction holds locked: SKIP
-- LOCKED, so a caller inside a completion transaction never waits on (or deadlocks with) another.
WITH open AS MATERIALIZED (
    SELECT id FROM jobs
     WHERE id = ANY(%(ids)s::bigint[]) AND state IN ('queued', 'running')
     ORDER BY id
       FOR UPDATE SKIP LOCKED
), ended AS (
    UPDATE jobs j
       SET state = 'cancelled', leased_until = NULL, finished_at = coalesce(%(now)s::timestamptz, now()),
           last_error = %(reason)s
      FROM open
     WHERE j.id = open.id
    RETURNING j.id, j.type, j.tenant, j.payload, j.attempts, j.state, j.last_error, j.started_at, j.finished_at
),
-- include: ended_counted
SELECT e.id, e.type, e.tenant, e.payload, e.attempts, e.state, e.last_error FROM ended e CROSS JOIN counted;

-- name: job_retry
-- failed or cancelled -> queued, with `extra_attempts` more attempts than it has used.
UPDATE jobs
   SET state = 'queued', finished_at = NULL, run_after = coalesce(%(now)s::timestamptz, now()),
       max_attempts = attempts + %(extra_attempts)s
 WHERE id = %(id)s AND state IN ('failed', 'cancelled')
RETURNING id;

-- name: job_get
SELECT id, type, payload, tenant, priority, state, attempts, max_attempts, run_after, leased_until,
       worker_id, unique_key, last_error, created_at, started_at, finished_at
  FROM jobs WHERE id = %(id)s;

-- name: job_list
SELECT id, type, tenant, priority, state, attempts, max_attempts, run_after, worker_id, last_error,
       created_at, finished_at
  FROM jobs
 WHERE (%(state)s::job_state IS NULL OR state = %(state)s::job_state)
   AND (%(type)s::text IS NULL OR type = %(type)s::text)
   AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
 ORDER BY id DESC
 LIMIT %(limit)s;

-- name: job_prune
-- Delete finished jobs older than the retention period, one batch per call (oldest first).
WITH old AS MATERIALIZED (
    SELECT id FROM jobs
     WHERE state IN ('succeeded', 'failed', 'cancelled')
       AND finished_at < coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(retention_seconds)s)
     ORDER BY finished_at
     LIMIT %(limit)s
)
DELETE FROM jobs j USING old WHERE j.id = old.id;

-- name: job_unfinished_of_types
-- Is any job of these types still to run (queued, due or not) or running? (`worker --burst`)
SELECT EXISTS (SELECT 1 FROM jobs WHERE type = ANY(%(types)s) AND state IN ('queued', 'running'));

-- name: job_type_stats
SELECT type, queued, runnable, running, expired_leases, succeeded_last_hour, failed_last_hour,
       oldest_queued_seconds, attempts_per_success, duration_p50_seconds, duration_p95_seconds
  FROM job_type_stats ORDER BY type;

-- name: job_failures_by_hour
SELECT hour, type, failed FROM job_failures_by_hour ORDER BY hour DESC, type;

-- name: tenant_limit_set
INSERT INTO job_tenant_limits (tenant, max_running) VALUES (%(tenant)s, %(max_running)s)
ON CONFLICT (tenant) DO UPDATE SET max_running = excluded.max_running;

-- name: tenant_priority_set
INSERT INTO job_tenant_limits (tenant, priority) VALUES (%(tenant)s, %(priority)s)
ON CONFLICT (tenant) DO UPDATE SET priority = excluded.priority;

-- name: schedule_upsert
INSERT INTO job_schedules (name, type, payload, tenant, priority, max_attempts, interval_seconds, cron, next_run_at)
VALUES (%(name)s, %(type)s, %(payload)s, %(tenant)s, %(priority)s, %(max_attempts)s, %(interval_seconds)s,
        %(cron)s, %(next_run_at)s)
ON CONFLICT (name) DO UPDATE
   SET type = excluded.type, payload = excluded.payload, tenant = excluded.tenant,
       priority = excluded.priority, max_attempts = excluded.max_attempts,
       interval_seconds = excluded.interval_seconds, cron = excluded.cron,
       next_run_at = excluded.next_run_at, enabled = true;

-- name: schedule_ensure
-- Create the schedule unless one of that name exists (which is left as it is, next run included).
INSERT INTO job_schedules (name, type, payload, tenant, priority, max_attempts, interval_seconds, cron, next_run_at)
VALUES (%(name)s, %(type)s, %(payload)s, %(tenant)s, %(priority)s, %(max_attempts)s, %(interval_seconds)s,
        %(cron)s, %(next_run_at)s)
ON CONFLICT (name) DO NOTHING;

-- name: schedule_due
SELECT name, type, payload, tenant, priority, max_attempts, interval_seconds, cron, next_run_at
  FROM job_schedules
 WHERE enabled AND next_run_at <= coalesce(%(now)s::timestamptz, now())
 ORDER BY next_run_at;

-- name: schedule_advance
-- Optimistic: only the scheduler that saw this next_run_at moves it (and records the run it enqueued).
UPDATE job_schedules SET next_run_at = %(next_run_at)s, last_run_at = %(seen_run_at)s, last_job_id = %(job_id)s
 WHERE name = %(name)s AND next_run_at = %(seen_run_at)s;

-- name: schedule_list
-- Every schedule (or those whose name starts with %(prefix)s), with the state of the job its last run made.
SELECT s.name, s.type, s.payload, s.tenant, s.priority, s.max_attempts, s.interval_seconds, s.cron,
       s.next_run_at, s.enabled, s.created_at, s.last_run_at, s.last_job_id,
       (SELECT j.state::text FROM jobs j WHERE j.id = s.last_job_id) AS last_job_state,
       (SELECT j.last_error FROM jobs j WHERE j.id = s.last_job_id) AS last_job_error
  FROM job_schedules s
 WHERE %(prefix)s::text IS NULL OR starts_with(s.name, %(prefix)s::text)
 ORDER BY s.name;

-- name: schedule_lock
SELECT name, type, payload, tenant, priority, max_attempts, interval_seconds, cron, next_run_at, enabled
  FROM job_schedules WHERE name = %(name)s
   FOR UPDATE;

-- name: schedule_delete
DELETE FROM job_schedules WHERE name = %(name)s RETURNING name;

-- name: schedule_set
-- Pause or resume, or change the timing: the next run is recomputed by the caller.
UPDATE job_schedules
   SET enabled = %(enabled)s, interval_seconds = %(interval_seconds)s, cron = %(cron)s,
       next_run_at = %(next_run_at)s
 WHERE name = %(name)s;

-- name: schedule_record_run
-- A run asked for now (`schedules run`): recorded as the last run; the timing does not move.
UPDATE job_schedules SET last_run_at = %(run_at)s, last_job_id = %(job_id)s WHERE name = %(name)s;

-- name: worker_register
-- A worker id names one process; once it said it stopped it stays stopped: a remote worker's
-- heartbeat or claim that reaches the server after its stop request must not mark it live again.
-- liveness_lock: the advisory lock key the worker holds while it lives (NULL: none; see migration 0006).
INSERT INTO workers (id, host, pid, pools, threads, kind, started_at, last_seen_at, liveness_lock)
VALUES (%(id)s, %(host)s, %(pid)s, %(pools)s, %(threads)s, %(kind)s,
        coalesce(%(now)s::timestamptz, now()), coalesce(%(now)s::timestamptz, now()), %(liveness_lock)s)
ON CONFLICT (id) DO UPDATE SET last_seen_at = excluded.last_seen_at;

-- name: worker_hold_liveness_lock
-- On the worker's own long-lived session: held until the session ends (the process with it).
SELECT pg_try_advisory_lock(%(key)s);

-- name: worker_set_liveness_lock
-- Once the lock is held, and only then, the row names it: a row that named a lock not yet taken
-- would read as a dead worker for the moment between the registration and the listener's start.
UPDATE workers SET liveness_lock = %(key)s WHERE id = %(id)s AND liveness_lock IS DISTINCT FROM %(key)s;

-- name: worker_heartbeat
UPDATE workers SET last_seen_at = coalesce(%(now)s::timestamptz, now()) WHERE id = %(id)s;

-- name: worker_stop
UPDATE workers SET stopped_at = coalesce(%(now)s::timestamptz, now()) WHERE id = %(id)s;

-- name: worker_list
SELECT id, host, pid, pools, threads, kind, started_at, last_seen_at, stopped_at,
       CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
            WHEN last_seen_at < coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(dead_after_seconds)s)
              OR NOT worker_lock_held(liveness_lock)
            THEN 'dead'
            ELSE 'live' END AS status,
       (SELECT count(*) FROM jobs j WHERE j.state = 'running' AND j.worker_id = w.id) AS running_jobs
  FROM workers w
 WHERE stopped_at IS NULL OR stopped_at > coalesce(%(now)s::timestamptz, now()) - interval '1 day'
 ORDER BY started_at DESC;

-- name: worker_live_count
-- Workers (local or remote) that heartbeat and have not stopped; with `type`, those that run it.
SELECT count(*) FROM workers
 WHERE stopped_at IS NULL
   AND last_seen_at >= coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(dead_after_seconds)s)
   AND (%(type)s::text IS NULL OR %(type)s::text = ANY (pools));

-- name: worker_live_types
-- The job types the live workers run (the union of their pools).
SELECT DISTINCT unnest(pools) FROM workers
 WHERE stopped_at IS NULL
   AND last_seen_at >= coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(dead_after_seconds)s);

-- name: worker_prune
DELETE FROM workers
 WHERE coalesce(stopped_at, last_seen_at) < coalesce(%(now)s::timestamptz, now()) - interval '7 days';

-- name: job_held_by_worker
-- The claims (id, attempts) that `worker_id` still holds: running, same attempt, same worker. The
-- HTTP API checks a remote worker's calls with it before passing the claims to the usual verbs
-- (which check (id, attempts) again, under lock, when they write).
SELECT j.id, j.type, j.payload, j.tenant, j.priority, j.attempts, j.max_attempts, j.created_at, j.worker_id
  FROM jobs j
  JOIN unnest(%(ids)s::bigint[], %(attempts)s::integer[]) AS held(id, attempts)
    ON j.id = held.id AND j.attempts = held.attempts
 WHERE j.state = 'running' AND j.worker_id = %(worker_id)s
 ORDER BY j.id;

-- name: worker_live_on_host
-- The workers of one host (a container, a pod) that have not stopped, and how many of them
-- heartbeated within the dead-after window with their process alive (its liveness lock held: a
-- killed worker is dead at once): what a container's health check asks.
SELECT count(*) AS registered,
       count(*) FILTER (WHERE last_seen_at >= coalesce(%(now)s::timestamptz, now())
                                               - make_interval(secs => %(dead_after_seconds)s)
                          AND worker_lock_held(liveness_lock)) AS live
  FROM workers
 WHERE host = %(host)s AND stopped_at IS NULL;
