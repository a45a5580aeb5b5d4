// Shapes of the visitor API and hub events (REALTIME.md, "Widget API" and "Events").

import type { Attachment } from "@supportdesk/shared/attachments";

export type { Attachment };

export type ConversationStatus = "open" | "pending" | "resolved";

export interface Message {
  id: string;
  /** "incoming": written by the visitor; "outgoing": an agent's reply. */
  kind: "incoming" | "outgoing";
  body: string;
  authorAgentId: string | null;
  author: { displayName: string; avatarUrl: string | null } | null;
  createdAt: string;
  /** Its files, with links good for five minutes (absent on older servers). */
  attachments?: Attachment[];
}

export interface Conversation {
  id: string;
  number: number;
  status: ConversationStatus;
  createdAt: string;
  messages: Message[];
}

/** Hub event `MessageCreated`, and the result of SendMessage / POST /widget/v1/messages. */
export interface MessageCreated {
  conversationId: string;
  message: Message;
}

/** Hub event `ConversationUpdated` (a visitor hears the status only). */
export interface ConversationUpdated {
  id: string;
  status: ConversationStatus;
}

/** Hub event `Typing`. */
export interface TypingEvent {
  conversationId: string;
  isTyping: boolean;
  by: "agent" | "visitor";
  agentId: string | null;
  displayName: string | null;
}

export interface Contact {
  name: string | null;
  email: string | null;
}
