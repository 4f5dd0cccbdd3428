-- Named queries of the document pipeline.

-- name: document_insert
INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, ocr_languages)
VALUES (%(tenant)s, %(sha256)s, %(filename)s, %(size_bytes)s, %(storage_url)s, %(ocr_languages)s)
ON CONFLICT (tenant, sha256) DO NOTHING
RETURNING id;

-- name: document_id_by_hash
SELECT id FROM documents WHERE tenant = %(tenant)s AND sha256 = %(sha256)s;

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

-- name: version_lock
SELECT state::text AS state, page_count, batch_count, pages_version
  FROM document_versions
 WHERE document_id = %(document_id)s AND version = %(version)s
   FOR UPDATE;

-- name: version_plan
-- ocr.plan's commit: the page count is known; batches are about to be enqueued.
UPDATE document_versions SET state = 'ocr', page_count = %(page_count)s, batch_count = %(batch_count)s
 WHERE document_id = %(document_id)s AND version = %(version)s AND state IN ('queued', 'ocr');

-- name: version_languages
-- ocr.plan's commit: the languages the version's pages are OCRed with, and why.
UPDATE document_versions
   SET ocr_languages = %(ocr_languages)s, language = %(language)s, languages_source = %(languages_source)s,
       language_confidence = %(language_confidence)s, script = %(script)s
 WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: document_languages
-- The OCR languages a new version is read with: the upload's, else the tenant's default.
SELECT d.ocr_languages AS document_languages, t.ocr_languages AS tenant_languages
  FROM documents d
  JOIN tenants t ON t.name = d.tenant
 WHERE d.id = %(id)s;

-- name: document_set_languages
UPDATE documents SET ocr_languages = %(ocr_languages)s WHERE id = %(id)s;

-- name: batch_record
INSERT INTO ocr_batches (document_id, version, first_page, last_page)
VALUES (%(document_id)s, %(version)s, %(first_page)s, %(last_page)s)
ON CONFLICT DO NOTHING;

-- name: batch_count_committed
SELECT count(*) FROM ocr_batches WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: page_upsert
-- Indexed for search in the version's language (recorded by its plan, before any page).
INSERT INTO pages (document_id, version, page_number, text, source, confidence, rotation, seconds, search_config)
SELECT %(document_id)s, %(version)s, p.page_number, p.text, p.source, p.confidence, p.rotation, p.seconds,
       search_config_for((SELECT v.language FROM document_versions v
                           WHERE v.document_id = %(document_id)s AND v.version = %(version)s))
  FROM unnest(%(page_numbers)s::integer[], %(texts)s::text[], %(sources)s::text[],
              %(confidences)s::double precision[], %(rotations)s::integer[], %(seconds)s::double precision[])
       AS p(page_number, text, source, confidence, rotation, seconds)
ON CONFLICT (document_id, version, page_number) DO UPDATE
   SET text = excluded.text, source = excluded.source, confidence = excluded.confidence,
       rotation = excluded.rotation, seconds = excluded.seconds, search_config = excluded.search_config;

-- name: version_set_extracting
UPDATE document_versions SET state = 'extracting'
 WHERE document_id = %(document_id)s AND version = %(version)s AND state IN ('queued', 'ocr', 'extracting');

-- name: extraction_upsert
INSERT INTO extractions (document_id, version, fields, flags, backend, model, prompt_tokens, completion_tokens)
VALUES (%(document_id)s, %(version)s, %(fields)s, %(flags)s, %(backend)s, %(model)s, %(prompt_tokens)s,
        %(completion_tokens)s)
ON CONFLICT (document_id, version) DO UPDATE
   SET fields = excluded.fields, flags = excluded.flags, backend = excluded.backend, model = excluded.model,
       prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
       created_at = now();

-- name: version_done
UPDATE document_versions SET state = 'done', error = NULL, finished_at = coalesce(finished_at, now())
 WHERE document_id = %(document_id)s AND version = %(version)s AND state IN ('extracting', 'done');

-- name: document_promote
-- A version that is done becomes what readers see, unless a newer one already landed.
UPDATE documents SET current_version = greatest(coalesce(current_version, 0), %(version)s)
 WHERE id = %(document_id)s;

-- name: version_fail
UPDATE document_versions SET state = 'failed', error = %(error)s, finished_at = now()
 WHERE document_id = %(document_id)s AND version = %(version)s AND state NOT IN ('done', 'failed')
RETURNING document_id, version;

-- name: version_mark_failed_for_content
UPDATE document_versions SET failed_for_content = true
 WHERE document_id = %(document_id)s AND version = %(version)s AND state = 'failed';

-- name: jobs_of_versions_failed_for_content
-- Of these jobs, the pipeline jobs whose document version failed for its own content.
SELECT j.id
  FROM jobs j
  JOIN document_versions v ON v.document_id = (j.payload->>'document_id')::bigint
                          AND v.version = (j.payload->>'version')::integer
 WHERE j.id = ANY(%(job_ids)s::bigint[]) AND j.type = ANY(%(types)s::text[]) AND v.failed_for_content;

-- name: page_lengths
-- The length of each page's text a version extracts from (the pages of its pages_version), in order.
SELECT length(p.text)
  FROM document_versions v
  JOIN pages p ON p.document_id = v.document_id AND p.version = v.pages_version
 WHERE v.document_id = %(document_id)s AND v.version = %(version)s
 ORDER BY p.page_number;

-- name: pages_text
SELECT page_number, text FROM pages
 WHERE document_id = %(document_id)s AND version = %(version)s
 ORDER BY page_number;

-- name: pages_of_version
SELECT page_number, text, source, confidence, rotation, seconds FROM pages
 WHERE document_id = %(document_id)s AND version = %(version)s
 ORDER BY page_number;

-- name: document_get
-- The language columns come from the version whose pages the latest version reads (itself, unless
-- it only redoes extraction).
SELECT d.id, d.tenant, d.sha256, d.filename, d.size_bytes, d.storage_url, d.latest_version, d.current_version,
       d.created_at, v.state::text AS state, v.page_count, v.error, v.failed_for_content, v.start_from, v.finished_at,
       (SELECT count(*) FROM pages p WHERE p.document_id = d.id AND p.version = v.pages_version) AS pages_done,
       d.ocr_languages AS requested_languages, pv.language, pv.ocr_languages, pv.languages_source,
       pv.language_confidence, pv.script,
       (SELECT format('retry %%s/%%s: %%s', j.attempts + 1, j.max_attempts, j.last_error) FROM jobs j
         WHERE j.unique_key = ANY(ARRAY[%(plan_type)s || ':' || d.id || ':' || v.version,
                                        %(extract_type)s || ':' || d.id || ':' || v.version])
           AND j.state = 'queued' AND j.attempts > 0 AND j.last_error IS NOT NULL
         LIMIT 1) AS retrying
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = v.pages_version
 WHERE d.id = %(id)s AND (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text);

-- name: versions_progress
-- Where each of these versions stands (`upload --wait`): state, pages read of how many, error, and
-- why its plan or extraction is waiting to run again, if it is.
SELECT w.document_id, w.version, v.state::text AS state, v.page_count, v.error,
       (SELECT count(*) FROM pages p WHERE p.document_id = w.document_id AND p.version = v.pages_version) AS pages_done,
       (SELECT format('retry %%s/%%s: %%s', j.attempts + 1, j.max_attempts, j.last_error) FROM jobs j
         WHERE j.unique_key = ANY(ARRAY[%(plan_type)s || ':' || w.document_id || ':' || w.version,
                                        %(extract_type)s || ':' || w.document_id || ':' || w.version])
           AND j.state = 'queued' AND j.attempts > 0 AND j.last_error IS NOT NULL
         LIMIT 1) AS retrying
  FROM unnest(%(document_ids)s::bigint[], %(versions)s::integer[]) AS w(document_id, version)
  JOIN document_versions v ON v.document_id = w.document_id AND v.version = w.version
 ORDER BY w.document_id, w.version;

-- name: document_list
-- Newest first, `before_id` the cursor; `filename` matches a part of the file name, any case
-- (its wildcards are escaped by the caller); uploaded at or after `created_after`, before `created_before`.
SELECT d.id, d.tenant, d.filename, d.latest_version, d.current_version, v.state::text AS state, v.page_count,
       (SELECT count(*) FROM pages p WHERE p.document_id = d.id AND p.version = v.pages_version) AS pages_done,
       v.error, v.failed_for_content, d.created_at, v.finished_at, pv.language, pv.ocr_languages,
       -- values found in the readable version: its sourced leaves (each has a page)
       (SELECT jsonb_array_length(jsonb_path_query_array(e.fields, 'strict $.**.page', '{}', true))
          FROM extractions e WHERE e.document_id = d.id AND e.version = d.current_version) AS fields_found
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = v.pages_version
 WHERE (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND (%(state)s::version_state IS NULL OR v.state = %(state)s::version_state)
   AND (%(before_id)s::bigint IS NULL OR d.id < %(before_id)s::bigint)
   AND (%(filename)s::text IS NULL OR d.filename ILIKE '%%' || %(filename)s::text || '%%')
   AND (%(created_after)s::timestamptz IS NULL OR d.created_at >= %(created_after)s::timestamptz)
   AND (%(created_before)s::timestamptz IS NULL OR d.created_at < %(created_before)s::timestamptz)
 ORDER BY d.id DESC
 LIMIT %(limit)s;

-- name: document_counts_by_state
SELECT v.state::text AS state, count(*) AS documents
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
 WHERE (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
 GROUP BY v.state ORDER BY v.state;

-- name: extraction_get
SELECT version, fields, flags, backend, model, prompt_tokens, completion_tokens, created_at
  FROM extractions
 WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: thumbnail_insert
INSERT INTO document_thumbnails (document_id, version, page, png, width, height)
VALUES (%(document_id)s, %(version)s, %(page)s, %(png)s, %(width)s, %(height)s)
ON CONFLICT (document_id, version) DO NOTHING;

-- name: thumbnail_get
SELECT png FROM document_thumbnails WHERE document_id = %(document_id)s ORDER BY version DESC LIMIT 1;

-- name: object_lock
-- An upload holds its object's lock (session-level) from before it looks at the object until its
-- transaction has ended, so the storage sweep never deletes an object an upload is about to refer to.
SELECT pg_advisory_lock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: object_try_lock
SELECT pg_try_advisory_lock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: object_unlock
SELECT pg_advisory_unlock(7241003, hashtext(%(tenant)s || '/' || %(sha256)s));

-- name: documents_of_objects
-- Which of these (tenant, sha256) pairs a document refers to.
SELECT d.tenant, d.sha256
  FROM unnest(%(tenants)s::text[], %(sha256s)s::text[]) AS o(tenant, sha256)
  JOIN documents d ON d.tenant = o.tenant AND d.sha256 = o.sha256;

-- name: search_probe
-- Up to %(cap)s pages whose text may match the query (search_query: every configuration OR-ed), read
-- through the GIN index: how common the words are decides how the candidates are read.
SELECT document_id FROM pages WHERE search @@ search_query(%(query)s) LIMIT %(cap)s;

-- name: search_candidates
-- The pages of readable versions that may match the query and pass the filters, among the
-- `documents` the probe found (all matches of rare words), or else the newest first (common words):
-- tenderflow.pipeline.search appends the ORDER BY and LIMIT.
SELECT p.document_id, p.version, p.page_number
  FROM pages p
  JOIN documents d ON d.id = p.document_id
  JOIN document_versions cv ON cv.document_id = d.id AND cv.version = d.current_version
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
 WHERE p.search @@ search_query(%(query)s)
   AND p.version = cv.pages_version
   AND (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND (%(state)s::version_state IS NULL OR v.state = %(state)s::version_state)
   AND (%(deadline_after)s::text IS NULL OR e.fields->'submission_deadline'->>'value' >= %(deadline_after)s::text)
   AND (%(deadline_before)s::text IS NULL OR e.fields->'submission_deadline'->>'value' < %(deadline_before)s::text)
   AND (%(cpv)s::text IS NULL OR EXISTS (
        SELECT 1 FROM jsonb_array_elements(coalesce(e.fields->'cpv_codes', '[]'::jsonb)) c
         WHERE c->>'value' LIKE %(cpv)s::text || '%%'))
   AND (%(buyer)s::text IS NULL OR e.fields->'buyer'->'name'->>'value' ILIKE '%%' || %(buyer)s::text || '%%')
   AND (%(documents)s::bigint[] IS NULL OR p.document_id = ANY(%(documents)s::bigint[]))

-- name: search_rank
-- Of these candidate pages, those that match the query parsed in their own language's
-- configuration, best first, with a snippet whose matches are wrapped in U+E000 … U+E001.
WITH own AS MATERIALIZED (
    SELECT config, websearch_to_tsquery(config, %(query)s) AS query
      FROM (SELECT DISTINCT search_config_for(language) AS config
              FROM unnest(ARRAY['eng', 'fra', 'deu', 'spa', 'ita', 'por', 'nld', 'ara', 'hin', '']) AS language) c
),
ranked AS (
    SELECT p.document_id, p.version, p.page_number, p.search_config, p.text, own.query,
           ts_rank_cd(p.search, own.query) AS rank
      FROM unnest(%(document_ids)s::bigint[], %(versions)s::integer[], %(pages)s::integer[])
           AS k(document_id, version, page_number)
      JOIN pages p USING (document_id, version, page_number)
      JOIN own ON own.config = p.search_config
     WHERE p.search @@ own.query
     ORDER BY rank DESC, p.document_id DESC, p.page_number
     LIMIT %(limit)s
)
SELECT r.document_id, d.tenant, d.filename, v.state::text AS state, r.version, r.page_number, r.rank,
       ts_headline(r.search_config, r.text, r.query,
                   'StartSel=' || chr(57344) || ', StopSel=' || chr(57345)
                   || ', MaxFragments=2, MaxWords=18, MinWords=6, FragmentDelimiter=" … "') AS snippet
  FROM ranked r
  JOIN documents d ON d.id = r.document_id
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
 ORDER BY r.rank DESC, r.document_id DESC, r.page_number;

-- name: export_documents
-- Documents for an export, oldest first: the latest version's state, and the fields of the readable
-- (newest finished) version.
SELECT d.id, d.tenant, d.filename, d.sha256, d.created_at, v.state::text AS state, d.current_version,
       cv.page_count, cv.finished_at, pv.language, e.fields, e.flags, e.backend, e.model
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  LEFT JOIN document_versions cv ON cv.document_id = d.id AND cv.version = d.current_version
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = cv.pages_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
 WHERE (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND (%(state)s::version_state IS NULL OR v.state = %(state)s::version_state)
   AND (%(since)s::timestamptz IS NULL OR d.created_at >= %(since)s::timestamptz)
   AND d.id > %(after_id)s
 ORDER BY d.id
 LIMIT %(batch)s;

-- name: document_tenant
SELECT tenant FROM documents WHERE id = %(id)s;

-- name: webhook_document
-- One version of a document as a webhook tells of it (its fields when it is done).
SELECT d.id, d.tenant, d.filename, d.sha256, d.size_bytes, d.created_at, d.current_version, v.version,
       v.state::text AS state, v.page_count, v.error, v.failed_for_content, v.finished_at, pv.language,
       e.fields, e.flags, e.backend, e.model
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = %(version)s
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = v.pages_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = v.version
 WHERE d.id = %(document_id)s;

-- name: watch_insert
INSERT INTO watches (tenant, kind, source, settle_seconds, priority, languages)
VALUES (%(tenant)s, %(kind)s, %(source)s, %(settle_seconds)s, %(priority)s, %(languages)s)
ON CONFLICT (tenant, kind, source) DO NOTHING
RETURNING id;

-- name: watch_id_by_source
SELECT id FROM watches WHERE tenant = %(tenant)s AND kind = %(kind)s AND source = %(source)s;

-- name: watch_list
-- Watches with their schedule ('watch:<id>') and their files counted by state.
SELECT w.id, w.tenant, w.kind, w.source, w.settle_seconds, w.priority, w.languages, w.created_at,
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
