-- The buyer's country as the extraction placed it (tenderflow.extraction.country): its ISO code,
-- whether it was inferred or stated, the IANA time zone its deadlines are read in and why, and the
-- evidence (kind, value, page, quote). NULL: nothing pointed to a country clearly, or the version
-- was extracted before this column (readers then fall back on the fields' buyer.country).
ALTER TABLE extractions ADD COLUMN country jsonb;
