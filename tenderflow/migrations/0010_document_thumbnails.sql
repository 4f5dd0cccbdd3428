-- A small picture of each version's first page, for the dashboard and GET /v1/documents/{id}/thumbnail
-- (the `thumbnail` stage, enqueued by the ocr.plan commit). One per version; a rerun changes nothing.
CREATE TABLE document_thumbnails (
    document_id bigint NOT NULL,
    version integer NOT NULL,
    page integer NOT NULL CHECK (page > 0),
    png bytea NOT NULL CHECK (octet_length(png) BETWEEN 8 AND 1048576),
    width integer NOT NULL CHECK (width BETWEEN 1 AND 2000),
    height integer NOT NULL CHECK (height BETWEEN 1 AND 2000),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, version),
    FOREIGN KEY (document_id, version) REFERENCES document_versions (document_id, version) ON DELETE CASCADE
);
