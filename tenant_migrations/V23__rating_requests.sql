-- Rating links emailed to a customer whose email conversation was resolved (CSAT by email):
-- one row per resolution, whose token lets its holder rate that resolution once within 7
-- days, and then add a comment. The token is HMAC(EMAIL_TOKEN_SECRET, purpose || nonce)
-- (`supportdesk_core::email_tokens`): a row keeps the nonce, for the worker to write the
-- email, and the token's SHA-256, for the API to find the row; never the token.
CREATE TABLE rating_requests (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    -- The resolution the links rate.
    resolved_at      timestamptz NOT NULL,
    nonce            bytea NOT NULL,
    token_hash       bytea NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    -- The rating made with the link: set, the link is used.
    rating_id        uuid REFERENCES conversation_ratings (id) ON DELETE SET NULL,
    CONSTRAINT rating_requests_once_per_resolution UNIQUE (conversation_id, resolved_at),
    CONSTRAINT rating_requests_token_hash_key UNIQUE (token_hash)
);
