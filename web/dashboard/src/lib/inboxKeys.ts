// Query keys of the inbox's own reads, under the workspace's prefix (see api/keys.ts) so that
// leaving the workspace drops them and a reload of the workspace refetches them.

export const inboxKeys = {
  counts: (ws: string) => ["ws", ws, "inbox-counts"] as const,
  activity: (ws: string, conversationId: string) => ["ws", ws, "activity", conversationId] as const,
  contact: (ws: string, contactId: string) => ["ws", ws, "contact", contactId] as const,
  contactTickets: (ws: string, contactId: string) => ["ws", ws, "contact-tickets", contactId] as const,
  contactConversations: (ws: string, contactId: string) => ["ws", ws, "contact-conversations", contactId] as const,
};
