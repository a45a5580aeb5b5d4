-- An email a visitor gives (or an identity carries: its signature covers the external id
-- only) is a claim, kept apart from `email`: `email` is how agents' conversations and tickets
-- find a contact, and a claim must not route someone else's mail into a visitor's widget.
-- Agents see `coalesce(email, claimed_email)`.
ALTER TABLE contacts
    ADD COLUMN claimed_email text,
    ADD CONSTRAINT contacts_claimed_email_normalised
        CHECK (claimed_email = lower(btrim(claimed_email)));

-- Visitors' addresses given before this migration move to the claim.
UPDATE contacts SET claimed_email = email, email = NULL
 WHERE email IS NOT NULL AND (visitor_id IS NOT NULL OR external_id IS NOT NULL);
