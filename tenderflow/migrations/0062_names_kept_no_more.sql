-- Review security-2, D-N7: a deleted document's file name stayed in `watch_files` (with its id).
-- Documents deleted before this migration lose theirs as tenderflow.pipeline.deletion now does it:
-- the path becomes '/deleted/<SHA-256 of the path>', so the watch still knows the file without its
-- name (a listing never gives a path that starts with '/').
DELETE FROM watch_files t
 USING watch_files w
 WHERE w.document_id IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = w.document_id)
   AND t.watch_id = w.watch_id
   AND t.path = '/deleted/' || encode(sha256(convert_to(w.path, 'UTF8')), 'hex');
UPDATE watch_files w
   SET path = '/deleted/' || encode(sha256(convert_to(w.path, 'UTF8')), 'hex'), document_id = NULL, reason = NULL
 WHERE w.document_id IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = w.document_id);

-- N3: file names lose Unicode format characters (bidirectional controls such as U+202E, which make
-- 'a<U+202E>exe.pdf' read 'afdp.exe'; zero-width ones) as uploads now drop them (tenderflow.texts).
UPDATE documents
   SET filename = coalesce(nullif(regexp_replace(filename,
         '[\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]',
         '', 'g'), ''), 'upload.pdf')
 WHERE filename ~ '[\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]';
