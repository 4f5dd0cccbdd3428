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
DECLARE
    seconds double precision := extract(epoch FROM NEW.finished_at - NEW.started_at);
BEGIN
    INSERT INTO job_outcome_counts AS c (type, outcome, stripe, jobs, timed, seconds_sum, seconds_le)
    VALUES (NEW.type, NEW.state::text, pg_backend_pid() % 16, 1, (seconds IS NOT NULL)::int,
            coalesce(seconds, 0),
            ARRAY(SELECT (seconds IS NOT NULL AND seconds <= b.bound)::int::bigint
                    FROM unnest(job_duration_bounds()) WITH ORDINALITY AS b(bound, n) ORDER BY b.n))
    ON CONFLICT (type, outcome, stripe) DO UPDATE
       SET jobs = c.jobs + 1, timed = c.timed + excluded.timed, seconds_sum = c.seconds_sum + excluded.seconds_sum,
           seconds_le = ARRAY(SELECT t.a + t.b FROM unnest(c.seconds_le, excluded.seconds_le) WITH ORDINALITY
                                  AS t(a, b, n) ORDER BY t.n);
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_count_outcomes AFTER UPDATE OF state ON jobs FOR EACH ROW
    WHEN (NEW.state IN ('succeeded', 'failed', 'cancelled') AND OLD.state IS DISTINCT FROM NEW.state)
    EXECUTE FUNCTION job_outcome_count();
