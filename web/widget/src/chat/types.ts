// Shapes of the visitor API and hub events (REALTIME.md, "Widget API" and "Events"), written by
// hand after the API's OpenAPI document: each names its schema there.

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

/** `VisitorRating`: the visitor's rating of a resolution. */
export interface VisitorRating {
  /** 1 (very unhappy) to 5 (very happy). */
  rating: number;
  comment: string | null;
}

/**
 * `VisitorConversation`: the current conversation, open or resolved less than 7 days ago (the
 * visitor's next message reopens it).
 */
export interface Conversation {
  id: string;
  number: number;
  status: ConversationStatus;
  createdAt: string;
  /** When it was resolved; null unless it is. */
  resolvedAt: string | null;
  /** The rating of this resolution; null until the visitor gives one. */
  rating: VisitorRating | null;
  /** Resolved, the workspace asks for ratings, and this resolution is not rated yet. */
  askForRating: boolean;
  messages: Message[];
}

/** `NewRating`: the body of `POST /widget/v1/conversation/rating`. */
export interface NewRating {
  rating: number;
  /** At most 2,000 characters, trimmed; absent or empty is none. */
  comment?: string;
}

/** `Rating`: a rating as stored, the answer to `POST /widget/v1/conversation/rating`. */
export interface Rating {
  id: string;
  rating: number;
  comment: string | null;
  /** The resolution rated. */
  resolvedAt: string;
  createdAt: string;
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

/** `Availability`: whether the team is within its business hours (`GET /widget/v1/availability`). */
export interface Availability {
  open: boolean;
  /** When that next changes (RFC 3339); null when it never does (e.g. always open). */
  changesAt: string | null;
  /** The usual first reply of recent conversations, in seconds of business time; null while too few were answered. */
  typicalReplySeconds: number | null;
}

export interface Contact {
  name: string | null;
  email: string | null;
}
