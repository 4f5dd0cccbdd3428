-- Ingest without a person (issue 13, item 6): watched folders and S3 prefixes, polled by recurring
-- schedules on the queue. (What each schedule last did, two columns of job_schedules, is the queue's
-- own migration 0005 since the queue has a migration line of its own.)

-- A watched source: a folder on the workers' machines or an S3 prefix, polled by the schedule
-- 'watch:<id>' (job type watch.poll). Its uploads are the tenant's, with this priority and languages.
CREATE TABLE watches (
    id              bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant          text             NOT NULL REFERENCES tenants (name),
    kind            text             NOT NULL CHECK (kind IN ('folder', 's3')),
    -- folder: an absolute path; s3: s3://bucket/prefix (the workers' S3 endpoint and credentials)
    source          text             NOT NULL CHECK (length(source) BETWEEN 1 AND 1024),
    settle_seconds  double precision NOT NULL DEFAULT 10 CHECK (settle_seconds >= 0),
    priority        smallint         NOT NULL DEFAULT 0,
    languages       text,
    created_at      timestamptz      NOT NULL DEFAULT now(),
    last_polled_at  timestamptz,
    last_error      text,
    -- what the last poll did: {"listed": n, "uploaded": n, "existing": n, "rejected": n, "waiting": n}
    last_summary    jsonb            NOT NULL DEFAULT '{}'::jsonb,
    UNIQUE (tenant, kind, source)
);

-- watch file states:
--   waiting   seen, not taken yet: still being written (changed lately, or no %%EOF yet), or its
--             upload was refused for a reason that may pass (the tenant's credits or quota)
--   uploaded  its bytes became a new document
--   existing  its bytes were already one of the tenant's documents (deduplicated by SHA-256)
--   rejected  not a PDF, empty, too large, a symbolic link, unreadable: reported once, and tried
--             again only when the file changes (size or modification time)
-- A file is one row per path; (size, modified_at) is the fingerprint a poll compares.
CREATE TABLE watch_files (
    watch_id      bigint      NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    path          text        NOT NULL,
    size          bigint      NOT NULL CHECK (size >= 0),
    modified_at   timestamptz NOT NULL,
    state         text        NOT NULL CHECK (state IN ('waiting', 'uploaded', 'existing', 'rejected')),
    sha256        text        CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    document_id   bigint,     -- no foreign key: deleting the document must not need the watch
    reason        text,
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    decided_at    timestamptz,
    PRIMARY KEY (watch_id, path),
    CONSTRAINT watch_files_decided_iff_final CHECK ((state = 'waiting') = (decided_at IS NULL)),
    CONSTRAINT watch_files_rejected_has_reason CHECK (state <> 'rejected' OR reason IS NOT NULL)
);
CREATE INDEX watch_files_state_idx ON watch_files (watch_id, state);
