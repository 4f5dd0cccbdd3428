-- Whether a failed version failed for its document's own content (the probe refused the PDF:
-- encrypted, damaged, no pages, over the page or pixel caps; or a page could not be rendered within
-- the tools' limits). Retrying its jobs or reprocessing it cannot help, so the dashboard offers
-- neither. Versions that failed before this column existed read false: offered, as before.
ALTER TABLE document_versions ADD COLUMN failed_for_content boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT versions_content_failure_is_failed CHECK (NOT failed_for_content OR state = 'failed');
