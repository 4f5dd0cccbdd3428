-- Tenders (issue 26): a tenant's record that groups documents (the notice, the specifications,
-- forms and annexes, addenda and corrigenda) and holds their fields merged, with provenance.
--
-- The merged fields are derived: tenderflow.tenders.merging computes them from the members' readable
-- versions (precedence by document kind and date), and tenderflow.tenders.records stores the result
-- here whenever a member is added, removed, finishes a version or has its kind set by hand. A merge
-- that changes a value (or where it comes from) is a new revision: its snapshot and its changes are
-- kept (the change history, the OCDS release per change, the webhooks' bodies).
--
-- Another tenant's document can never be a member: the foreign keys carry the tenant on both sides.
-- A document deleted leaves its tenders (membership cascades) and marks them `stale`: the next read
-- or merge merges them again and scrubs the deleted document's values from the stored revisions.

-- A document's id with its tenant, for the foreign keys below.
ALTER TABLE documents ADD CONSTRAINT documents_id_tenant_key UNIQUE (id, tenant);

CREATE TABLE tenders (
    id                   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant               text        NOT NULL REFERENCES tenants (name),
    name                 text        CHECK (length(name) BETWEEN 1 AND 300),  -- given by a person; else the title
    revision             integer     NOT NULL DEFAULT 0 CHECK (revision >= 0),
    -- The last merge, whole (tenderflow.tenders.merging.MergedTender.as_json): fields with their
    -- document, page, quote and history, the conflicts, each member's kind and date.
    merged               jsonb       NOT NULL DEFAULT '{}',
    -- Read from `merged`, for the lists, the calendar, search and proposals.
    reference            text,
    reference_tokens     text[]      NOT NULL DEFAULT '{}',  -- what it is matched by (tenders.references)
    title                text,
    buyer_name           text,
    country              text        CHECK (country ~ '^[A-Z]{2}$'),
    submission_deadline  text,       -- as read: a date or a local date-time, or one with its offset
    questions_deadline   text,
    -- How many times each deadline moved (the calendar event's SEQUENCE).
    submission_sequence  integer     NOT NULL DEFAULT 0 CHECK (submission_sequence >= 0),
    questions_sequence   integer     NOT NULL DEFAULT 0 CHECK (questions_sequence >= 0),
    conflicts            integer     NOT NULL DEFAULT 0 CHECK (conflicts >= 0),
    stale                boolean     NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, tenant)
);
CREATE INDEX tenders_tenant_idx ON tenders (tenant, id DESC);
CREATE INDEX tenders_reference_idx ON tenders USING gin (reference_tokens);
CREATE INDEX tenders_stale_idx ON tenders (tenant) WHERE stale;

-- Document kinds, in the order of precedence for the fields they state:
--   addendum       an addendum, corrigendum, amendment: overrides the others for what it states
--   notice         the contract notice (or the request / invitation itself)
--   specification  specifications, terms of reference, tender documents: fill what the notice lacks
--   form           forms, annexes, price schedules
--   other          anything else (a cover letter)
CREATE TABLE tender_documents (
    tender_id      bigint      NOT NULL,
    document_id    bigint      NOT NULL,
    tenant         text        NOT NULL,
    -- As the last merge decided (kind_source: override, notice_type, title, first_page, filename,
    -- none), with the words that decided it.
    kind           text        CHECK (kind IN ('addendum', 'notice', 'specification', 'form', 'other')),
    kind_source    text,
    kind_evidence  text,
    kind_override  text        CHECK (kind_override IN ('addendum', 'notice', 'specification', 'form', 'other')),
    package_path   text        CHECK (length(package_path) <= 1000),  -- where it was in its ZIP
    added_by       text        NOT NULL CHECK (added_by IN ('upload', 'package', 'proposal', 'hand')),
    added_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tender_id, document_id),
    FOREIGN KEY (tender_id, tenant) REFERENCES tenders (id, tenant) ON DELETE CASCADE,
    FOREIGN KEY (document_id, tenant) REFERENCES documents (id, tenant) ON DELETE CASCADE
);
CREATE INDEX tender_documents_document_idx ON tender_documents (document_id);

-- A member that goes (its document deleted, or removed by hand) leaves its tender to be merged again.
CREATE FUNCTION tender_documents_mark_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tenders SET stale = true WHERE id = OLD.tender_id AND NOT stale;
    RETURN NULL;
END $$;
CREATE TRIGGER tender_documents_removed AFTER DELETE ON tender_documents
    FOR EACH ROW EXECUTE FUNCTION tender_documents_mark_stale();

-- Each merge that changed a value or its source: the merged fields as they then were, and the changes.
CREATE TABLE tender_revisions (
    tender_id   bigint      NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
    revision    integer     NOT NULL CHECK (revision > 0),
    cause       text        NOT NULL,
    fields      jsonb       NOT NULL,
    changes     jsonb       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tender_id, revision)
);

-- A conflict settled by a person: this field's value is taken from this document.
CREATE TABLE tender_choices (
    tender_id    bigint      NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
    field        text        NOT NULL CHECK (field ~ '^[a-z_.]{1,60}$'),
    document_id  bigint      NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    chosen_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tender_id, field)
);

-- proposal states:
--   proposed  a new document names the reference of a tender (tender_id), or of another document in
--             no tender (partner_id): waiting for a person
--   accepted  the document joined the tender (result_tender_id; created_tender: made for it)
--   rejected  not the same tender
--   undone    accepted, then taken back: the document left the tender (a tender made for it is gone)
CREATE TABLE tender_proposals (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant            text        NOT NULL,
    document_id       bigint      NOT NULL,
    tender_id         bigint,
    partner_id        bigint,
    reference         text        NOT NULL,
    state             text        NOT NULL DEFAULT 'proposed'
                                  CHECK (state IN ('proposed', 'accepted', 'rejected', 'undone')),
    result_tender_id  bigint      REFERENCES tenders (id) ON DELETE SET NULL,
    created_tender    boolean     NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    decided_at        timestamptz,
    FOREIGN KEY (document_id, tenant) REFERENCES documents (id, tenant) ON DELETE CASCADE,
    FOREIGN KEY (tender_id, tenant) REFERENCES tenders (id, tenant) ON DELETE CASCADE,
    FOREIGN KEY (partner_id, tenant) REFERENCES documents (id, tenant) ON DELETE CASCADE,
    CONSTRAINT tender_proposals_one_target CHECK ((tender_id IS NULL) <> (partner_id IS NULL)),
    CONSTRAINT tender_proposals_decided CHECK ((state = 'proposed') = (decided_at IS NULL))
);
CREATE UNIQUE INDEX tender_proposals_join_key ON tender_proposals (document_id, tender_id) WHERE tender_id IS NOT NULL;
CREATE UNIQUE INDEX tender_proposals_pair_key
    ON tender_proposals (least(document_id, partner_id), greatest(document_id, partner_id)) WHERE partner_id IS NOT NULL;
CREATE INDEX tender_proposals_tenant_idx ON tender_proposals (tenant, id DESC);

-- The reference number each finished document names (its readable version's), for proposals: a new
-- document whose reference matches a tender's, or another document's in no tender yet.
CREATE TABLE document_references (
    document_id  bigint  NOT NULL PRIMARY KEY,
    tenant       text    NOT NULL,
    version      integer NOT NULL,
    reference    text    NOT NULL,
    tokens       text[]  NOT NULL,
    FOREIGN KEY (document_id, tenant) REFERENCES documents (id, tenant) ON DELETE CASCADE
);
CREATE INDEX document_references_tokens_idx ON document_references USING gin (tokens);

-- A tenant's calendar feed token (GET /v1/calendar.ics?token=…): `tfc_<id>_<secret>`, only its
-- SHA-256 kept. One live token per tenant; a new one revokes the one before.
CREATE TABLE calendar_tokens (
    id          text        PRIMARY KEY CHECK (id ~ '^[0-9a-f]{12}$'),
    tenant      text        NOT NULL REFERENCES tenants (name),
    digest      bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE UNIQUE INDEX calendar_tokens_live_idx ON calendar_tokens (tenant) WHERE revoked_at IS NULL;
