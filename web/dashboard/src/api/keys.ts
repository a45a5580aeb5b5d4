// Query keys. Everything read with a workspace token lives under ["ws", workspaceId, ...], so
// leaving or switching a workspace drops exactly its data.
import type { TicketStatus } from "./types";
import type { InboxFilter } from "@/realtime/reducers";

export interface TicketFilter {
  status: TicketStatus | null;
  assignee: string | null;
}

export const keys = {
  me: ["me"] as const,
  workspaces: ["workspaces"] as const,
  workspace: (ws: string) => ["ws", ws] as const,
  profile: (ws: string) => ["ws", ws, "profile"] as const,
  agents: (ws: string, status: "active" | "all" = "active") => ["ws", ws, "agents", status] as const,
  allAgents: (ws: string) => ["ws", ws, "agents"] as const,
  invitations: (ws: string) => ["ws", ws, "invitations"] as const,
  conversations: (ws: string) => ["ws", ws, "conversations"] as const,
  inbox: (ws: string, filter: InboxFilter) => ["ws", ws, "conversations", filter] as const,
  conversation: (ws: string, id: string) => ["ws", ws, "conversation", id] as const,
  conversationRecords: (ws: string) => ["ws", ws, "conversation"] as const,
  messages: (ws: string, id: string) => ["ws", ws, "messages", id] as const,
  /** One file with its signed links (they expire: see components/attachments). */
  attachment: (ws: string, id: string) => ["ws", ws, "attachment", id] as const,
  typing: (ws: string) => ["ws", ws, "live", "typing"] as const,
  settings: (ws: string) => ["ws", ws, "settings"] as const,
  /** The audit log's pages for one query (`auditQueryString` of its filters). */
  auditLog: (ws: string, query: string) => ["ws", ws, "settings", "audit-log", query] as const,
  allAuditLog: (ws: string) => ["ws", ws, "settings", "audit-log"] as const,
  widget: (ws: string) => ["ws", ws, "settings", "widget"] as const,
  email: (ws: string) => ["ws", ws, "settings", "email"] as const,
  businessHours: (ws: string) => ["ws", ws, "settings", "business-hours"] as const,
  apiKeys: (ws: string) => ["ws", ws, "settings", "api-keys"] as const,
  webhooks: (ws: string) => ["ws", ws, "settings", "webhooks"] as const,
  /** One endpoint's delivery log (pages, newest first). */
  webhookDeliveries: (ws: string, id: string) => ["ws", ws, "settings", "webhook-deliveries", id] as const,
  storage: (ws: string) => ["ws", ws, "settings", "storage"] as const,
  labels: (ws: string) => ["ws", ws, "labels"] as const,
  /** The saved views with their counts (asked again as the inbox changes). */
  views: (ws: string) => ["ws", ws, "views"] as const,
  /** One search's first page (the search box). */
  search: (ws: string, q: string) => ["ws", ws, "search", q] as const,
  canned: (ws: string, q = "") => ["ws", ws, "canned", q] as const,
  allCanned: (ws: string) => ["ws", ws, "canned"] as const,
  tickets: (ws: string, filter?: TicketFilter) =>
    filter ? (["ws", ws, "tickets", filter] as const) : (["ws", ws, "tickets"] as const),
  ticket: (ws: string, id: string) => ["ws", ws, "ticket", id] as const,
  ticketRecords: (ws: string) => ["ws", ws, "ticket"] as const,
  comments: (ws: string, id: string) => ["ws", ws, "comments", id] as const,
};

