-- Named queries of the HTTP API: worker tokens and the monitoring reads of /metrics.

-- name: worker_token_insert
INSERT INTO worker_tokens (id, name, secret_sha256, pools, tenants)
VALUES (%(id)s, %(name)s, %(secret_sha256)s, %(pools)s, %(tenants)s)
RETURNING id, name, pools, created_at;

-- name: worker_token_get
SELECT id, name, secret_sha256, pools, tenants, revoked_at FROM worker_tokens WHERE id = %(id)s;

-- name: worker_token_touch
-- last_used_at, written at most every 5 seconds per token: a worker calls several times a second.
UPDATE worker_tokens SET last_used_at = now()
 WHERE id = %(id)s AND (last_used_at IS NULL OR last_used_at < now() - interval '5 seconds');

-- name: worker_token_list
SELECT id, name, pools, tenants, created_at, last_used_at, revoked_at,
       CASE WHEN revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS status
  FROM worker_tokens
 WHERE %(include_revoked)s OR revoked_at IS NULL
 ORDER BY created_at, id;

-- name: worker_token_revoke
UPDATE worker_tokens SET revoked_at = now()
 WHERE name = %(name)s AND revoked_at IS NULL
RETURNING id;

-- name: metrics_jobs_by_type_state
SELECT type, state::text AS state, count(*) AS jobs FROM jobs GROUP BY type, state ORDER BY type, state;

-- name: metrics_job_durations_last_hour
-- Durations of the attempts that finished in the last hour (claim to end), per type and outcome:
-- count, sum, and cumulative counts for the bucket upper bounds in %(bounds)s (ascending).
WITH finished AS (
    SELECT type, state::text AS outcome, extract(epoch FROM finished_at - started_at)::float8 AS seconds
      FROM jobs
     WHERE state IN ('succeeded', 'failed') AND started_at IS NOT NULL
       AND finished_at > now() - interval '1 hour'
),
totals AS (
    SELECT type, outcome, count(*) AS jobs, sum(seconds) AS seconds_sum FROM finished GROUP BY type, outcome
),
buckets AS (
    SELECT f.type, f.outcome, b.bound, count(*) FILTER (WHERE f.seconds <= b.bound) AS le_count
      FROM finished f
     CROSS JOIN unnest(%(bounds)s::float8[]) AS b(bound)
     GROUP BY f.type, f.outcome, b.bound
)
SELECT t.type, t.outcome, t.jobs, t.seconds_sum, array_agg(b.le_count ORDER BY b.bound) AS bucket_counts
  FROM totals t
  JOIN buckets b ON b.type = t.type AND b.outcome = t.outcome
 GROUP BY t.type, t.outcome, t.jobs, t.seconds_sum
 ORDER BY t.type, t.outcome;

-- name: metrics_credit_ledger_present
SELECT to_regclass('credit_entries') IS NOT NULL;

-- name: metrics_credits_charged
-- Only run when credit_entries exists (see metrics_credit_ledger_present).
SELECT tenant, sum(amount)::bigint FROM credit_entries WHERE kind = 'charge' GROUP BY tenant ORDER BY tenant;

-- name: metrics_job_outcome_counts
-- The monotonic job counters (the queue's migration 0004), stripes summed; the bounds of the duration buckets.
SELECT c.type, c.outcome, sum(c.jobs)::bigint AS jobs, sum(c.timed)::bigint AS timed,
       sum(c.seconds_sum)::float8 AS seconds_sum,
       ARRAY(SELECT sum(x.le)::bigint FROM job_outcome_counts s, unnest(s.seconds_le) WITH ORDINALITY AS x(le, n)
              WHERE s.type = c.type AND s.outcome = c.outcome GROUP BY x.n ORDER BY x.n) AS seconds_le,
       job_duration_bounds() AS bounds
  FROM job_outcome_counts c
 GROUP BY c.type, c.outcome ORDER BY c.type, c.outcome;

-- name: metrics_page_counts
SELECT c.source, sum(c.pages)::bigint AS pages, sum(c.seconds_sum)::float8 AS seconds_sum,
       ARRAY(SELECT sum(x.le)::bigint FROM page_counts s, unnest(s.seconds_le) WITH ORDINALITY AS x(le, n)
              WHERE s.source = c.source GROUP BY x.n ORDER BY x.n) AS seconds_le,
       page_seconds_bounds() AS bounds
  FROM page_counts c
 GROUP BY c.source ORDER BY c.source;

-- name: metrics_llm_token_counts
SELECT backend, model, sum(extractions)::bigint, sum(prompt_tokens)::bigint, sum(completion_tokens)::bigint
  FROM llm_token_counts GROUP BY backend, model ORDER BY backend, model;
