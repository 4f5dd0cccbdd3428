-- Named queries of tenderflow.pipeline.pdfs: the searchable copy of a version and its pages' word boxes.

-- name: page_layouts_of_version
-- The word boxes of a version's OCRed pages (for its searchable PDF); layout is NULL for pages read
-- before boxes were kept.
SELECT page_number, layout FROM pages
 WHERE document_id = %(document_id)s AND version = %(version)s AND source = 'ocr'
 ORDER BY page_number;

-- name: version_searchable_get
SELECT searchable_key FROM document_versions WHERE document_id = %(document_id)s AND version = %(version)s;

-- name: version_searchable_set
UPDATE document_versions SET searchable_key = %(key)s WHERE document_id = %(document_id)s AND version = %(version)s;
