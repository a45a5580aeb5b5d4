-- Visitors of the chat widget become contacts before anyone knows their email: an anonymous
-- visitor is one contact per `visitor_id` (minted by the API, kept by the visitor's browser),
-- an identified one (the customer's site vouches for them) one contact per `external_id`.
ALTER TABLE contacts
    ALTER COLUMN email DROP NOT NULL,
    ADD COLUMN visitor_id         uuid,
    ADD COLUMN external_id        text,
    -- True when the customer's server signed the identity (HMAC): only such a contact may be
    -- reached again by its external id once verification is on.
    ADD COLUMN identity_verified  boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT contacts_visitor_id_key UNIQUE (visitor_id),
    ADD CONSTRAINT contacts_external_id_key UNIQUE (external_id),
    ADD CONSTRAINT contacts_named_somehow
        CHECK (email IS NOT NULL OR visitor_id IS NOT NULL OR external_id IS NOT NULL);

-- A visitor's open conversation: the newest of the contact's that is not resolved.
CREATE INDEX conversations_contact_created ON conversations (contact_id, created_at DESC);
