-- Tenants, their API keys, and the credits ledger.
--
-- A tenant is a customer: the `tenant` text on jobs and documents names one. Its name is a storage
-- key segment (tenderflow.pipeline.storage.object_key keeps every tenant's PDFs under
-- tenants/<name>/), so the CHECK below is that function's rule; a test keeps the two equal.
-- A tenant's cap on running jobs lives in job_tenant_limits (the queue's claim enforces it).

CREATE TABLE tenants (
    name        text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$'),
    -- Credits the tenant can still reserve: grants − charges − open reservations.
    balance     bigint      NOT NULL DEFAULT 0,
    -- An unlimited tenant is never refused; its balance still records what it spent (below zero).
    unlimited   boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tenants_balance_covers_reservations CHECK (unlimited OR balance >= 0)
);

COMMENT ON TABLE tenants IS 'Customers. balance = sum of grants/adjustments - charges - open reservations.';

-- `default` serves single-tenant use (no --tenant given) and, like every tenant that already had
-- documents before this migration, keeps working as before: unlimited until credits are set.
INSERT INTO tenants (name, unlimited) VALUES ('default', true);
INSERT INTO tenants (name, unlimited) SELECT DISTINCT tenant, true FROM documents ON CONFLICT (name) DO NOTHING;

ALTER TABLE documents
    ADD CONSTRAINT documents_tenant_fkey FOREIGN KEY (tenant) REFERENCES tenants (name);

-- API keys. A key is shown once, as `tfk_<id>_<secret>`: `id` is public (it finds the row), only the
-- SHA-256 of the whole key is stored (the secret is ~238 random bits, so a fast hash is enough),
-- and it is compared in constant time. Revoked keys keep their row for the record.
CREATE TABLE api_keys (
    id             text        PRIMARY KEY CHECK (id ~ '^[0-9a-f]{12}$'),
    tenant         text        NOT NULL REFERENCES tenants (name),
    name           text        NOT NULL DEFAULT '' CHECK (length(name) <= 200),
    secret_sha256  bytea       NOT NULL CHECK (length(secret_sha256) = 32),
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_used_at   timestamptz,
    revoked_at     timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant);
-- last_used_at is written at most once a minute per key; keep those updates HOT.
ALTER TABLE api_keys SET (fillfactor = 70);

-- credit_kind: what one ledger entry records.
--   grant    credits added (`tenants create --credits`, `tenants credits add`)
--   adjust   `tenants credits set`: new balance − old balance (the only kind that may be negative)
--   reserve  credits held for a document version's work: at upload/reprocess (per document, plus
--            the LLM estimate when extraction alone is redone) and when its page count is known
--   charge   the version is done: its reservations close and `amount` (what the work actually
--            cost, never more than was reserved) is spent
--   refund   the version failed or was cancelled: its reservations close and come back in full
CREATE TYPE credit_kind AS ENUM ('grant', 'adjust', 'reserve', 'charge', 'refund');

-- The ledger: append-only, one row per (document version, kind[, part]) or per grant, each with a
-- unique entry_key, so writing an entry twice (a job rerun by hand, a retried commit) does nothing.
CREATE TABLE credit_entries (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant       text        NOT NULL REFERENCES tenants (name),
    kind         credit_kind NOT NULL,
    amount       bigint      NOT NULL,
    entry_key    text        NOT NULL UNIQUE,
    -- No foreign key: the ledger outlives documents.
    document_id  bigint,
    version      integer,
    detail       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT credit_entries_amount_sign CHECK (kind = 'adjust' OR amount >= 0),
    CONSTRAINT credit_entries_version_work CHECK (
        (kind IN ('reserve', 'charge', 'refund')) = (document_id IS NOT NULL AND version IS NOT NULL))
);
-- A version's reservations are closed once: by a charge or by a refund, never both, never twice.
CREATE UNIQUE INDEX credit_entries_one_close_per_version ON credit_entries (document_id, version)
    WHERE kind IN ('charge', 'refund');
CREATE INDEX credit_entries_version_idx ON credit_entries (document_id, version) WHERE document_id IS NOT NULL;
CREATE INDEX credit_entries_tenant_idx ON credit_entries (tenant, created_at);

-- The prices a version was accepted at. Its later reservations and its charge use these, whatever
-- the settings say by then. A version without a row (started before credits existed) is free.
CREATE TABLE version_prices (
    document_id               bigint  NOT NULL,
    version                   integer NOT NULL,
    price_per_document        integer NOT NULL CHECK (price_per_document >= 0),
    price_per_page            integer NOT NULL CHECK (price_per_page >= 0),
    price_per_1k_tokens       integer NOT NULL CHECK (price_per_1k_tokens >= 0),
    -- the LLM usage reserved ahead (estimates; the charge uses the tokens actually reported)
    llm_tokens_per_document   integer NOT NULL CHECK (llm_tokens_per_document >= 0),
    llm_tokens_per_page       integer NOT NULL CHECK (llm_tokens_per_page >= 0),
    PRIMARY KEY (document_id, version),
    FOREIGN KEY (document_id, version) REFERENCES document_versions ON DELETE CASCADE
);

-- Per tenant: the balance, and the same number recomputed from the ledger (they must be equal).
-- A reservation is open while its version has neither a charge nor a refund.
CREATE VIEW tenant_credit_summary AS
WITH entries AS (
    SELECT e.tenant, e.kind, e.amount,
           e.kind = 'reserve' AND NOT EXISTS (
               SELECT 1 FROM credit_entries c
                WHERE c.document_id = e.document_id AND c.version = e.version
                  AND c.kind IN ('charge', 'refund')) AS open
      FROM credit_entries e
),
sums AS (
    SELECT tenant,
           sum(amount) FILTER (WHERE kind IN ('grant', 'adjust')) AS granted,
           sum(amount) FILTER (WHERE kind = 'reserve')            AS reserved,
           sum(amount) FILTER (WHERE kind = 'charge')             AS charged,
           sum(amount) FILTER (WHERE kind = 'refund')             AS refunded,
           sum(amount) FILTER (WHERE open)                        AS open_reserved
      FROM entries
     GROUP BY tenant
)
SELECT t.name AS tenant, t.balance, t.unlimited,
       coalesce(s.granted, 0)::bigint AS granted, coalesce(s.reserved, 0)::bigint AS reserved,
       coalesce(s.charged, 0)::bigint AS charged, coalesce(s.refunded, 0)::bigint AS refunded,
       coalesce(s.open_reserved, 0)::bigint AS open_reserved,
       (coalesce(s.granted, 0) - coalesce(s.charged, 0) - coalesce(s.open_reserved, 0))::bigint AS ledger_balance
  FROM tenants t
  LEFT JOIN sums s ON s.tenant = t.name;
