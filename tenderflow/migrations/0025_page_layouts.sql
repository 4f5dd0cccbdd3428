-- Searchable PDFs (issue 13, item 4): where OCR saw each word of a page, kept at OCR time from the TSV
-- tesseract writes anyway ({"width", "height", "turned", "words": [[left, top, width, height, text]]},
-- NULL for text-layer pages and for pages read before this), and the searchable copy made of a
-- version's pages, stored by reference (its object key) once made.
ALTER TABLE pages ADD COLUMN layout jsonb;
ALTER TABLE document_versions ADD COLUMN searchable_key text;
