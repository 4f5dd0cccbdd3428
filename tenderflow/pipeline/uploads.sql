-- Named queries of tenderflow.pipeline.uploads: a document's row, and the stored objects' locks and uploads under way.

-- name: document_insert
INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, ocr_languages)
VALUES (%(tenant)s, %(sha256)s, %(filename)s, %(size_bytes)s, %(storage_url)s, %(ocr_languages)s)
ON CONFLICT (tenant, sha256) DO NOTHING
RETURNING id;

-- name: document_id_by_hash
SELECT id FROM documents WHERE tenant = %(tenant)s AND sha256 = %(sha256)s;

-- name: object_lock
-- An upload holds its object's lock (session-level) from before it looks at the object until its
-- transaction has ended, so the storage sweep never deletes an object an upload is about to refer to.
SELECT pg_advisory_lock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: document_ids_by_hashes
SELECT sha256, id FROM documents WHERE tenant = %(tenant)s AND sha256 = ANY(%(sha256s)s::text[]);

-- name: object_try_lock
SELECT pg_try_advisory_lock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: object_unlock
SELECT pg_advisory_unlock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: documents_of_objects
-- Which of these (tenant, sha256) pairs a document refers to, or an upload under way is storing.
SELECT d.tenant, d.sha256
  FROM unnest(%(tenants)s::text[], %(sha256s)s::text[]) AS o(tenant, sha256)
  JOIN documents d ON d.tenant = o.tenant AND d.sha256 = o.sha256
UNION
SELECT u.tenant, u.sha256
  FROM unnest(%(tenants)s::text[], %(sha256s)s::text[]) AS o(tenant, sha256)
  JOIN object_uploads u ON u.tenant = o.tenant AND u.sha256 = o.sha256
 WHERE u.started_at > now() - interval '1 hour';

-- name: object_lock_in_transaction
-- The object's lock for the length of a transaction (the same lock as object_lock's).
SELECT pg_advisory_xact_lock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: object_upload_start
INSERT INTO object_uploads (tenant, sha256) VALUES (%(tenant)s, %(sha256)s) RETURNING id;

-- name: objects_lock_in_transaction
-- object_lock_in_transaction for many objects (a batch's), in one order: two batches never wait on each other.
SELECT pg_advisory_xact_lock(7241003, hashtext(o.key))
  FROM (SELECT DISTINCT %(tenant)s || '/' || sha256 AS key FROM unnest(%(sha256s)s::text[]) AS sha256 ORDER BY 1) o;

-- name: object_uploads_start_many
INSERT INTO object_uploads (tenant, sha256) SELECT %(tenant)s, sha256 FROM unnest(%(sha256s)s::text[]) AS sha256
RETURNING id;

-- name: object_uploads_end_many
DELETE FROM object_uploads WHERE id = ANY(%(ids)s::bigint[]) OR started_at < now() - interval '1 hour';

-- name: object_upload_end
DELETE FROM object_uploads WHERE id = %(id)s OR started_at < now() - interval '1 hour';

-- name: object_in_use
-- A document refers to the object, or an upload under way (started within the hour) is storing it.
SELECT EXISTS (SELECT 1 FROM documents WHERE tenant = %(tenant)s AND sha256 = %(sha256)s)
    OR EXISTS (SELECT 1 FROM object_uploads
                WHERE tenant = %(tenant)s AND sha256 = %(sha256)s AND started_at > now() - interval '1 hour');
