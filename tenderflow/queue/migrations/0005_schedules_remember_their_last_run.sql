-- A schedule remembers its last run: when it was enqueued and which job ran it.
ALTER TABLE job_schedules
    ADD COLUMN last_run_at timestamptz,
    ADD COLUMN last_job_id bigint;
