-- Named queries of tenderflow.pipeline.commits: what the stages' commit steps and the failure hook write.

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

-- name: version_mark_failed_for_content
UPDATE document_versions SET failed_for_content = true
 WHERE document_id = %(document_id)s AND version = %(version)s AND state = 'failed';

-- name: thumbnail_insert
INSERT INTO document_thumbnails (document_id, version, page, png, width, height)
VALUES (%(document_id)s, %(version)s, %(page)s, %(png)s, %(width)s, %(height)s)
ON CONFLICT (document_id, version) DO NOTHING;

-- name: ocr_slots_alive
-- Worker threads, local and remote, that take ocr.pages jobs and heartbeat lately: how many pages
-- of a short document can be read at once (commits.pages_per_batch).
SELECT coalesce(sum(threads), 0)
  FROM workers
 WHERE stopped_at IS NULL AND %(job_type)s = ANY(pools)
   AND last_seen_at > coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(live_within_seconds)s);
