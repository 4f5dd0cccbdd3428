-- Named queries of tenderflow.pipeline.export.

-- name: export_documents
-- Documents for an export, oldest first: the latest version's state, and the fields of the readable
-- (newest finished) version.
SELECT d.id, d.tenant, d.filename, d.sha256, d.created_at, v.state::text AS state, d.current_version,
       cv.page_count, cv.finished_at, pv.language, e.fields, e.flags, e.backend, e.model, e.country
  FROM documents d
  JOIN document_versions v ON v.document_id = d.id AND v.version = d.latest_version
  LEFT JOIN document_versions cv ON cv.document_id = d.id AND cv.version = d.current_version
  LEFT JOIN document_versions pv ON pv.document_id = d.id AND pv.version = cv.pages_version
  LEFT JOIN extractions e ON e.document_id = d.id AND e.version = d.current_version
 WHERE (%(tenant)s::text IS NULL OR d.tenant = %(tenant)s::text)
   AND (%(state)s::version_state IS NULL OR v.state = %(state)s::version_state)
   AND (%(since)s::timestamptz IS NULL OR d.created_at >= %(since)s::timestamptz)
   AND d.id > %(after_id)s
 ORDER BY d.id
 LIMIT %(batch)s;
