-- The workspace's business hours (`business_hours::schedule`): its time zone, weekly openings
-- and holidays, as the API shows them. Null until an Owner sets them: open around the clock.
ALTER TABLE settings ADD COLUMN business_hours jsonb;
