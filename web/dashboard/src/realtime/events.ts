// Payloads of the hub's server -> client events (REALTIME.md, "Events").
import type { Conversation, Message } from "@/api/types";

export interface MessageCreated {
  conversationId: string;
  message: Message & { author?: { displayName: string; avatarUrl?: string | null } | null };
}

export type ConversationCreated = Conversation;
export type ConversationUpdated = Conversation;

export interface TypingEvent {
  conversationId: string;
  isTyping: boolean;
  by: "agent" | "visitor";
  agentId?: string | null;
  displayName?: string | null;
}

export interface PresenceChanged {
  agentId: string;
  presence: "online" | "offline";
}
