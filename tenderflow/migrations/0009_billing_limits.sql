-- Billing and storage limits (issue 15: review D6, D7, D10).
--
-- 1. The LLM reservation scales with the text sent (review D6): a version's prices keep the tokens
--    reserved per LLM request (instructions, schema, answer) and the characters of page text per
--    request; the tokens of the text itself are estimated from its characters when its pages are
--    known. The flat per-document and per-page token estimates go: they reserved the same for a
--    page of 50,000 characters as for one of 500. A version accepted before this migration gets 0
--    for both (no LLM reservation at extraction); what it uses beyond what it reserved is charged
--    from the balance like any other version's.
ALTER TABLE version_prices
    ADD COLUMN llm_tokens_per_request integer NOT NULL DEFAULT 0 CHECK (llm_tokens_per_request >= 0),
    ADD COLUMN llm_chunk_chars        integer NOT NULL DEFAULT 0 CHECK (llm_chunk_chars >= 0),
    DROP COLUMN llm_tokens_per_document,
    DROP COLUMN llm_tokens_per_page;

-- 2. Per-tenant limits on uploads (review D7): NULL = the settings' default
--    (TENDERFLOW_TENANT_UPLOADS_PER_MINUTE, TENDERFLOW_TENANT_MAX_STORED_BYTES); 0 = no limit.
ALTER TABLE tenants
    ADD COLUMN uploads_per_minute integer CHECK (uploads_per_minute >= 0),
    ADD COLUMN max_stored_bytes   bigint  CHECK (max_stored_bytes >= 0);

-- Upload requests of the last minute, per tenant: the rate limit's sliding window. Rows older than
-- the window are deleted by the next request of the same tenant.
CREATE TABLE tenant_upload_requests (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant      text        NOT NULL REFERENCES tenants (name) ON DELETE CASCADE,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tenant_upload_requests_tenant_at_idx ON tenant_upload_requests (tenant, at);

COMMENT ON COLUMN credit_entries.kind IS
    'reserve: held at acceptance, plan and extraction; charge: what the version cost (done, or failed for its '
    'own content or the tenant''s balance); refund: a failure of the service or a cancellation gives it all back';
