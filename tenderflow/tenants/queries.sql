-- Named queries of tenants, API keys and the credits ledger.
--
-- Every ledger write first locks the tenant's row (tenant_lock), so the statements after it see
-- every entry committed before: the balance check, "is this entry already written", and the
-- balance update cannot interleave with another transaction's for the same tenant.

-- name: tenant_insert
INSERT INTO tenants (name, unlimited) VALUES (%(name)s, %(unlimited)s)
ON CONFLICT (name) DO NOTHING
RETURNING name;

-- name: tenant_get
SELECT t.name, t.balance, t.unlimited, t.created_at, t.ocr_languages, l.max_running,
       coalesce(l.priority, 0) AS priority, s.open_reserved, s.charged, s.ledger_balance,
       (SELECT count(*) FROM api_keys k WHERE k.tenant = t.name AND k.revoked_at IS NULL) AS active_keys,
       (SELECT count(*) FROM documents d WHERE d.tenant = t.name) AS documents
  FROM tenants t
  LEFT JOIN job_tenant_limits l ON l.tenant = t.name
  JOIN tenant_credit_summary s ON s.tenant = t.name
 WHERE t.name = %(name)s;

-- name: tenant_list
SELECT t.name, t.balance, t.unlimited, t.created_at, t.ocr_languages, l.max_running,
       coalesce(l.priority, 0) AS priority, s.open_reserved, s.charged,
       (SELECT count(*) FROM api_keys k WHERE k.tenant = t.name AND k.revoked_at IS NULL) AS active_keys
  FROM tenants t
  LEFT JOIN job_tenant_limits l ON l.tenant = t.name
  JOIN tenant_credit_summary s ON s.tenant = t.name
 ORDER BY t.name;

-- name: tenant_balance
-- A read without a lock: the early check before an upload stores anything.
SELECT balance, unlimited FROM tenants WHERE name = %(name)s;

-- name: tenant_lock
-- NO KEY: the balance is not a key, and inserts that reference the tenant (documents, keys, ledger
-- entries) take KEY SHARE locks for their foreign keys, which FOR UPDATE would block.
SELECT balance, unlimited FROM tenants WHERE name = %(name)s FOR NO KEY UPDATE;

-- name: tenant_set_languages
UPDATE tenants SET ocr_languages = %(ocr_languages)s WHERE name = %(name)s;

-- name: tenant_set_unlimited
UPDATE tenants SET unlimited = %(unlimited)s WHERE name = %(name)s;

-- name: tenant_credit_summary
SELECT tenant, balance, unlimited, granted, reserved, charged, refunded, open_reserved, ledger_balance
  FROM tenant_credit_summary ORDER BY tenant;

-- name: credit_entry_exists
SELECT 1 FROM credit_entries WHERE entry_key = %(entry_key)s;

-- name: credit_entry_add
-- Grant, adjust or reserve: the entry and its effect on the balance, in one statement. The
-- balance moves by %(balance_delta)s only when the entry is new.
WITH entry AS (
    INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version, detail)
    VALUES (%(tenant)s, %(kind)s, %(amount)s, %(entry_key)s, %(document_id)s, %(version)s, %(detail)s)
    ON CONFLICT DO NOTHING
    RETURNING tenant
)
UPDATE tenants t SET balance = t.balance + %(balance_delta)s
  FROM entry
 WHERE t.name = entry.tenant
RETURNING t.balance;

-- name: version_reserved
-- What a version holds: its reservations, by tenant (one tenant: the document's).
SELECT tenant, sum(amount)::bigint AS reserved
  FROM credit_entries
 WHERE document_id = %(document_id)s AND version = %(version)s AND kind = 'reserve'
 GROUP BY tenant;

-- name: credit_close
-- Charge or refund: close the version's reservations. The balance gets back what was reserved
-- minus what is spent (%(spent)s: the charge; 0 for a refund). Only a new entry moves it.
WITH entry AS (
    INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version, detail)
    VALUES (%(tenant)s, %(kind)s, %(amount)s, %(entry_key)s, %(document_id)s, %(version)s, %(detail)s)
    ON CONFLICT DO NOTHING
    RETURNING tenant
)
UPDATE tenants t SET balance = t.balance + %(reserved)s - %(spent)s
  FROM entry
 WHERE t.name = entry.tenant
RETURNING t.balance;

-- name: version_prices_insert
INSERT INTO version_prices (document_id, version, price_per_document, price_per_page, price_per_1k_tokens,
                            llm_tokens_per_request, llm_chunk_chars)
VALUES (%(document_id)s, %(version)s, %(price_per_document)s, %(price_per_page)s, %(price_per_1k_tokens)s,
        %(llm_tokens_per_request)s, %(llm_chunk_chars)s)
ON CONFLICT (document_id, version) DO NOTHING;

-- name: version_prices_get
-- The prices a version was accepted at, and whose version it is.
SELECT d.tenant, p.price_per_document, p.price_per_page, p.price_per_1k_tokens, p.llm_tokens_per_request,
       p.llm_chunk_chars
  FROM version_prices p
  JOIN documents d ON d.id = p.document_id
 WHERE p.document_id = %(document_id)s AND p.version = %(version)s;

-- name: version_usage
-- What a version's work consumed: pages it read itself (a version that reuses another's pages
-- read none) and LLM tokens of its extraction.
SELECT (SELECT count(*) FROM pages p
         WHERE p.document_id = %(document_id)s AND p.version = %(version)s) AS pages_read,
       coalesce((SELECT e.prompt_tokens + e.completion_tokens FROM extractions e
                  WHERE e.document_id = %(document_id)s AND e.version = %(version)s), 0) AS llm_tokens;

-- name: tenant_usage
-- Ledger sums since a time (NULL: since the beginning), and the balance now.
SELECT t.name AS tenant, t.balance, t.unlimited,
       coalesce(sum(e.amount) FILTER (WHERE e.kind IN ('grant', 'adjust')), 0) AS granted,
       coalesce(sum(e.amount) FILTER (WHERE e.kind = 'reserve'), 0)            AS reserved,
       coalesce(sum(e.amount) FILTER (WHERE e.kind = 'charge'), 0)             AS charged,
       coalesce(sum(e.amount) FILTER (WHERE e.kind = 'refund'), 0)             AS refunded,
       count(*) FILTER (WHERE e.kind = 'charge')                               AS versions_charged,
       count(*) FILTER (WHERE e.kind = 'refund')                               AS versions_refunded,
       (SELECT s.open_reserved FROM tenant_credit_summary s WHERE s.tenant = t.name) AS open_reserved
  FROM tenants t
  LEFT JOIN credit_entries e
    ON e.tenant = t.name AND (%(since)s::timestamptz IS NULL OR e.created_at >= %(since)s::timestamptz)
 WHERE t.name = %(name)s
 GROUP BY t.name, t.balance, t.unlimited;

-- name: credit_entries_of_tenant
SELECT id, kind::text AS kind, amount, entry_key, document_id, version, detail, created_at
  FROM credit_entries
 WHERE tenant = %(tenant)s
 ORDER BY id;

-- name: credit_entries_recent
-- The tenant's newest ledger entries first, at most `limit` (the dashboard's tenant page).
SELECT id, kind::text AS kind, amount, entry_key, document_id, version, detail, created_at
  FROM credit_entries
 WHERE tenant = %(tenant)s
 ORDER BY id DESC
 LIMIT %(limit)s;

-- name: api_key_insert
INSERT INTO api_keys (id, tenant, name, secret_sha256, scope, expires_at)
VALUES (%(id)s, %(tenant)s, %(name)s, %(secret_sha256)s, %(scope)s,
        now() + make_interval(days => %(expires_after_days)s::integer))
RETURNING id, tenant, name, created_at, scope, expires_at;

-- name: api_key_get
SELECT k.id, k.tenant, k.secret_sha256, k.scope, k.expires_at,
       (k.expires_at IS NOT NULL AND k.expires_at <= now()) AS expired
  FROM api_keys k WHERE k.id = %(id)s AND k.revoked_at IS NULL;

-- name: api_key_touch
-- last_used_at, written at most once a minute per key: an application may call many times a second.
UPDATE api_keys SET last_used_at = now()
 WHERE id = %(id)s AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');

-- name: api_key_list
SELECT id, tenant, name, scope, created_at, last_used_at, expires_at, revoked_at,
       CASE WHEN revoked_at IS NOT NULL THEN 'revoked'
            WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired'
            ELSE 'active' END AS status
  FROM api_keys
 WHERE (%(tenant)s::text IS NULL OR tenant = %(tenant)s::text)
   AND (%(include_revoked)s OR revoked_at IS NULL)
 ORDER BY created_at, id;

-- name: api_key_revoke
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
 WHERE id = %(id)s
RETURNING id, tenant, revoked_at;

-- name: tenant_limits_get
-- The tenant's own upload limits and retention period (NULL: the settings' default).
SELECT uploads_per_minute, max_stored_bytes, retention_days FROM tenants WHERE name = %(name)s;

-- name: tenant_lock_limits
SELECT uploads_per_minute, max_stored_bytes FROM tenants WHERE name = %(name)s FOR NO KEY UPDATE;

-- name: tenant_set_uploads_per_minute
UPDATE tenants SET uploads_per_minute = %(value)s WHERE name = %(name)s;

-- name: tenant_set_retention_days
UPDATE tenants SET retention_days = %(value)s WHERE name = %(name)s;

-- name: tenant_set_max_stored_bytes
UPDATE tenants SET max_stored_bytes = %(value)s WHERE name = %(name)s;

-- name: tenant_stored_bytes
SELECT coalesce(sum(size_bytes), 0)::bigint FROM documents WHERE tenant = %(tenant)s;

-- name: upload_requests_prune
DELETE FROM tenant_upload_requests
 WHERE tenant = %(tenant)s
   AND at <= coalesce(%(now)s::timestamptz, now()) - make_interval(secs => %(window)s);

-- name: upload_requests_in_window
-- Requests in the window, and the seconds until the one that makes it full leaves it.
SELECT count(*),
       extract(epoch FROM (
           SELECT r.at FROM tenant_upload_requests r WHERE r.tenant = %(tenant)s
            ORDER BY r.at DESC OFFSET %(limit)s - 1 LIMIT 1)
           + make_interval(secs => %(window)s) - coalesce(%(now)s::timestamptz, now()))
  FROM tenant_upload_requests
 WHERE tenant = %(tenant)s;

-- name: upload_request_add
INSERT INTO tenant_upload_requests (tenant, at) VALUES (%(tenant)s, coalesce(%(now)s::timestamptz, now()));
