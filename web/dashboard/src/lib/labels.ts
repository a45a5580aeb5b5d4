// How statuses and priorities read to people, in one place, so a ticket, a conversation and a
// filter never name the same value two ways. The API's values are lower-case words; "no
// priority" is null in the API and reads "None".

import type { ConversationStatus, Priority, TicketStatus } from "@/api/types";

const STATUS_LABELS: Readonly<Record<TicketStatus | ConversationStatus, string>> = {
  open: "Open",
  pending: "Pending",
  resolved: "Resolved",
  closed: "Closed",
};

const PRIORITY_LABELS: Readonly<Record<Priority, string>> = {
  urgent: "Urgent",
  high: "High",
  medium: "Medium",
  low: "Low",
};

export const NO_PRIORITY_LABEL = "None";

/** Priorities from the most pressing down, as menus list them ("None" comes last, apart). */
export const PRIORITIES_BY_URGENCY: readonly Priority[] = ["urgent", "high", "medium", "low"];

/** "pending" -> "Pending", for a ticket's or a conversation's status. */
export function statusLabel(status: TicketStatus | ConversationStatus): string {
  return STATUS_LABELS[status];
}

/** "urgent" -> "Urgent"; no priority (null or absent) -> "None". */
export function priorityLabel(priority: Priority | null | undefined): string {
  return priority ? PRIORITY_LABELS[priority] : NO_PRIORITY_LABEL;
}
