-- Search entries: what full-text search reads, apart from the pages (issue 13, search speed).
--
-- 0015 indexed every page row of every version (a generated tsvector column beside the text, one GIN
-- index). A search then read page rows that hold 1.5 KB of text and a tsvector each (compressed or
-- moved out of line: over PostgreSQL's 2 KB row threshold), joined each to its document, its
-- versions and its extraction to see whether the page was readable and passed the filters.
--
-- Now only what is searchable is indexed, in two narrow tables written when a version is promoted
-- for readers (tenderflow.pipeline.search.index_document, in the extract commit's transaction):
--   search_documents  one row per document that has a readable version: its tenant and the fields
--                     that filter a search (deadline, CPV codes, buyer), read from that version
--   search_pages      one row per page of that version's pages: the tsvector in the language
--                     configuration of the document, and the tenant, so the tenant's filter is a
--                     condition of the same index scan (no text: the snippets are cut from the
--                     pages of the top results only)
-- Pages of versions no reader sees (older ones, a reprocess in flight) are not indexed, and a page
-- write no longer computes a tsvector.

-- The configurations pages are indexed in (search_config_for's), each once.
CREATE FUNCTION search_configs() RETURNS regconfig[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ARRAY['simple', 'english', 'french', 'german', 'spanish', 'italian', 'portuguese', 'dutch',
                 'arabic', 'hindi']::regconfig[]
$$;

-- The query under every configuration, OR-ed, each distinct parse once ("contractor" is the same
-- lexeme in seven of the ten; 0015 repeated it ten times, and every page that does not match paid
-- for all ten). NULL when no configuration keeps a word of it (stop words only).
CREATE OR REPLACE FUNCTION search_query(query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg(DISTINCT '(' || parsed::text || ')', ' | ')::tsquery
      FROM unnest(search_configs()) AS config, websearch_to_tsquery(config, query) AS parsed
     WHERE numnode(parsed) > 0
$$;

-- The query parsed in one configuration: a page's own (its document's language). Written as a CASE
-- of the configurations so that, inlined into a statement with the query given, each branch is
-- parsed once when the statement is planned, not once per page it is compared with.
CREATE FUNCTION search_query_in(config regconfig, query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE config
        WHEN 'simple'::regconfig THEN websearch_to_tsquery('simple', query)
        WHEN 'english'::regconfig THEN websearch_to_tsquery('english', query)
        WHEN 'french'::regconfig THEN websearch_to_tsquery('french', query)
        WHEN 'german'::regconfig THEN websearch_to_tsquery('german', query)
        WHEN 'spanish'::regconfig THEN websearch_to_tsquery('spanish', query)
        WHEN 'italian'::regconfig THEN websearch_to_tsquery('italian', query)
        WHEN 'portuguese'::regconfig THEN websearch_to_tsquery('portuguese', query)
        WHEN 'dutch'::regconfig THEN websearch_to_tsquery('dutch', query)
        WHEN 'arabic'::regconfig THEN websearch_to_tsquery('arabic', query)
        WHEN 'hindi'::regconfig THEN websearch_to_tsquery('hindi', query)
        ELSE websearch_to_tsquery(config, query) END
$$;

CREATE TABLE search_documents (
    document_id   bigint  PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    tenant        text    NOT NULL,
    version       integer NOT NULL,  -- the readable version whose fields these are
    pages_version integer NOT NULL,  -- whose pages are in search_pages
    deadline      text,              -- submission_deadline's value (ISO 8601), as the filters compare it
    cpv_codes     text[]  NOT NULL DEFAULT '{}',
    buyer         text
);
CREATE INDEX search_documents_tenant_idx ON search_documents (tenant, document_id DESC);

CREATE TABLE search_pages (
    document_id   bigint    NOT NULL REFERENCES search_documents (document_id) ON DELETE CASCADE,
    page_number   integer   NOT NULL,
    version       integer   NOT NULL,  -- the pages' version (search_documents.pages_version)
    tenant        text      NOT NULL,
    search_config regconfig NOT NULL,
    search        tsvector  NOT NULL,
    PRIMARY KEY (document_id, page_number)
);
-- The words, and the tenant as a one-element array (array_ops is built in; btree_gin, which would
-- index the text itself, is a contrib module that not every server has): one GIN scan of both.
CREATE INDEX search_pages_search_idx ON search_pages USING gin (search, (ARRAY[tenant]));

-- What the pipeline has promoted so far.
INSERT INTO search_documents (document_id, tenant, version, pages_version, deadline, cpv_codes, buyer)
SELECT d.id, d.tenant, d.current_version, cv.pages_version,
       e.fields->'submission_deadline'->>'value',
       coalesce(ARRAY(SELECT c->>'value' FROM jsonb_array_elements(
                          CASE jsonb_typeof(e.fields->'cpv_codes') WHEN 'array' THEN e.fields->'cpv_codes'
                               ELSE '[]'::jsonb END) c
                       WHERE c->>'value' IS NOT NULL), '{}'),
       e.fields->'buyer'->'name'->>'value'
  FROM documents d
  JOIN document_versions cv ON cv.document_id = d.id AND cv.version = d.current_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version;

INSERT INTO search_pages (document_id, page_number, version, tenant, search_config, search)
SELECT p.document_id, p.page_number, p.version, s.tenant, p.search_config, p.search
  FROM search_documents s
  JOIN pages p ON p.document_id = s.document_id AND p.version = s.pages_version;

DROP INDEX pages_search_idx;
ALTER TABLE pages DROP COLUMN search, DROP COLUMN search_config;
