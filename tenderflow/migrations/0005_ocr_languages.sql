-- OCR in the document's language.
--
-- Languages are tesseract pack names joined by '+' ('fra+eng'); NULL means "detect".
--   tenants.ocr_languages            the tenant's default for its uploads (`tenderflow tenants languages`)
--   documents.ocr_languages          what the uploader asked for (`upload --languages`, `?languages=`)
-- What a version's pages were read with, and why, as its ocr.plan job chose it:
--   document_versions.ocr_languages         what tesseract got ('fra+eng')
--   document_versions.language              the document's (main) language ('fra'): the first asked for,
--                                            or the one detected (kept even when its pack is missing)
--   document_versions.languages_source      upload | tenant | settings | text_layer | first_pass | fallback
--   document_versions.language_confidence   the identifier's probability, for a detected language
--   document_versions.script                the script OSD named in the first pass ('Latin', 'Arabic', …)
ALTER TABLE tenants
    ADD COLUMN ocr_languages text CHECK (ocr_languages ~ '^[a-z]{2,3}(_[a-z]{3,4})*(\+[a-z]{2,3}(_[a-z]{3,4})*)*$');

ALTER TABLE documents
    ADD COLUMN ocr_languages text CHECK (ocr_languages ~ '^[a-z]{2,3}(_[a-z]{3,4})*(\+[a-z]{2,3}(_[a-z]{3,4})*)*$');

ALTER TABLE document_versions
    ADD COLUMN ocr_languages       text CHECK (length(ocr_languages) <= 200),
    ADD COLUMN language            text CHECK (length(language) <= 20),
    ADD COLUMN languages_source    text CHECK (languages_source IN
                                              ('upload', 'tenant', 'settings', 'text_layer', 'first_pass', 'fallback')),
    ADD COLUMN language_confidence real CHECK (language_confidence BETWEEN 0 AND 1),
    ADD COLUMN script              text CHECK (length(script) <= 40);
