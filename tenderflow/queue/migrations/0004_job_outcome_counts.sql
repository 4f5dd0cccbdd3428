-- Counters for /metrics that only ever grow: jobs pruned after the retention period, or a page read
-- again, do not take anything back. Each is written by a trigger in the transaction that writes the
-- row it counts, so it is exactly as durable as that row, and every API replica reports the same.
--
-- Rows are striped by the writing backend (pg_backend_pid() % 16): concurrent workers' completion
-- transactions update different rows instead of queueing on one lock. Readers sum the stripes.
-- Histograms keep, per bound of their *_bounds() function, how many observations were <= it.

-- The queue's: every job that reached an end state (succeeded, failed, cancelled), by type and
-- outcome, with how long its final attempt ran (claim to end; a job cancelled before any claim is
-- counted but not timed). A job retried by hand after it failed and then succeeding counts twice.
CREATE FUNCTION job_duration_bounds() RETURNS double precision[] LANGUAGE sql IMMUTABLE
    AS $$ SELECT '{0.1,0.5,1,2.5,5,10,30,60,120,300,600,1800}'::double precision[] $$;

CREATE TABLE job_outcome_counts (
    type        text             NOT NULL,
    outcome     text             NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'cancelled')),
    stripe      smallint         NOT NULL,
    jobs        bigint           NOT NULL,
    timed       bigint           NOT NULL,  -- of those, the ones with a duration (claimed at least once)
    seconds_sum double precision NOT NULL,
    seconds_le  bigint[]         NOT NULL,  -- timed jobs whose duration <= each job_duration_bounds() bound
    PRIMARY KEY (type, outcome, stripe)
);

CREATE FUNCTION job_outcome_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- One aggregated upsert per statement (a worker completes its jobs in batches), not per row.
    WITH ended AS (
        SELECT n.type, n.state::text AS outcome, extract(epoch FROM n.finished_at - n.started_at)::float8 AS seconds
          FROM new_jobs n JOIN old_jobs o ON o.id = n.id
         WHERE n.state IN ('succeeded', 'failed', 'cancelled') AND o.state IS DISTINCT FROM n.state
    )
    INSERT INTO job_outcome_counts AS c (type, outcome, stripe, jobs, timed, seconds_sum, seconds_le)
    SELECT e.type, e.outcome, pg_backend_pid() % 16, count(*), count(e.seconds), coalesce(sum(e.seconds), 0),
           ARRAY(SELECT count(*) FILTER (WHERE x.seconds <= b.bound)
                   FROM unnest(job_duration_bounds()) WITH ORDINALITY AS b(bound, n)
                   LEFT JOIN ended x ON x.type = e.type AND x.outcome = e.outcome
                  GROUP BY b.n ORDER BY b.n)
      FROM ended e
     GROUP BY e.type, e.outcome
    ON CONFLICT (type, outcome, stripe) DO UPDATE
       SET jobs = c.jobs + excluded.jobs, timed = c.timed + excluded.timed,
           seconds_sum = c.seconds_sum + excluded.seconds_sum,
           seconds_le = ARRAY(SELECT t.a + t.b FROM unnest(c.seconds_le, excluded.seconds_le) WITH ORDINALITY
                                  AS t(a, b, n) ORDER BY t.n);
    RETURN NULL;
END $$;

-- Statement-level, with transition tables (which PostgreSQL allows only without a column list, so it
-- runs after every UPDATE of jobs; for one that ends no job it finds nothing to count).
CREATE TRIGGER jobs_count_outcomes AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION job_outcome_count();
