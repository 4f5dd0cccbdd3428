-- Whether a local worker's process is alive as PostgreSQL sees it: the worker holds its liveness
-- lock (0035) for as long as its session lives, and a killed worker's lock goes with its connection
-- at once, where its heartbeat would look fresh for up to TENDERFLOW_WORKER_DEAD_AFTER_SECONDS
-- (`tenderflow health --worker` counted a SIGKILLed worker live for 60 s). A NULL key (remote
-- workers, older versions) is not known here: true, the heartbeat alone decides.
CREATE FUNCTION worker_lock_held(lock_key bigint) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT lock_key IS NULL OR EXISTS (
        SELECT 1 FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND ((l.classid::bigint << 32) | l.objid::bigint) = lock_key)
$$;
