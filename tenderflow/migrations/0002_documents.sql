-- Documents, their processing versions, pages and extracted fields.
--
-- A document is one PDF of one tenant (unique by content hash). Each processing run is a version:
-- upload creates version 1; `reprocess` creates the next one. Results (pages, extraction) are keyed
-- by (document, version), so a rerun of any job overwrites or skips, never duplicates, and the
-- previous version's results stay readable until the new version is done.

-- version_state: where one processing run is.
--   queued      waiting for the OCR plan job (page count, caps, batches)
--   ocr         pages are being read, in batches, by the OCR pool
--   extracting  all pages are in; the extraction job is queued or running
--   done        pages and fields are stored; this version becomes the document's current one
--   failed      a job of this version failed for good; `error` says why, in words a person can act on
CREATE TYPE version_state AS ENUM ('queued', 'ocr', 'extracting', 'done', 'failed');

CREATE TABLE documents (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant           text        NOT NULL,
    sha256           text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    filename         text        NOT NULL,
    size_bytes       bigint      NOT NULL CHECK (size_bytes > 0),
    storage_url      text        NOT NULL,
    latest_version   integer     NOT NULL DEFAULT 1,
    current_version  integer,             -- the newest version that is done (what readers see)
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant, sha256),
    CHECK (current_version IS NULL OR current_version <= latest_version)
);
CREATE INDEX documents_tenant_idx ON documents (tenant, id DESC);

CREATE TABLE document_versions (
    document_id     bigint        NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version         integer       NOT NULL CHECK (version > 0),
    state           version_state NOT NULL DEFAULT 'queued',
    start_from      text          NOT NULL DEFAULT 'ocr' CHECK (start_from IN ('ocr', 'extract')),
    pages_version   integer       NOT NULL,   -- whose pages this version's extraction reads
    page_count      integer       CHECK (page_count > 0),
    batch_count     integer       CHECK (batch_count > 0),
    error           text,
    created_at      timestamptz   NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    PRIMARY KEY (document_id, version),
    CONSTRAINT versions_failed_has_error CHECK (state <> 'failed' OR error IS NOT NULL),
    CONSTRAINT versions_finished_iff_ended CHECK ((state IN ('done', 'failed')) = (finished_at IS NOT NULL))
);
CREATE INDEX document_versions_state_idx ON document_versions (state);

-- One row per OCR batch that has committed: the batch that brings the count to batch_count
-- enqueues the extraction (decided under a lock on the version row).
CREATE TABLE ocr_batches (
    document_id  bigint  NOT NULL,
    version      integer NOT NULL,
    first_page   integer NOT NULL,
    last_page    integer NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, version, first_page),
    FOREIGN KEY (document_id, version) REFERENCES document_versions ON DELETE CASCADE,
    CHECK (last_page >= first_page)
);

CREATE TABLE pages (
    document_id  bigint           NOT NULL,
    version      integer          NOT NULL,
    page_number  integer          NOT NULL CHECK (page_number > 0),
    text         text             NOT NULL,
    source       text             NOT NULL CHECK (source IN ('text_layer', 'ocr')),
    confidence   double precision CHECK (confidence BETWEEN 0 AND 100),
    rotation     integer          NOT NULL DEFAULT 0,
    seconds      double precision NOT NULL CHECK (seconds >= 0),
    created_at   timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, version, page_number),
    FOREIGN KEY (document_id, version) REFERENCES document_versions ON DELETE CASCADE
);

CREATE TABLE extractions (
    document_id        bigint      NOT NULL,
    version            integer     NOT NULL,
    fields             jsonb       NOT NULL,
    flags              jsonb       NOT NULL DEFAULT '[]'::jsonb,
    backend            text        NOT NULL,
    model              text,
    prompt_tokens      integer     NOT NULL DEFAULT 0,
    completion_tokens  integer     NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, version),
    FOREIGN KEY (document_id, version) REFERENCES document_versions ON DELETE CASCADE
);
