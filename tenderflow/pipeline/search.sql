-- Named queries of tenderflow.pipeline.search: what search finds, and what is indexed.

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
