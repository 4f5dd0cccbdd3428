-- A watch keeps the folder it must stay inside (review security-2, D-N1): a poll opens this root by
-- its path, following no symbolic link, and every folder below it down to the watched one and to
-- each file with openat(O_NOFOLLOW) on the root's file system. A tenant's watch made over the API
-- records the real path of its TENDERFLOW_WATCH_ROOTS entry; the operator's own watch
-- (`tenderflow watch`) records the real path of the folder itself; an S3 watch its own prefix.
-- A watch made before this migration is confined to its own folder (the root is its source).
ALTER TABLE watches ADD COLUMN root text;
UPDATE watches SET root = source;
ALTER TABLE watches ALTER COLUMN root SET NOT NULL;
ALTER TABLE watches ADD CONSTRAINT watches_root_length CHECK (length(root) BETWEEN 1 AND 1024);
