// The conversation as a thread: messages grouped by consecutive author, and activity lines
// ("Olivia assigned Tom") from the conversation's event log merged in time order. Pure.

import type { components } from "@/api/schema";
import type { Message } from "@/api/types";
import { ratingSentence } from "./ratings";

type Schemas = components["schemas"];

/** One line of activity, as GET /api/conversations/{id}/activity gives it. */
export type ActivityEvent = Schemas["LoggedEvent"];

export interface MessageGroup {
  kind: "messages";
  key: string;
  /** `incoming` for the contact; `agent:<id>` (or `agent:`) for an agent's replies; notes apart. */
  author: string;
  messageKind: Message["kind"];
  messages: Message[];
}

export interface ActivityLine {
  kind: "activity";
  key: string;
  at: string;
  event: ActivityEvent;
}

export type ThreadItem = MessageGroup | ActivityLine;

/** Messages this close in time (5 minutes) from the same author share a group. */
const GROUP_WINDOW_MS = 5 * 60_000;

function authorOf(message: Message): string {
  if (message.kind === "incoming") return "incoming";
  return `${message.kind}:${message.authorAgentId ?? ""}`;
}

/**
 * Messages (oldest first) and activity events merged in time order, consecutive messages of one
 * author grouped. An activity line between two messages splits their group. Events at the same
 * instant as a message come after it.
 */
export function buildThread(messages: readonly Message[], events: readonly ActivityEvent[]): ThreadItem[] {
  const items: ThreadItem[] = [];
  const sortedEvents = [...events].sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt) || a.seq - b.seq);
  let e = 0;
  const pushEventsUpTo = (limit: number) => {
    while (e < sortedEvents.length && Date.parse(sortedEvents[e]!.occurredAt) < limit) {
      const event = sortedEvents[e++]!;
      items.push({ kind: "activity", key: `event-${event.id}`, at: event.occurredAt, event });
    }
  };
  for (const message of messages) {
    const at = Date.parse(message.createdAt);
    pushEventsUpTo(at);
    const last = items[items.length - 1];
    const author = authorOf(message);
    const previous = last?.kind === "messages" ? last.messages[last.messages.length - 1] : undefined;
    if (last?.kind === "messages" && last.author === author && previous && at - Date.parse(previous.createdAt) <= GROUP_WINDOW_MS) {
      last.messages.push(message);
    } else {
      items.push({ kind: "messages", key: `group-${message.id}`, author, messageKind: message.kind, messages: [message] });
    }
  }
  pushEventsUpTo(Infinity);
  return items;
}

/** How an actor is named in an activity line. */
export type NameOf = (agentId: string | null | undefined) => string;

function field(data: unknown, name: string): unknown {
  return data && typeof data === "object" ? (data as Record<string, unknown>)[name] : undefined;
}

function actorName(event: ActivityEvent, nameOf: NameOf): string {
  switch (event.actor.kind) {
    case "agent":
      return nameOf(event.actor.id);
    case "visitor":
      return "The visitor";
    case "apiKey":
      return "An integration";
    default:
      return "Support Desk";
  }
}

/**
 * The sentence of an activity line: "Olivia assigned Tom", "Olivia resolved the conversation",
 * "The customer rated 4 of 5". Null for an event it does not describe.
 */
export function activitySentence(event: ActivityEvent, nameOf: NameOf, meId: string | null = null): string | null {
  const who = actorName(event, nameOf);
  const data: unknown = event.data;
  switch (event.type) {
    case "conversation.created":
      return event.actor.kind === "visitor" ? "The visitor started the conversation" : `${who} started the conversation`;
    case "ticket.created": {
      const number = field(data, "number");
      return typeof number === "number" ? `${who} created ticket #${number}` : `${who} created a ticket`;
    }
    case "conversation.updated": {
      const change = field(data, "change");
      if (change === "status") {
        const status = field(data, "status");
        if (status === "resolved") return `${who} resolved the conversation`;
        if (status === "pending") return `${who} marked the conversation pending`;
        return `${who} reopened the conversation`;
      }
      if (change === "assignee") {
        const assignee = field(data, "assigneeId");
        if (typeof assignee !== "string") return `${who} unassigned the conversation`;
        if (event.actor.kind === "agent" && event.actor.id === assignee) return `${who} took the conversation`;
        return `${who} assigned ${assignee === meId ? "you" : nameOf(assignee)}`;
      }
      if (change === "priority") {
        const priority = field(data, "priority");
        return typeof priority === "string" ? `${who} set the priority to ${priority}` : `${who} cleared the priority`;
      }
      if (change === "labels") {
        const labels = field(data, "labels");
        const names = Array.isArray(labels) ? labels.map((label: unknown) => field(label, "name")).filter((n): n is string => typeof n === "string") : [];
        return names.length > 0 ? `${who} set the labels to ${names.join(", ")}` : `${who} removed the labels`;
      }
      if (change === "contact") {
        const contact = field(data, "contact");
        const name = field(contact, "name") ?? field(contact, "email") ?? field(contact, "claimedEmail");
        return typeof name === "string" ? `${who} signed in as ${name}` : `${who} signed in`;
      }
      return null;
    }
    case "conversation.rated": {
      const rating = field(data, "rating");
      const score = field(rating, "rating");
      const comment = field(rating, "comment");
      if (typeof score !== "number") return null;
      return ratingSentence({ rating: score, comment: typeof comment === "string" ? comment : null });
    }
    default:
      return null;
  }
}
