-- Named queries of tenders: the tender, its members, its merges and revisions, proposals, the
-- calendar's tokens and feed (migrations 0080, 0081).

-- name: tender_insert
INSERT INTO tenders (tenant, name) VALUES (%(tenant)s, %(name)s) RETURNING id;

-- name: tender_get
SELECT id, tenant, name, revision, merged, reference, title, buyer_name, country, submission_deadline,
       questions_deadline, submission_sequence, questions_sequence, conflicts, stale, created_at, updated_at,
       (SELECT count(*) FROM tender_documents td WHERE td.tender_id = t.id) AS documents
  FROM tenders t
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text);

-- name: tender_lock
-- The tender, locked until the transaction ends: merges of one tender take turns.
SELECT id, tenant, revision, merged, reference_tokens FROM tenders
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   FOR NO KEY UPDATE;

-- name: tender_list
-- Newest first, `before_id` the cursor; the deadline filters compare the merged submission deadline
-- as text (ISO 8601 sorts as it reads; a date alone is its day).
SELECT id, tenant, name, revision, reference, title, buyer_name, country, submission_deadline, questions_deadline,
       conflicts, stale, created_at, updated_at,
       (SELECT count(*) FROM tender_documents td WHERE td.tender_id = t.id) AS documents
  FROM tenders t
 WHERE (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   AND (%(before_id)s::bigint IS NULL OR id < %(before_id)s::bigint)
   AND (%(deadline_after)s::text IS NULL OR left(submission_deadline, 10) >= %(deadline_after)s::text)
   AND (%(deadline_before)s::text IS NULL OR left(submission_deadline, 10) < %(deadline_before)s::text)
   AND (%(ids)s::bigint[] IS NULL OR id = ANY(%(ids)s::bigint[]))
 ORDER BY id DESC
 LIMIT %(limit)s;

-- name: tender_rename
UPDATE tenders SET name = %(name)s, updated_at = now()
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
RETURNING id;

-- name: tender_delete
DELETE FROM tenders WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text) RETURNING id;

-- name: tender_stale_ids
SELECT id FROM tenders WHERE stale AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text) ORDER BY id;

-- name: tender_member_insert
-- A document joins the tender (once: joining again keeps how it joined first). The foreign keys
-- carry the tenant: another tenant's document cannot join.
INSERT INTO tender_documents (tender_id, document_id, tenant, added_by, package_path)
SELECT %(tender_id)s, d.id, d.tenant, %(added_by)s, %(package_path)s
  FROM documents d
 WHERE d.id = %(document_id)s AND d.tenant = %(tenant)s
ON CONFLICT (tender_id, document_id) DO NOTHING
RETURNING document_id;

-- name: tender_members_insert
-- Many documents join at once (a package): each with where it was in the ZIP.
INSERT INTO tender_documents (tender_id, document_id, tenant, added_by, package_path)
SELECT %(tender_id)s, d.id, d.tenant, %(added_by)s, m.package_path
  FROM unnest(%(document_ids)s::bigint[], %(package_paths)s::text[]) AS m(document_id, package_path)
  JOIN documents d ON d.id = m.document_id AND d.tenant = %(tenant)s
ON CONFLICT (tender_id, document_id) DO NOTHING
RETURNING document_id;

-- name: tender_member_delete
DELETE FROM tender_documents WHERE tender_id = %(tender_id)s AND document_id = %(document_id)s
RETURNING document_id;

-- name: tender_member_set_override
UPDATE tender_documents SET kind_override = %(kind)s
 WHERE tender_id = %(tender_id)s AND document_id = %(document_id)s
RETURNING document_id;

-- name: tender_members
-- What a merge reads of each member: its readable version's fields and page 1's text (the kind and
-- date are read from it), its latest version's state (for people: a member still being read).
SELECT td.document_id, d.filename, d.created_at AS uploaded_at, td.kind_override, td.kind, td.kind_source,
       td.kind_evidence, td.package_path, td.added_by, td.added_at, d.current_version AS version, e.fields, lv.state::text AS state,
       lv.page_count,
       (SELECT left(p.text, 4000) FROM pages p
         WHERE p.document_id = d.id AND p.version = v.pages_version AND p.page_number = 1) AS first_page
  FROM tender_documents td
  JOIN documents d ON d.id = td.document_id
  LEFT JOIN document_versions v ON v.document_id = d.id AND v.version = d.current_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
  LEFT JOIN document_versions lv ON lv.document_id = d.id AND lv.version = d.latest_version
 WHERE td.tender_id = %(tender_id)s
 ORDER BY td.document_id;

-- name: tender_members_set_kinds
-- The kinds the merge decided, written where they changed.
UPDATE tender_documents td SET kind = m.kind, kind_source = m.source, kind_evidence = m.evidence
  FROM unnest(%(document_ids)s::bigint[], %(kinds)s::text[], %(sources)s::text[], %(evidences)s::text[])
       AS m(document_id, kind, source, evidence)
 WHERE td.tender_id = %(tender_id)s AND td.document_id = m.document_id
   AND (td.kind, td.kind_source, td.kind_evidence) IS DISTINCT FROM (m.kind, m.source, m.evidence);

-- name: tender_choices
SELECT field, document_id FROM tender_choices WHERE tender_id = %(tender_id)s;

-- name: tender_choice_set
INSERT INTO tender_choices (tender_id, field, document_id) VALUES (%(tender_id)s, %(field)s, %(document_id)s)
ON CONFLICT (tender_id, field) DO UPDATE SET document_id = excluded.document_id, chosen_at = now();

-- name: tender_choice_clear
DELETE FROM tender_choices WHERE tender_id = %(tender_id)s AND field = %(field)s;

-- name: tender_store_merge
-- The merge, stored: its whole result, the columns read from it, and (bump 1) a new revision.
UPDATE tenders
   SET merged = %(merged)s, revision = revision + %(bump)s, reference = %(reference)s,
       reference_tokens = %(reference_tokens)s, title = %(title)s, buyer_name = %(buyer_name)s,
       country = %(country)s, submission_deadline = %(submission_deadline)s,
       questions_deadline = %(questions_deadline)s,
       submission_sequence = submission_sequence + %(submission_moved)s,
       questions_sequence = questions_sequence + %(questions_moved)s,
       conflicts = %(conflicts)s, stale = false,
       updated_at = CASE WHEN %(bump)s > 0 THEN now() ELSE updated_at END
 WHERE id = %(id)s
RETURNING revision;

-- name: tender_revision_insert
INSERT INTO tender_revisions (tender_id, revision, cause, fields, changes)
VALUES (%(tender_id)s, %(revision)s, %(cause)s, %(fields)s, %(changes)s);

-- name: tender_revisions
SELECT revision, cause, fields, changes, created_at FROM tender_revisions
 WHERE tender_id = %(tender_id)s ORDER BY revision;

-- name: tender_revision_get
SELECT r.revision, r.cause, r.fields, r.changes, r.created_at, t.tenant, t.name, t.title
  FROM tender_revisions r JOIN tenders t ON t.id = r.tender_id
 WHERE r.tender_id = %(tender_id)s AND r.revision = %(revision)s;

-- name: tender_revision_scrub
UPDATE tender_revisions SET fields = %(fields)s, changes = %(changes)s
 WHERE tender_id = %(tender_id)s AND revision = %(revision)s;

-- name: documents_existing
SELECT id FROM documents WHERE id = ANY(%(ids)s::bigint[]);

-- name: tenders_of_document
SELECT tender_id FROM tender_documents WHERE document_id = %(document_id)s ORDER BY tender_id;

-- name: tender_ids_of_documents
SELECT document_id, array_agg(tender_id ORDER BY tender_id) AS tender_ids FROM tender_documents
 WHERE document_id = ANY(%(document_ids)s::bigint[])
 GROUP BY document_id;

-- name: document_readable
-- A document and its readable version (the one a finished version's task was enqueued for may be
-- older than a newer finished one by then).
SELECT d.id, d.tenant, d.current_version, e.fields
  FROM documents d
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
 WHERE d.id = %(document_id)s;

-- name: document_tenant_check
SELECT id FROM documents WHERE id = ANY(%(ids)s::bigint[]) AND tenant = %(tenant)s;

-- name: document_reference_upsert
INSERT INTO document_references (document_id, tenant, version, reference, tokens)
VALUES (%(document_id)s, %(tenant)s, %(version)s, %(reference)s, %(tokens)s)
ON CONFLICT (document_id) DO UPDATE
   SET version = excluded.version, reference = excluded.reference, tokens = excluded.tokens;

-- name: document_reference_delete
DELETE FROM document_references WHERE document_id = %(document_id)s;

-- name: proposal_tender_candidates
-- Tenders of the tenant whose reference shares a token with the document's (checked in Python).
SELECT id, reference FROM tenders
 WHERE tenant = %(tenant)s AND reference_tokens && %(tokens)s::text[]
 ORDER BY id DESC LIMIT 20;

-- name: proposal_document_candidates
-- Other documents of the tenant in no tender whose reference shares a token with this one's.
SELECT r.document_id, r.reference FROM document_references r
 WHERE r.tenant = %(tenant)s AND r.tokens && %(tokens)s::text[] AND r.document_id <> %(document_id)s
   AND NOT EXISTS (SELECT 1 FROM tender_documents td WHERE td.document_id = r.document_id)
 ORDER BY r.document_id DESC LIMIT 20;

-- name: proposal_insert_join
INSERT INTO tender_proposals (tenant, document_id, tender_id, reference)
VALUES (%(tenant)s, %(document_id)s, %(tender_id)s, %(reference)s)
ON CONFLICT (document_id, tender_id) WHERE tender_id IS NOT NULL DO NOTHING
RETURNING id;

-- name: proposal_insert_pair
INSERT INTO tender_proposals (tenant, document_id, partner_id, reference)
VALUES (%(tenant)s, %(document_id)s, %(partner_id)s, %(reference)s)
ON CONFLICT (least(document_id, partner_id), greatest(document_id, partner_id)) WHERE partner_id IS NOT NULL
DO NOTHING
RETURNING id;

-- name: proposal_list
SELECT p.id, p.tenant, p.document_id, d.filename, p.tender_id, p.partner_id, pd.filename AS partner_filename,
       coalesce(t.name, t.title) AS tender_title, p.reference, p.state, p.result_tender_id, p.created_tender,
       p.created_at, p.decided_at
  FROM tender_proposals p
  JOIN documents d ON d.id = p.document_id
  LEFT JOIN documents pd ON pd.id = p.partner_id
  LEFT JOIN tenders t ON t.id = p.tender_id
 WHERE (%(tenant)s::text IS NULL OR p.tenant = %(tenant)s::text)
   AND (%(state)s::text IS NULL OR p.state = %(state)s::text)
   AND (%(id)s::bigint IS NULL OR p.id = %(id)s::bigint)
 ORDER BY p.id DESC
 LIMIT %(limit)s;

-- name: proposal_lock
SELECT id, tenant, document_id, tender_id, partner_id, reference, state, result_tender_id, created_tender
  FROM tender_proposals
 WHERE id = %(id)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   FOR UPDATE;

-- name: proposal_decide
UPDATE tender_proposals
   SET state = %(state)s, decided_at = CASE WHEN %(state)s = 'proposed' THEN NULL ELSE now() END,
       result_tender_id = %(result_tender_id)s, created_tender = %(created_tender)s
 WHERE id = %(id)s;

-- name: proposals_loose_for_tender
-- Documents in no tender whose reference shares a token with the tender's (checked in Python).
SELECT r.document_id, r.reference FROM document_references r
 WHERE r.tenant = %(tenant)s AND r.tokens && %(tokens)s::text[]
   AND NOT EXISTS (SELECT 1 FROM tender_documents td WHERE td.document_id = r.document_id)
 ORDER BY r.document_id DESC LIMIT 20;

-- name: calendar_token_revoke
UPDATE calendar_tokens SET revoked_at = now() WHERE tenant = %(tenant)s AND revoked_at IS NULL;

-- name: calendar_token_insert
INSERT INTO calendar_tokens (id, tenant, digest) VALUES (%(id)s, %(tenant)s, %(digest)s);

-- name: calendar_token_get
SELECT tenant, digest FROM calendar_tokens WHERE id = %(id)s AND revoked_at IS NULL;

-- name: calendar_events
-- Every tender of the tenant with a deadline: what its events are made of.
-- `stamp` and `created` are written as iCalendar's UTC date-times here: 20,000 strftime calls cost
-- the feed more than the query does.
SELECT id, coalesce(name, title) AS title, reference, buyer_name, country, submission_deadline, questions_deadline,
       submission_sequence, questions_sequence, conflicts,
       to_char(updated_at AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"') AS stamp,
       to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"') AS created
  FROM tenders
 WHERE tenant = %(tenant)s AND (submission_deadline IS NOT NULL OR questions_deadline IS NOT NULL)
 ORDER BY id;

-- name: export_tenders
-- A tenant's tenders (or everyone's), oldest first, in batches after `after_id`.
SELECT id, tenant, name, revision, merged, reference, title, buyer_name, country, submission_deadline,
       questions_deadline, conflicts, created_at, updated_at,
       (SELECT count(*) FROM tender_documents td WHERE td.tender_id = t.id) AS documents
  FROM tenders t
 WHERE (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   AND (%(since)s::timestamptz IS NULL OR updated_at >= %(since)s::timestamptz)
   AND id > %(after_id)s
 ORDER BY id
 LIMIT %(batch)s;

-- name: export_tender_documents
SELECT td.tender_id, td.document_id, d.filename, td.kind, d.current_version, lv.language
  FROM tender_documents td
  JOIN documents d ON d.id = td.document_id
  LEFT JOIN document_versions lv ON lv.document_id = d.id AND lv.version = d.current_version
 WHERE td.tender_id = ANY(%(tender_ids)s::bigint[])
 ORDER BY td.tender_id, td.document_id;

-- name: export_tender_revisions
SELECT tender_id, revision, cause, fields, changes, created_at FROM tender_revisions
 WHERE tender_id = ANY(%(tender_ids)s::bigint[])
 ORDER BY tender_id, revision;
