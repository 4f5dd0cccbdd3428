-- Webhook events of tenders (issue 26): `tender.updated` (a merge changed the tender's fields) and
-- `tender.deadline_changed` (it moved the submission or questions deadline). Such an event names its
-- tender and the revision that changed it; the body is rendered when it is sent, from that revision
-- (tenderflow.tenders.records.webhook_tender), and a tender deleted before then is not sent.

ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_events_check CHECK (
    cardinality(events) > 0
    AND events <@ ARRAY['document.done', 'document.failed', 'tender.updated', 'tender.deadline_changed']);

ALTER TABLE webhook_events ADD COLUMN tender_id bigint;
ALTER TABLE webhook_events ADD COLUMN revision integer;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (
    type IN ('document.done', 'document.failed', 'tender.updated', 'tender.deadline_changed', 'ping'));
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_document_events_name_one;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_name_their_subject CHECK (
    CASE
        WHEN type = 'ping' THEN num_nonnulls(document_id, version, tender_id, revision) = 0
        WHEN type LIKE 'document.%' THEN document_id IS NOT NULL AND version IS NOT NULL
                                         AND num_nonnulls(tender_id, revision) = 0
        ELSE tender_id IS NOT NULL AND revision IS NOT NULL AND num_nonnulls(document_id, version) = 0
    END);
