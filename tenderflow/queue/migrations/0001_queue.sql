-- The generic job queue. It knows nothing about documents: a job is a type, a small JSON payload,
-- a tenant and a place in line.

-- job_state: where a job is in its life.
--   queued     waiting for a worker; runnable once run_after has passed (also: backoff, schedules)
--   running    claimed by worker_id until leased_until; (id, attempts) is the claim's ownership token
--   succeeded  finished; its handler's results were committed in the same transaction
--   failed     finished without success: permanent error, out of attempts, or lease lost on the final attempt
--   cancelled  finished because someone asked; a running job's worker learns it at its next heartbeat
CREATE TYPE job_state AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled');

CREATE TABLE jobs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type          text        NOT NULL CHECK (type ~ '^[a-z][a-z0-9_.-]{0,62}$'),
    payload       jsonb       NOT NULL DEFAULT '{}'::jsonb CHECK (pg_column_size(payload) <= 65536),
    tenant        text        NOT NULL DEFAULT 'default' CHECK (length(tenant) BETWEEN 1 AND 200),
    priority      smallint    NOT NULL DEFAULT 0,
    state         job_state   NOT NULL DEFAULT 'queued',
    attempts      integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts  integer     NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    run_after     timestamptz NOT NULL DEFAULT now(),
    leased_until  timestamptz,
    worker_id     text,
    unique_key    text        UNIQUE,
    last_error    text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    started_at    timestamptz,
    finished_at   timestamptz,
    -- a lease exists exactly while the job runs, and names its worker
    CONSTRAINT jobs_lease_iff_running CHECK ((state = 'running') = (leased_until IS NOT NULL)),
    CONSTRAINT jobs_running_has_worker CHECK (state <> 'running' OR (worker_id IS NOT NULL AND started_at IS NOT NULL)),
    -- finished_at is set exactly for the three end states
    CONSTRAINT jobs_finished_iff_ended CHECK (
        (state IN ('succeeded', 'failed', 'cancelled')) = (finished_at IS NOT NULL)),
    -- a job that ran or succeeded was claimed at least once; attempts never pass the budget
    CONSTRAINT jobs_claimed_before_running CHECK (state NOT IN ('running', 'succeeded') OR attempts > 0),
    CONSTRAINT jobs_attempts_within_budget CHECK (attempts <= max_attempts),
    CONSTRAINT jobs_failed_has_error CHECK (state <> 'failed' OR last_error IS NOT NULL)
);

COMMENT ON TABLE jobs IS 'The job queue. Claim order: priority desc, run_after; round robin across tenants.';
COMMENT ON COLUMN jobs.attempts IS 'Claims so far. (id, attempts) is the ownership token of the current claim.';
COMMENT ON COLUMN jobs.leased_until IS 'Deliberately NOT indexed: heartbeats must stay HOT updates.';

-- The claim walks (type, tenant) heads and takes each head's jobs in priority, run_after order.
CREATE INDEX jobs_queued_idx ON jobs (type, tenant, priority DESC, run_after) WHERE state = 'queued';
-- Running jobs: per-tenant running counts (fairness cap) and the reclaimer's scan for expired leases.
CREATE INDEX jobs_running_idx ON jobs (tenant) WHERE state = 'running';
-- Retention walks finished jobs oldest first.
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('succeeded', 'failed', 'cancelled');

-- A queue table churns: vacuum it early and leave room on pages so heartbeats stay HOT.
ALTER TABLE jobs SET (
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 1
);

-- Per-tenant cap on running jobs across all pools; tenants without a row use the workers' default.
CREATE TABLE job_tenant_limits (
    tenant       text PRIMARY KEY,
    max_running  integer NOT NULL CHECK (max_running >= 0)  -- 0 = no cap
);

-- Recurring schedules. Each run is enqueued with unique_key 'schedule:<name>:<run time>', so two
-- schedulers firing at once create one job.
CREATE TABLE job_schedules (
    name              text PRIMARY KEY,
    type              text        NOT NULL,
    payload           jsonb       NOT NULL DEFAULT '{}'::jsonb,
    tenant            text        NOT NULL DEFAULT 'default',
    priority          smallint    NOT NULL DEFAULT 0,
    max_attempts      integer     NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    interval_seconds  double precision CHECK (interval_seconds > 0),
    cron              text,
    next_run_at       timestamptz NOT NULL,
    enabled           boolean     NOT NULL DEFAULT true,
    created_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT job_schedules_one_rule CHECK ((interval_seconds IS NULL) <> (cron IS NULL))
);

-- Worker processes, each heartbeating its row: liveness for operators and the dashboard.
CREATE TABLE workers (
    id            text PRIMARY KEY,
    host          text        NOT NULL,
    pid           integer     NOT NULL,
    pools         text[]      NOT NULL,
    threads       integer     NOT NULL,
    kind          text        NOT NULL DEFAULT 'local' CHECK (kind IN ('local', 'remote')),
    started_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    stopped_at    timestamptz
);
ALTER TABLE workers SET (fillfactor = 70);

-- Monitoring, as SQL first. Everything else (CLI, /metrics, dashboard) reads these.
CREATE VIEW job_type_stats AS
SELECT type,
       count(*) FILTER (WHERE state = 'queued')                                    AS queued,
       count(*) FILTER (WHERE state = 'queued' AND run_after <= now())             AS runnable,
       count(*) FILTER (WHERE state = 'running')                                   AS running,
       count(*) FILTER (WHERE state = 'running' AND leased_until < now())          AS expired_leases,
       count(*) FILTER (WHERE state = 'succeeded' AND finished_at > now() - interval '1 hour')
                                                                                   AS succeeded_last_hour,
       count(*) FILTER (WHERE state = 'failed' AND finished_at > now() - interval '1 hour')
                                                                                   AS failed_last_hour,
       extract(epoch FROM now() - min(run_after) FILTER (WHERE state = 'queued' AND run_after <= now()))
                                                                                   AS oldest_queued_seconds,
       avg(attempts) FILTER (WHERE state = 'succeeded')                            AS attempts_per_success,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))
           FILTER (WHERE state = 'succeeded')                                      AS duration_p50_seconds,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))
           FILTER (WHERE state = 'succeeded')                                      AS duration_p95_seconds
  FROM jobs
 GROUP BY type;

CREATE VIEW job_failures_by_hour AS
SELECT date_trunc('hour', finished_at) AS hour, type, count(*) AS failed
  FROM jobs
 WHERE state = 'failed' AND finished_at > now() - interval '24 hours'
 GROUP BY 1, 2;
