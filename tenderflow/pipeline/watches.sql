-- Named queries of tenderflow.pipeline.watches: watched folders and S3 prefixes, and their files.

-- name: watch_insert
INSERT INTO watches (tenant, kind, source, root, settle_seconds, priority, languages)
VALUES (%(tenant)s, %(kind)s, %(source)s, %(root)s, %(settle_seconds)s, %(priority)s, %(languages)s)
ON CONFLICT (tenant, kind, source) DO NOTHING
RETURNING id;

-- name: watch_tenant_lock
-- Taken before a tenant's watches are counted: two made at once cannot pass the cap together.
SELECT pg_advisory_xact_lock(7241006, hashtext(%(tenant)s));

-- name: watch_count
SELECT count(*) FROM watches WHERE tenant = %(tenant)s;

-- name: watch_id_by_source
SELECT id FROM watches WHERE tenant = %(tenant)s AND kind = %(kind)s AND source = %(source)s;

-- name: watch_list
-- Watches with their schedule ('watch:<id>') and their files counted by state.
SELECT w.id, w.tenant, w.kind, w.source, w.root, w.settle_seconds, w.priority, w.languages, w.created_at,
       w.last_polled_at, w.last_error, w.last_summary,
       s.interval_seconds, s.cron, s.enabled, s.next_run_at,
       (SELECT coalesce(jsonb_object_agg(f.state, f.n), '{}'::jsonb)
          FROM (SELECT state, count(*) AS n FROM watch_files WHERE watch_id = w.id GROUP BY state) f) AS files
  FROM watches w
  LEFT JOIN job_schedules s ON s.name = 'watch:' || w.id
 WHERE (%(tenant)s::text IS NULL OR w.tenant = %(tenant)s::text)
   AND (%(id)s::bigint IS NULL OR w.id = %(id)s::bigint)
 ORDER BY w.id;

-- name: watch_delete
DELETE FROM watches WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text) RETURNING id;

-- name: watch_try_lock
-- One poll of a watch at a time (session-level, on the poll's connection).
SELECT pg_try_advisory_lock(7241004, %(id)s::integer);

-- name: watch_unlock
SELECT pg_advisory_unlock(7241004, %(id)s::integer);

-- name: watch_files_forget_document_clear
-- A deleted document's watched files keep no name (review security-2, D-N7): first the rows already
-- forgotten under the same name's fingerprint (a file deleted, changed, taken and deleted again).
DELETE FROM watch_files t
 USING watch_files w
 WHERE w.document_id = %(document_id)s AND t.watch_id = w.watch_id
   AND t.path = '/deleted/' || encode(sha256(convert_to(w.path, 'UTF8')), 'hex');

-- name: watch_files_forget_document
-- Then the path becomes '/deleted/<SHA-256 of the path>' (a listing never gives a path that starts
-- with '/'), its document id and reason go: the watch knows the file by its fingerprint, and does
-- not upload it again while it is unchanged, without keeping its name.
UPDATE watch_files
   SET path = '/deleted/' || encode(sha256(convert_to(path, 'UTF8')), 'hex'), document_id = NULL, reason = NULL
 WHERE document_id = %(document_id)s;

-- name: watch_files_known
SELECT path, size, modified_at, state, first_seen_at FROM watch_files WHERE watch_id = %(watch_id)s;

-- name: watch_file_upsert
-- A file's fingerprint (size, modification time) and what was decided about it. A new fingerprint
-- starts the file's wait afresh (first_seen_at).
INSERT INTO watch_files (watch_id, path, size, modified_at, state, sha256, document_id, reason, first_seen_at,
                         decided_at)
VALUES (%(watch_id)s, %(path)s, %(size)s, %(modified_at)s, %(state)s, %(sha256)s, %(document_id)s, %(reason)s,
        coalesce(%(now)s::timestamptz, now()),
        CASE WHEN %(state)s = 'waiting' THEN NULL ELSE coalesce(%(now)s::timestamptz, now()) END)
ON CONFLICT (watch_id, path) DO UPDATE
   SET size = excluded.size, modified_at = excluded.modified_at, state = excluded.state, sha256 = excluded.sha256,
       document_id = excluded.document_id, reason = excluded.reason, decided_at = excluded.decided_at,
       first_seen_at = CASE WHEN watch_files.size = excluded.size AND watch_files.modified_at = excluded.modified_at
                            THEN watch_files.first_seen_at ELSE excluded.first_seen_at END;

-- name: watch_files_list
SELECT path, size, modified_at, state, sha256, document_id, reason, first_seen_at, decided_at
  FROM watch_files
 WHERE watch_id = %(watch_id)s AND (%(state)s::text IS NULL OR state = %(state)s::text)
 ORDER BY coalesce(decided_at, first_seen_at) DESC, path
 LIMIT %(limit)s;

-- name: watch_record_poll
UPDATE watches SET last_polled_at = now(), last_summary = %(summary)s, last_error = %(error)s WHERE id = %(id)s;

-- name: watch_record_failure
UPDATE watches SET last_polled_at = now(), last_error = %(error)s WHERE id = %(id)s;
