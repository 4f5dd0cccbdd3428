-- API keys with a scope and an end (issue 12: key scopes and expiry).
--   scope       'write' (the default, as before: upload, reprocess, read) or 'read' (list, read, search,
--               export, the account: GET requests only) — a dashboard or a BI tool needs no upload right
--   expires_at  NULL: never; else the key verifies until then (the database's clock decides)
ALTER TABLE api_keys
    ADD COLUMN scope      text NOT NULL DEFAULT 'write' CHECK (scope IN ('read', 'write')),
    ADD COLUMN expires_at timestamptz;
