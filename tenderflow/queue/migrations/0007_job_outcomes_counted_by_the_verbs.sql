-- Two costs every job paid twice (at its claim and at its end), removed:
--
-- 1. The outcome counters of migration 0013 were kept by a statement trigger on every UPDATE of
--    jobs, with transition tables: PostgreSQL copied every row a claim or a heartbeat touched into
--    two tuplestores and joined them, only to find nothing ending there (~6 us of server CPU per
--    job, ~17 % of a no-op job's claim + complete). The queue's verbs that end jobs (complete,
--    fail, release, reclaim, cancel: the only writers of an end state) now count what they end in
--    the same statement, through job_outcomes_add: as durable as the row, the same counters.
-- 2. unique_key was a UNIQUE constraint, so every job (almost all have no key) put a NULL entry in
--    its index at enqueue and again at each non-HOT update (claim, end). A partial unique index
--    over the keys that exist enforces the same uniqueness.

DROP TRIGGER jobs_count_outcomes ON jobs;
DROP FUNCTION job_outcome_count();

-- Count ended jobs: one entry per job, its type, its end state and how long its final attempt ran
-- (NULL: never claimed, counted but not timed). Rows striped by the writing backend as before.
-- PL/pgSQL, not SQL: its statement's plan is kept for the session (a SQL function with an INSERT
-- is planned again at every call, ~0.5 ms).
CREATE FUNCTION job_outcomes_add(types text[], outcomes text[], seconds double precision[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    groups bigint;
BEGIN
    IF types IS NULL THEN
        RETURN 0;
    END IF;
    WITH ended AS (
        SELECT e.type, e.outcome, e.seconds FROM unnest(types, outcomes, seconds) AS e(type, outcome, seconds)
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
    GET DIAGNOSTICS groups = ROW_COUNT;
    RETURN groups;
END $$;

ALTER TABLE jobs DROP CONSTRAINT jobs_unique_key_key;
CREATE UNIQUE INDEX jobs_unique_key_idx ON jobs (unique_key) WHERE unique_key IS NOT NULL;
