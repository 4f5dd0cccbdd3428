-- Webhooks (issue 13, item 2): a tenant's endpoints, the events they are told of, and every
-- delivery and attempt, as the log `tenderflow webhooks deliveries` and GET /v1/webhooks/deliveries read.
--
-- An event names its document and version and nothing more: the body a receiver gets is rendered at
-- delivery time from that version (tenderflow.pipeline.documents.webhook_document), so a document
-- deleted before its delivery is not sent at all, and no document data outlives the document here.
-- Hence no foreign key from events to documents: the log outlives them, as the credits ledger does.

CREATE TABLE webhook_endpoints (
    id                          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant                      text        NOT NULL REFERENCES tenants (name),
    url                         text        NOT NULL CHECK (length(url) BETWEEN 8 AND 2000),
    events                      text[]      NOT NULL CHECK (
                                    cardinality(events) > 0 AND events <@ ARRAY['document.done', 'document.failed']),
    description                 text        NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    -- Kept to sign with (a receiver verifies with the same secret); shown once, at creation or rotation.
    secret                      text        CHECK (secret ~ '^whsec_[A-Za-z0-9_-]{43}$'),
    -- After a rotation the old secret signs too, until it expires: receivers switch without a gap.
    previous_secret             text        CHECK (previous_secret ~ '^whsec_[A-Za-z0-9_-]{43}$'),
    previous_secret_expires_at  timestamptz,
    enabled                     boolean     NOT NULL DEFAULT true,
    disabled_reason             text,
    -- Failed attempts since the last delivered one: past TENDERFLOW_WEBHOOK_DISABLE_AFTER_FAILURES the
    -- endpoint is disabled and its pending deliveries cancelled.
    consecutive_failures        integer     NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    last_delivered_at           timestamptz,
    created_at                  timestamptz NOT NULL DEFAULT now(),
    -- A removed endpoint keeps its row (its deliveries refer to it) without its secrets.
    removed_at                  timestamptz,
    CONSTRAINT webhook_endpoints_secret_unless_removed CHECK ((removed_at IS NULL) = (secret IS NOT NULL)),
    CONSTRAINT webhook_endpoints_disabled_has_reason CHECK (enabled OR disabled_reason IS NOT NULL)
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant) WHERE removed_at IS NULL;

CREATE TABLE webhook_events (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- What receivers see (Tenderflow-Event-Id, Idempotency-Key): the same on every attempt and redelivery.
    public_id    text        NOT NULL UNIQUE DEFAULT ('evt_' || replace(gen_random_uuid()::text, '-', '')),
    tenant       text        NOT NULL,
    type         text        NOT NULL CHECK (type IN ('document.done', 'document.failed', 'ping')),
    document_id  bigint,
    version      integer,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_events_document_events_name_one CHECK (
        (type = 'ping') = (document_id IS NULL AND version IS NULL))
);

-- webhook delivery states:
--   pending    a job will send it (the first attempt, or again after a redelivery)
--   retrying   an attempt failed; the job runs again at next_attempt_at
--   delivered  a receiver answered 2xx
--   failed     every attempt failed (or the job ended failed): `redeliver` sends it again
--   skipped    not sent: the document was deleted, or the endpoint removed or disabled, before it went
--   cancelled  its job was cancelled (the endpoint was disabled for failing, or by an operator)
CREATE TABLE webhook_deliveries (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id         bigint      NOT NULL REFERENCES webhook_events (id),
    endpoint_id      bigint      NOT NULL REFERENCES webhook_endpoints (id),
    tenant           text        NOT NULL,
    state            text        NOT NULL DEFAULT 'pending' CHECK (
                         state IN ('pending', 'retrying', 'delivered', 'failed', 'skipped', 'cancelled')),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    redeliveries     integer     NOT NULL DEFAULT 0 CHECK (redeliveries >= 0),
    job_id           bigint,     -- the job sending it now (or last): cancelled when the endpoint is disabled
    next_attempt_at  timestamptz,
    last_status      integer,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    UNIQUE (event_id, endpoint_id),
    CONSTRAINT webhook_deliveries_finished_iff_final CHECK (
        (state IN ('delivered', 'failed', 'skipped', 'cancelled')) = (finished_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant, id DESC);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (endpoint_id) WHERE state IN ('pending', 'retrying');

-- Every attempt with its outcome: the address actually connected to, the status, the time it took.
CREATE TABLE webhook_attempts (
    delivery_id   bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt       integer     NOT NULL CHECK (attempt > 0),
    job_id        bigint,     -- NULL for a ping sent by the CLI or the API itself
    outcome       text        NOT NULL CHECK (outcome IN ('delivered', 'failed')),
    status_code   integer,
    error         text,
    address       text,
    duration_ms   integer     NOT NULL CHECK (duration_ms >= 0),
    response      text        NOT NULL DEFAULT '',
    at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (delivery_id, attempt)
);
