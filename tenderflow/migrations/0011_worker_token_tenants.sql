-- A worker token may be scoped to tenants as well as pools (review D2): NULL = every tenant.
ALTER TABLE worker_tokens ADD COLUMN tenants text[]
    CHECK (tenants IS NULL OR (cardinality(tenants) > 0 AND array_position(tenants, NULL) IS NULL));
