-- How often a job's lease was given back at shutdown. A release does not count as an attempt, so
-- without a bound a job that is always running when its worker stops would live for ever.
ALTER TABLE jobs ADD COLUMN releases integer NOT NULL DEFAULT 0 CHECK (releases >= 0);
