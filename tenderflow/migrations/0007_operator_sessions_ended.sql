-- Operator sessions ended by logout before their cookie expires (review D9): the cookie is signed
-- and stateless, so the server remembers the ended ones until they would have expired anyway.
CREATE TABLE operator_sessions_ended (
    nonce       text PRIMARY KEY CHECK (length(nonce) <= 100),
    expires_at  timestamptz NOT NULL
);
