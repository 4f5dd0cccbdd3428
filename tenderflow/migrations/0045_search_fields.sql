-- Search over the extracted fields (issue 13: "full-text search over page text and extracted fields").
--
-- Until now the fields only filtered a search. Now the words of the fields a person searches for are
-- one tsvector per document in its search row (search_documents.fields_search), in the configuration
-- of the document's language (search_config, as its pages'), in a GIN index with the tenant like the
-- pages' (search_pages_search_idx). Each field carries a weight: the title, the buyer's name and the
-- reference number A; the place of performance, the buyer's address and the lots' titles B; the award
-- criteria's names C. A page's words weigh D (ts_rank_cd's default), so a match in a title ranks above
-- the same match in running text. Written where the search row is written (search_document_index).

-- The searchable text fields of an extraction (tenderflow.extraction.schema.TenderFields as stored):
-- each field's name (as the export's columns name them), its value, the page it was read on, its
-- weight, and its place in this list (the order a hit names the field that matched in: A first).
CREATE FUNCTION search_field_texts(fields jsonb)
    RETURNS TABLE (ordinal integer, name text, value text, page integer, weight "char")
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT f.ordinal, f.name, f.value,
           CASE WHEN jsonb_typeof(f.page) = 'number' THEN floor((f.page::text)::numeric)::integer END,
           f.weight::"char"
      FROM (SELECT s.ordinal, s.name, s.weight, s.node->>'value' AS value, s.node->'page' AS page
              FROM (VALUES (1, 'title', 'A', fields->'title'),
                           (2, 'buyer_name', 'A', fields->'buyer'->'name'),
                           (3, 'reference_number', 'A', fields->'reference_number'),
                           (4, 'place_of_performance', 'B', fields->'place_of_performance'),
                           (5, 'buyer_address', 'B', fields->'buyer'->'address')) AS s(ordinal, name, weight, node)
             WHERE jsonb_typeof(s.node->'value') = 'string'
            UNION ALL
            SELECT 6, 'lot_title', 'B', lot->'title'->>'value', lot->'title'->'page'
              FROM jsonb_array_elements(CASE jsonb_typeof(fields->'lots') WHEN 'array' THEN fields->'lots'
                                             ELSE '[]'::jsonb END) AS lot
             WHERE jsonb_typeof(lot->'title'->'value') = 'string'
            UNION ALL
            SELECT 7, 'award_criterion', 'C', criterion->'value'->>'name', criterion->'page'
              FROM jsonb_array_elements(CASE jsonb_typeof(fields->'award_criteria') WHEN 'array'
                                             THEN fields->'award_criteria' ELSE '[]'::jsonb END) AS criterion
             WHERE jsonb_typeof(criterion->'value'->'name') = 'string') AS f
$$;

-- Those fields as one tsvector in `config`, each weighted ('' when there are none).
CREATE FUNCTION search_fields_vector(config regconfig, fields jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(setweight(to_tsvector(config, string_agg(f.value, ' ') FILTER (WHERE f.weight = 'A')), 'A'), '')
        || coalesce(setweight(to_tsvector(config, string_agg(f.value, ' ') FILTER (WHERE f.weight = 'B')), 'B'), '')
        || coalesce(setweight(to_tsvector(config, string_agg(f.value, ' ') FILTER (WHERE f.weight = 'C')), 'C'), '')
      FROM search_field_texts(fields) AS f
$$;

ALTER TABLE search_documents
    ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple',
    ADD COLUMN fields_search tsvector  NOT NULL DEFAULT '';

-- What the pipeline has promoted so far: the language of the pages' version, as search_pages has it.
UPDATE search_documents sd
   SET search_config = search_config_for(pv.language)
  FROM document_versions pv
 WHERE pv.document_id = sd.document_id AND pv.version = sd.pages_version;

UPDATE search_documents sd
   SET fields_search = search_fields_vector(sd.search_config, e.fields)
  FROM extractions e
 WHERE e.document_id = sd.document_id AND e.version = sd.version;

CREATE INDEX search_documents_fields_idx ON search_documents USING gin (fields_search, (ARRAY[tenant]));
