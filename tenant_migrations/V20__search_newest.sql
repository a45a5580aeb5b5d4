-- A search ranks the newest matches of each type (`search::record::CANDIDATES`): for a common
-- word, walking these backwards finds them without reading every match.
CREATE INDEX messages_newest ON messages (created_at DESC, id DESC);
CREATE INDEX conversations_newest ON conversations (created_at DESC, id DESC);
