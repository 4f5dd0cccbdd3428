-- Named queries of tenderflow.pipeline.deletion: a document deleted, its stored object, retention.

-- name: jobs_of_document
-- The pipeline's jobs of a document in these states (the queue's partial indexes find queued and
-- running jobs by type and tenant; the payload names the document).
SELECT j.id
  FROM jobs j
 WHERE j.state = ANY(%(states)s::job_state[]) AND j.type = ANY(%(types)s::text[])
   AND (%(tenant)s::text IS NULL OR j.tenant = %(tenant)s::text)
   AND j.payload->>'document_id' = %(document_id)s::text
 ORDER BY j.id;

-- name: document_lock_for_deletion
SELECT id, tenant, sha256, size_bytes, created_at
  FROM documents
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   FOR UPDATE;

-- name: versions_unfinished
SELECT version FROM document_versions
 WHERE document_id = %(document_id)s AND state NOT IN ('done', 'failed')
 ORDER BY version;

-- name: deletion_record
INSERT INTO document_deletions (document_id, tenant, sha256, size_bytes, uploaded_at, reason)
VALUES (%(document_id)s, %(tenant)s, %(sha256)s, %(size_bytes)s, %(uploaded_at)s, %(reason)s)
RETURNING deleted_at;

-- name: document_delete
-- Its versions, pages, OCR batches, extractions, thumbnails, prices and search entries go with it.
DELETE FROM documents WHERE id = %(id)s;

-- name: deletion_object_done
UPDATE document_deletions SET object_done_at = coalesce(object_done_at, now()), object_kept = %(kept)s
 WHERE document_id = %(document_id)s;

-- name: deletions_list
SELECT document_id, tenant, size_bytes, uploaded_at, reason, deleted_at, object_done_at, object_kept
  FROM document_deletions
 WHERE (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
 ORDER BY deleted_at DESC, document_id DESC
 LIMIT %(limit)s;

-- name: documents_expired
-- Documents older than their tenant's retention period (its own, else %(default_days)s; 0: kept).
SELECT d.id, d.tenant, d.created_at
  FROM documents d
  JOIN tenants t ON t.name = d.tenant
 WHERE coalesce(t.retention_days, %(default_days)s) > 0
   AND d.created_at < coalesce(%(now)s::timestamptz, now())
                      - make_interval(days => coalesce(t.retention_days, %(default_days)s))
 ORDER BY d.created_at, d.id
 LIMIT %(limit)s;
