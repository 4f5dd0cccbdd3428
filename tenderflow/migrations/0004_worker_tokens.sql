-- Worker tokens: how remote pull workers (machines with no database access, often behind NAT)
-- authenticate to the HTTP API. They are not tenant API keys: a worker token lets its holder claim
-- and finish jobs of its pools, for every tenant, and nothing else.
--
-- A token is shown once, as `tfw_<id>_<secret>`. `id` is public (it finds the row); only the
-- SHA-256 of the secret is stored (the secret is 256 random bits, so a fast hash is enough), and it
-- is compared in constant time. Revoked tokens keep their row, so job history still names them.
CREATE TABLE worker_tokens (
    id             text        PRIMARY KEY CHECK (id ~ '^[a-z0-9]{12}$'),
    name           text        NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
    secret_sha256  bytea       NOT NULL CHECK (length(secret_sha256) = 32),
    pools          text[]      NOT NULL CHECK (cardinality(pools) > 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_used_at   timestamptz,
    revoked_at     timestamptz
);

-- A name names one live token; a revoked token's name may be given to a new one.
CREATE UNIQUE INDEX worker_tokens_live_name_idx ON worker_tokens (name) WHERE revoked_at IS NULL;

-- last_used_at is written at most every few seconds per token; keep those updates HOT.
ALTER TABLE worker_tokens SET (fillfactor = 70);
