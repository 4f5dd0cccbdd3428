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

-- name: version_lock
-- The version row, locked against the other commits of the version until the transaction ends.
-- NO KEY UPDATE, not UPDATE: a commit's own writes before this (its pages, its batch, its
-- extraction) hold KEY SHARE locks on this row for their foreign keys, and FOR UPDATE conflicts
-- with KEY SHARE: two batch commits of one version that had both written their pages then waited
-- for each other's key share (a deadlock, every time the two interleaved so).
SELECT state::text AS state, page_count, batch_count, pages_version
  FROM document_versions
 WHERE document_id = %(document_id)s AND version = %(version)s
   FOR NO KEY UPDATE;

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
INSERT INTO pages (document_id, version, page_number, text, source, confidence, rotation, seconds, layout)
SELECT %(document_id)s, %(version)s, p.page_number, p.text, p.source, p.confidence, p.rotation, p.seconds,
       p.layout::jsonb
  FROM unnest(%(page_numbers)s::integer[], %(texts)s::text[], %(sources)s::text[],
              %(confidences)s::double precision[], %(rotations)s::integer[], %(seconds)s::double precision[],
              %(layouts)s::text[])
       AS p(page_number, text, source, confidence, rotation, seconds, layout)
ON CONFLICT (document_id, version, page_number) DO UPDATE
   SET text = excluded.text, source = excluded.source, confidence = excluded.confidence,
       rotation = excluded.rotation, seconds = excluded.seconds, layout = excluded.layout;

-- name: version_set_extracting
UPDATE document_versions SET state = 'extracting'
 WHERE document_id = %(document_id)s AND version = %(version)s AND state IN ('queued', 'ocr', 'extracting');

-- name: extraction_upsert
INSERT INTO extractions (document_id, version, fields, flags, backend, model, prompt_tokens, completion_tokens,
                         provenance, country)
VALUES (%(document_id)s, %(version)s, %(fields)s, %(flags)s, %(backend)s, %(model)s, %(prompt_tokens)s,
        %(completion_tokens)s, %(provenance)s, %(country)s)
ON CONFLICT (document_id, version) DO UPDATE
   SET fields = excluded.fields, flags = excluded.flags, backend = excluded.backend, model = excluded.model,
       country = excluded.country,
       prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
       provenance = excluded.provenance, created_at = now();

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

-- name: version_failed_for_content
SELECT failed_for_content FROM document_versions WHERE document_id = %(document_id)s AND version = %(version)s;

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

-- name: search_matches
-- The pages of the tenant (all tenants: NULL) that may match the query: the query under every
-- configuration, OR-ed, and the tenant, in one scan of the GIN index. tenderflow.pipeline.search
-- asks the planner how many it expects (EXPLAIN).
SELECT sp.document_id, sp.page_number
  FROM search_pages sp
 WHERE sp.search @@ search_query(%(query)s)
   AND (%(tenant)s::text IS NULL OR ARRAY[sp.tenant] @> ARRAY[%(tenant)s::text]);

-- name: search_filters
-- Not a query: the filters every search applies to search_documents `sd` (the latest version's state,
-- the deadline's range, a CPV prefix, part of the buyer's name; NULL: no filter), AND lines that the
-- search queries below include where they say `-- include: search_filters` (tenderflow/sqlfiles.py).
AND (%(state)s::version_state IS NULL OR EXISTS (
     SELECT 1 FROM documents d
       JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
      WHERE d.id = sd.document_id AND v.state = %(state)s::version_state))
AND (%(deadline_after)s::text IS NULL OR sd.deadline >= %(deadline_after)s::text)
AND (%(deadline_before)s::text IS NULL OR sd.deadline < %(deadline_before)s::text)
AND (%(cpv)s::text IS NULL OR EXISTS (
     SELECT 1 FROM unnest(sd.cpv_codes) AS c(code) WHERE c.code LIKE %(cpv)s::text || '%%'))
AND (%(buyer)s::text IS NULL OR sd.buyer ILIKE '%%' || %(buyer)s::text || '%%');

-- name: search_probe
-- Up to %(probe)s of search_matches (read through the GIN index), and of those the newest %(cap)s
-- that match in their own configuration and pass the filters. `probed`, on every row, is how many
-- were read: %(probe)s means there may be more, and the caller reads the newest another way.
WITH documents_wanted AS NOT MATERIALIZED (
    SELECT sd.document_id
      FROM search_documents sd
     WHERE (%(tenant)s::text IS NULL OR sd.tenant = %(tenant)s::text)
       -- include: search_filters
),
probed AS MATERIALIZED (
    SELECT sp.document_id, sp.page_number, sp.search @@ search_query_in(sp.search_config, %(query)s) AS matched
      FROM search_pages sp
     WHERE sp.search @@ search_query(%(query)s)
       AND (%(tenant)s::text IS NULL OR ARRAY[sp.tenant] @> ARRAY[%(tenant)s::text])
     LIMIT %(probe)s
)
SELECT (SELECT count(*) FROM probed) AS probed, m.document_id, m.page_number
  FROM (SELECT k.document_id, k.page_number
          FROM probed k
          JOIN documents_wanted w ON w.document_id = k.document_id
         WHERE k.matched
         ORDER BY k.document_id DESC, k.page_number
         LIMIT %(cap)s) m
 RIGHT JOIN (SELECT 1) one ON true;

-- name: search_indexed_pages
-- How many search entries the planner believes there are (-1: never analyzed).
SELECT reltuples::bigint FROM pg_class WHERE oid = 'search_pages'::regclass;

-- name: search_newest
-- The documents that pass the filters, newest first, and their pages in order: those that match the
-- query in their own configuration, up to %(cap)s, reading at most %(budget)s pages (NULL: all of
-- them). The %(budget)s-th page read comes out too, matching or not (`scanned` = budget): reaching
-- it with fewer than %(cap)s matches means the newest pages hold too few to say which the newest
-- matches are, and the caller reads them through the index instead.
WITH documents_wanted AS NOT MATERIALIZED (
    SELECT sd.document_id
      FROM search_documents sd
     WHERE (%(tenant)s::text IS NULL OR sd.tenant = %(tenant)s::text)
       -- include: search_filters
)
SELECT s.document_id, s.page_number, s.matched, s.scanned
  FROM (SELECT r.document_id, r.page_number, r.search @@ search_query_in(r.search_config, %(query)s) AS matched,
               row_number() OVER () AS scanned
          FROM (SELECT p.document_id, p.page_number, p.search_config, p.search
                  FROM documents_wanted w
                 CROSS JOIN LATERAL (SELECT sp.document_id, sp.page_number, sp.search_config, sp.search
                                       FROM search_pages sp
                                      WHERE sp.document_id = w.document_id
                                      ORDER BY sp.page_number) p
                 ORDER BY w.document_id DESC, p.page_number
                 LIMIT %(budget)s) r) s
 WHERE s.matched OR s.scanned = %(budget)s
 LIMIT %(cap)s + 1;

-- name: search_rank
-- These pages (`document_ids`/`pages`: matches that pass the filters, from search_probe or
-- search_newest), ranked in their own configuration (ts_rank_cd); the best %(limit)s of them with
-- a snippet whose matches are wrapped in U+E000 … U+E001, cut from the page's text.
WITH best AS (
    SELECT sp.document_id, sp.page_number, sp.version, sp.search_config,
           ts_rank_cd(sp.search, search_query_in(sp.search_config, %(query)s)) AS rank
      FROM unnest(%(document_ids)s::bigint[], %(pages)s::integer[]) AS k(document_id, page_number)
      JOIN search_pages sp ON sp.document_id = k.document_id AND sp.page_number = k.page_number
     ORDER BY rank DESC, sp.document_id DESC, sp.page_number
     LIMIT %(limit)s
)
SELECT b.document_id, d.tenant, d.filename, v.state::text AS state, b.version, b.page_number, b.rank,
       ts_headline(b.search_config, p.text, search_query_in(b.search_config, %(query)s),
                   'StartSel=' || chr(57344) || ', StopSel=' || chr(57345)
                   || ', MaxFragments=2, MaxWords=18, MinWords=6, FragmentDelimiter=" … "') AS snippet
  FROM best b
  JOIN pages p ON p.document_id = b.document_id AND p.version = b.version AND p.page_number = b.page_number
  JOIN documents d ON d.id = b.document_id
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
 ORDER BY b.rank DESC, b.document_id DESC, b.page_number;

-- name: search_fields
-- The documents whose extracted fields match the query (search_documents.fields_search: the query
-- under every configuration and the tenant in one scan of its GIN index, then in the document's own
-- configuration) and pass the filters; the newest %(cap)s of them ranked (ts_rank_cd over the
-- weighted fields: A 1.0, B 0.4, C 0.2, where a page's words weigh D 0.1), the best %(limit)s each
-- with the first field that matches on its own (search_field_texts' order: A before B before C), the
-- page it was read on, and its value as the snippet, matches wrapped in U+E000 … U+E001. A document
-- whose fields match only together (a phrase across two of them) has no such field, and no hit.
WITH matched AS MATERIALIZED (
    SELECT sd.document_id, sd.version, sd.search_config, sd.fields_search
      FROM search_documents sd
     WHERE sd.fields_search @@ search_query(%(query)s)
       AND (%(tenant)s::text IS NULL OR ARRAY[sd.tenant] @> ARRAY[%(tenant)s::text])
       AND sd.fields_search @@ search_query_in(sd.search_config, %(query)s)
       -- include: search_filters
     ORDER BY sd.document_id DESC
     LIMIT %(cap)s
),
best AS (
    SELECT m.document_id, m.version, m.search_config,
           ts_rank_cd(m.fields_search, search_query_in(m.search_config, %(query)s)) AS rank
      FROM matched m
     ORDER BY rank DESC, m.document_id DESC
     LIMIT %(limit)s
)
SELECT b.document_id, d.tenant, d.filename, v.state::text AS state, b.version,
       coalesce(f.page, 1) AS page_number, b.rank, f.name AS field,
       ts_headline(b.search_config, f.value, search_query_in(b.search_config, %(query)s),
                   'StartSel=' || chr(57344) || ', StopSel=' || chr(57345) || ', HighlightAll=true') AS snippet
  FROM best b
  JOIN documents d ON d.id = b.document_id
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  JOIN extractions e ON e.document_id = b.document_id AND e.version = b.version
  CROSS JOIN LATERAL (SELECT t.name, t.value, t.page
                        FROM search_field_texts(e.fields) AS t
                       WHERE to_tsvector(b.search_config, t.value) @@ search_query_in(b.search_config, %(query)s)
                       ORDER BY t.ordinal
                       LIMIT 1) f
 ORDER BY b.rank DESC, b.document_id DESC;

-- name: search_document_index
-- Promoted (or deleted meanwhile: then nothing): the documents' search row from their readable
-- version — tenant, the fields the filters read, the words of the fields search finds (weighted, in
-- the configuration of the pages' language: search_fields_vector, migration 0045) — replacing the one
-- of an older version.
INSERT INTO search_documents (document_id, tenant, version, pages_version, deadline, cpv_codes, buyer,
                              search_config, fields_search)
SELECT d.id, d.tenant, d.current_version, cv.pages_version,
       e.fields->'submission_deadline'->>'value',
       coalesce(ARRAY(SELECT c->>'value' FROM jsonb_array_elements(
                          CASE jsonb_typeof(e.fields->'cpv_codes') WHEN 'array' THEN e.fields->'cpv_codes'
                               ELSE '[]'::jsonb END) c
                       WHERE c->>'value' IS NOT NULL), '{}'),
       e.fields->'buyer'->'name'->>'value',
       c.config, search_fields_vector(c.config, e.fields)
  FROM documents d
  JOIN document_versions cv ON cv.document_id = d.id AND cv.version = d.current_version
  JOIN document_versions pv ON pv.document_id = d.id AND pv.version = cv.pages_version
  CROSS JOIN LATERAL (SELECT search_config_for(pv.language) AS config) c
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
 WHERE d.id = ANY(%(document_ids)s::bigint[])
ON CONFLICT (document_id) DO UPDATE
   SET version = excluded.version, pages_version = excluded.pages_version, deadline = excluded.deadline,
       cpv_codes = excluded.cpv_codes, buyer = excluded.buyer, search_config = excluded.search_config,
       fields_search = excluded.fields_search;

-- name: search_pages_unindex_stale
-- Entries of pages from another version than the documents' readable one (a reprocess that read
-- the pages again).
DELETE FROM search_pages sp
 USING search_documents sd
 WHERE sd.document_id = ANY(%(document_ids)s::bigint[]) AND sp.document_id = sd.document_id
   AND sp.version <> sd.pages_version;

-- name: search_pages_index
-- The readable version's pages not indexed yet, each in its document's language configuration (a
-- version that only extracted again reuses its pages' entries).
INSERT INTO search_pages (document_id, page_number, version, tenant, search_config, search)
SELECT p.document_id, p.page_number, p.version, sd.tenant, c.config, to_tsvector(c.config, p.text)
  FROM search_documents sd
  JOIN document_versions pv ON pv.document_id = sd.document_id AND pv.version = sd.pages_version
  CROSS JOIN LATERAL (SELECT search_config_for(pv.language) AS config) c
  JOIN pages p ON p.document_id = sd.document_id AND p.version = sd.pages_version
 WHERE sd.document_id = ANY(%(document_ids)s::bigint[])
   AND NOT EXISTS (SELECT 1 FROM search_pages e
                    WHERE e.document_id = p.document_id AND e.page_number = p.page_number);

-- name: export_documents
-- Documents for an export, oldest first: the latest version's state, and the fields of the readable
-- (newest finished) version.
SELECT d.id, d.tenant, d.filename, d.sha256, d.created_at, v.state::text AS state, d.current_version,
       cv.page_count, cv.finished_at, pv.language, e.fields, e.flags, e.backend, e.model, e.country
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

-- name: document_hold
-- A commit step's first write for a document: the document row, share-locked until the commit's
-- transaction ends, so a deletion waits for the commit (or the commit, arriving after the deletion,
-- finds nothing and writes nothing). Key share: commits of one document do not wait for each other.
SELECT 1 FROM documents WHERE id = %(document_id)s FOR KEY SHARE;

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

-- name: document_tenant
SELECT tenant FROM documents WHERE id = %(id)s;

-- name: webhook_document
-- One version of a document as a webhook tells of it (its fields when it is done).
SELECT d.id, d.tenant, d.filename, d.sha256, d.size_bytes, d.created_at, d.current_version, v.version,
       v.state::text AS state, v.page_count, v.error, v.failed_for_content, v.finished_at, pv.language,
       e.fields, e.flags, e.backend, e.model, e.country
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = %(version)s
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = v.pages_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = v.version
 WHERE d.id = %(document_id)s;

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

-- name: ocr_slots_alive
-- Worker threads, local and remote, that take ocr.pages jobs and heartbeat lately: how many pages
-- of a short document can be read at once (documents.pages_per_batch).
SELECT coalesce(sum(threads), 0)
  FROM workers
 WHERE stopped_at IS NULL AND %(job_type)s = ANY(pools)
   AND last_seen_at > coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(live_within_seconds)s);

-- name: page_layouts_of_version
-- The word boxes of a version's OCRed pages (for its searchable PDF); layout is NULL for pages read
-- before boxes were kept.
SELECT page_number, layout FROM pages
 WHERE document_id = %(document_id)s AND version = %(version)s AND source = 'ocr'
 ORDER BY page_number;

-- name: version_searchable_get
SELECT searchable_key FROM document_versions WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: version_searchable_set
UPDATE document_versions SET searchable_key = %(key)s WHERE document_id = %(document_id)s AND version = %(version)s;
