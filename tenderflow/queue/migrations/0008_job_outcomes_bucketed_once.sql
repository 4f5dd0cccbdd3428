-- The /metrics job counters (migration 0040) cost a completion as much as a third of its UPDATE:
-- job_outcomes_add built each group's histogram by joining every bound to every ended job of the
-- group (12 scans of the batch). Now the batch is grouped once, by type, outcome and bucket (each
-- duration's bucket found by width_bucket's binary search over the sorted bounds), and a group's
-- cumulative counts are summed from its at most 14 bucket rows. Same arguments, same rows written,
-- same counts.
CREATE OR REPLACE FUNCTION job_outcomes_add(types text[], outcomes text[], seconds double precision[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    groups bigint;
BEGIN
    IF types IS NULL THEN
        RETURN 0;
    END IF;
    WITH per_bucket AS (
        -- first: the first bound the duration is at most (the histogram's `le`): width_bucket counts
        -- the bounds <= it, so the bound it equals, else the next one up (past the last bound: in no
        -- bucket, only the totals); NULL for a job never timed
        SELECT e.type, e.outcome,
               width_bucket(e.seconds, job_duration_bounds())
                 + CASE WHEN e.seconds = ANY(job_duration_bounds()) THEN 0 ELSE 1 END AS first,
               count(*) AS jobs, count(e.seconds) AS timed, coalesce(sum(e.seconds), 0) AS seconds_sum
          FROM unnest(types, outcomes, seconds) AS e(type, outcome, seconds)
         GROUP BY 1, 2, 3
    )
    INSERT INTO job_outcome_counts AS c (type, outcome, stripe, jobs, timed, seconds_sum, seconds_le)
    SELECT p.type, p.outcome, pg_backend_pid() % 16, sum(p.jobs), sum(p.timed), sum(p.seconds_sum),
           ARRAY(SELECT coalesce(sum(k.jobs) FILTER (WHERE k.first <= n.n), 0)::bigint
                   FROM generate_series(1, cardinality(job_duration_bounds())) AS n(n)
                   LEFT JOIN per_bucket k ON k.type = p.type AND k.outcome = p.outcome
                  GROUP BY n.n ORDER BY n.n)
      FROM per_bucket p
     GROUP BY p.type, p.outcome
     ORDER BY p.type, p.outcome  -- rows locked in one order: two commits on one stripe wait, never deadlock
    ON CONFLICT (type, outcome, stripe) DO UPDATE
       SET jobs = c.jobs + excluded.jobs, timed = c.timed + excluded.timed,
           seconds_sum = c.seconds_sum + excluded.seconds_sum,
           seconds_le = ARRAY(SELECT t.a + t.b FROM unnest(c.seconds_le, excluded.seconds_le) WITH ORDINALITY
                                  AS t(a, b, n) ORDER BY t.n);
    GET DIAGNOSTICS groups = ROW_COUNT;
    RETURN groups;
END $$;
