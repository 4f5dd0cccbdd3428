-- Deleting documents, by request or by a tenant's retention period (issue 13, item 5).
--
-- A deletion removes the document's row in one transaction; its versions, pages, OCR batches,
-- extractions, thumbnails, prices and search entries go with it (their foreign keys cascade). The
-- stored PDF is deleted by a `storage.delete` job that the same transaction enqueues, so a crash
-- loses no deletion. The credits ledger keeps its entries (it has no foreign key: it is the
-- accounts), and a version the deletion stopped before it finished is refunded first.
--
-- document_deletions is the record of what was deleted: enough to say that a document uploaded and
-- no longer there was deleted, not lost (the chaos checker reads it), and for the storage job to
-- find the object. No file name, text or field of the document is kept.
CREATE TABLE document_deletions (
    document_id       bigint      PRIMARY KEY,
    tenant            text        NOT NULL,
    sha256            text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size_bytes        bigint      NOT NULL,
    uploaded_at       timestamptz NOT NULL,
    reason            text        NOT NULL CHECK (reason IN ('request', 'retention')),
    deleted_at        timestamptz NOT NULL DEFAULT now(),
    -- Set by the storage.delete job: when it ran, and whether it left the object in place because
    -- a document uploaded since (the same bytes again, same tenant) refers to it.
    object_done_at    timestamptz,
    object_kept       boolean,
    CHECK ((object_done_at IS NULL) = (object_kept IS NULL))
);
CREATE INDEX document_deletions_object_idx ON document_deletions (tenant, sha256);

-- A tenant's retention period in days: NULL = TENDERFLOW_DOCUMENT_RETENTION_DAYS; 0 = keep for ever.
ALTER TABLE tenants ADD COLUMN retention_days integer CHECK (retention_days >= 0);

-- The retention sweep reads documents by age.
CREATE INDEX documents_created_at_idx ON documents (created_at);
