\set c :client_id % 16 + 1
BEGIN;
UPDATE w1.conversations c SET last_message_at = greatest(c.last_message_at, now()), updated_at = now() FROM w1.agent_profiles a, w1.contacts ct, w1.settings s WHERE c.id = md5(:c::text)::uuid AND a.user_id = '11111111-1111-1111-1111-111111111111' AND ct.id = c.contact_id RETURNING c.contact_id, c.assignee_id, c.channel = 'email' AS by_email, a.id AS agent_id, a.display_name, a.avatar_url, (s.inbox ->> 'autoAssignOnReply')::boolean AS auto_assign, c.updated_at AS now;
INSERT INTO w1.messages (id, conversation_id, kind, body, author_agent_id, created_at) VALUES (gen_random_uuid(), md5(:c::text)::uuid, 'outgoing', 'hello there', '33333333-3333-3333-3333-333333333333', now());
END;
