-- The email channel's forwarding address of each workspace is `<slug>.<inbound_tag>@` the
-- deployment's INBOUND_EMAIL_DOMAIN. The slug finds the workspace; the random tag keeps the
-- address from being guessed from the slug, so only those the workspace gave it to can put
-- mail into its inbox through the operator's MTA.
ALTER TABLE public.workspaces
    ADD COLUMN inbound_tag text NOT NULL DEFAULT substr(md5(gen_random_uuid()::text), 1, 10);
