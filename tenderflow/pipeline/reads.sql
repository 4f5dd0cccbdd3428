-- Named queries of tenderflow.pipeline.reads: a document, its pages and fields, lists and progress, as readers see them.

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

-- name: versions_in_progress
-- Every version not done or failed (`tenderflow status`), those at work first (extracting, then
-- OCR, then queued: the enum's order), each with its pages read of how many (the count unknown
-- before its plan ran).
SELECT v.document_id, v.version, d.tenant, d.filename, v.state::text AS state, v.page_count,
       (SELECT count(*) FROM pages p WHERE p.document_id = v.document_id AND p.version = v.pages_version) AS pages_done
  FROM document_versions v
  JOIN documents d ON d.id = v.document_id
 WHERE v.state NOT IN ('done', 'failed')
 ORDER BY v.state DESC, v.document_id, v.version;

-- name: pages_read_lately
-- Pages stored in the last `window_seconds`, and how long ago the first of them was: the pipeline's
-- pace. The pages table has no index on its time, so the versions that can have written them
-- (unfinished, or finished within the window) are found first, their pages by the primary key.
SELECT count(*) AS pages,
       extract(epoch FROM coalesce(%(now)s::timestamptz, now()) - min(p.created_at))::float8 AS span_seconds
  FROM document_versions v
  JOIN pages p ON p.document_id = v.document_id AND p.version = v.version
 WHERE (v.finished_at IS NULL
        OR v.finished_at >= coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(window_seconds)s))
   AND p.created_at >= coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(window_seconds)s);

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
SELECT version, fields, flags, backend, model, prompt_tokens, completion_tokens, created_at, provenance, country
  FROM extractions
 WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: thumbnail_get
SELECT png FROM document_thumbnails WHERE document_id = %(document_id)s ORDER BY version DESC LIMIT 1;
