-- Uploads under way (review security-2, D-N2): an upload stores its object with no database
-- connection held, so it can no longer hold the object's session lock while it does. Instead it
-- records itself here (under the object's lock) before it stores the object, and removes the row in
-- the transaction that records the document (or when it is refused). The storage sweep and the
-- storage.delete task leave an object alone while a row names it; a row older than an hour is
-- from an upload whose process died, and counts no more.
CREATE TABLE object_uploads (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant      text        NOT NULL,
    sha256      text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    started_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX object_uploads_object_idx ON object_uploads (tenant, sha256);
