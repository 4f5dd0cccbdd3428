-- How sure the extractor was of each value, which of its rules found it, and for fields left empty the
-- best value it found below its threshold (shown as a candidate, never returned as the field):
-- {"confidence": {"title": 0.82, …}, "rules": {"title": "label 'intitule du marche'", …},
--  "candidates": {"buyer.email": {"value": …, "page": 2, "quote": …}, …}}. Empty for older extractions
-- and for backends that do not say.
ALTER TABLE extractions ADD COLUMN provenance jsonb NOT NULL DEFAULT '{}'::jsonb;
