-- Named queries of tenderflow.pipeline.announce: whom a version's event goes to, and what it tells.

-- name: document_tenant
SELECT tenant FROM documents WHERE id = %(id)s;

-- name: webhook_document
-- One version of a document as a webhook tells of it (its fields when it is done).
SELECT d.id, d.tenant, d.filename, d.sha256, d.size_bytes, d.created_at, d.current_version, v.version,
       v.state::text AS state, v.page_count, v.error, v.failed_for_content, v.finished_at, pv.language,
       e.fields, e.flags, e.backend, e.model, e.country
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = %(version)s
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = v.pages_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = v.version
 WHERE d.id = %(document_id)s;
