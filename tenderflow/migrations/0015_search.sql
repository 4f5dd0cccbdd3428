-- Full-text search over the pages' text (issue 13).
--
-- Each page is indexed with the text search configuration of its version's language (stemming and
-- stop words of French for a French tender), 'simple' (no stemming) for a language PostgreSQL has
-- no configuration for, or none detected. A query is parsed with every configuration at once
-- (`search_query`), so "road resurfacing" finds "roads resurfaced" in an English tender and a French
-- query finds its French stems, with one GIN index over every page.

CREATE FUNCTION search_config_for(language text) RETURNS regconfig
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE language
        WHEN 'eng' THEN 'english' WHEN 'fra' THEN 'french' WHEN 'deu' THEN 'german'
        WHEN 'spa' THEN 'spanish' WHEN 'ita' THEN 'italian' WHEN 'por' THEN 'portuguese'
        WHEN 'nld' THEN 'dutch' WHEN 'ara' THEN 'arabic' WHEN 'hin' THEN 'hindi'
        ELSE 'simple' END)::regconfig
$$;

-- websearch_to_tsquery syntax ("quoted phrase", or, -not) under each configuration, OR-ed together.
CREATE FUNCTION search_query(query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT websearch_to_tsquery('simple', query) || websearch_to_tsquery('english', query)
        || websearch_to_tsquery('french', query) || websearch_to_tsquery('german', query)
        || websearch_to_tsquery('spanish', query) || websearch_to_tsquery('italian', query)
        || websearch_to_tsquery('portuguese', query) || websearch_to_tsquery('dutch', query)
        || websearch_to_tsquery('arabic', query) || websearch_to_tsquery('hindi', query)
$$;

ALTER TABLE pages
    ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple',
    ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector(search_config, text)) STORED;

UPDATE pages p SET search_config = search_config_for(v.language)
  FROM document_versions v
 WHERE v.document_id = p.document_id AND v.version = p.version AND v.language IS NOT NULL;

CREATE INDEX pages_search_idx ON pages USING gin (search);
