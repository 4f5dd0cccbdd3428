-- Named queries of tenderflow.pipeline.versions: a document's row and its versions' rows.

-- name: document_lock
SELECT id, tenant, sha256, storage_url, latest_version, current_version
  FROM documents
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   FOR UPDATE;

-- name: document_set_latest
UPDATE documents SET latest_version = %(version)s WHERE id = %(id)s;

-- name: version_insert
INSERT INTO document_versions (document_id, version, start_from, pages_version, state, page_count, batch_count)
VALUES (%(document_id)s, %(version)s, %(start_from)s, %(pages_version)s, %(state)s, %(page_count)s,
        %(batch_count)s);

-- name: version_get
SELECT document_id, version, state::text AS state, start_from, pages_version, page_count, batch_count, error,
       created_at, finished_at
  FROM document_versions
 WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: version_newest_failed_with_pages
-- The newest FAILED version of a document whose pages are all read: it started from extraction
-- (its pages are an earlier version's, complete), or its plan counted its pages and every one of
-- them is stored (read from its text layer by the plan, or by an OCR batch; a document with no page
-- to OCR has no batch at all, and a plan stopped unpaid stored none). What a reprocess from
-- extraction reads when no version is done.
SELECT v.version FROM document_versions v
 WHERE v.document_id = %(document_id)s AND v.state = 'failed'
   AND (v.start_from = 'extract'
        OR (v.page_count IS NOT NULL
            AND (SELECT count(*) FROM pages p
                  WHERE p.document_id = v.document_id AND p.version = v.version) = v.page_count))
 ORDER BY v.version DESC
 LIMIT 1;

-- name: document_languages
-- The OCR languages a new version is read with: the upload's, else the tenant's default.
SELECT d.ocr_languages AS document_languages, t.ocr_languages AS tenant_languages
  FROM documents d
  JOIN tenants t ON t.name = d.tenant
 WHERE d.id = %(id)s;

-- name: document_set_languages
UPDATE documents SET ocr_languages = %(ocr_languages)s WHERE id = %(id)s;

-- name: version_failed_for_content
SELECT failed_for_content FROM document_versions WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: jobs_of_versions_failed_for_content
-- Of these jobs, the pipeline jobs whose document version failed for its own content.
SELECT j.id
  FROM jobs j
  JOIN document_versions v ON v.document_id = (j.payload->>'document_id')::bigint
                          AND v.version = (j.payload->>'version')::integer
 WHERE j.id = ANY(%(job_ids)s::bigint[]) AND j.type = ANY(%(types)s::text[]) AND v.failed_for_content;

-- name: pages_text
SELECT page_number, text FROM pages
 WHERE document_id = %(document_id)s AND version = %(version)s
 ORDER BY page_number;

-- name: document_hold
-- A commit step's first write for a document: the document row, share-locked until the commit's
-- transaction ends, so a deletion waits for the commit (or the commit, arriving after the deletion,
-- finds nothing and writes nothing). Key share: commits of one document do not wait for each other.
SELECT 1 FROM documents WHERE id = %(document_id)s FOR KEY SHARE;

-- name: page_lengths
-- The length of each page's text a version extracts from (the pages of its pages_version), in order.
SELECT length(p.text)
  FROM document_versions v
  JOIN pages p ON p.document_id = v.document_id AND p.version = v.pages_version
 WHERE v.document_id = %(document_id)s AND v.version = %(version)s
 ORDER BY p.page_number;
