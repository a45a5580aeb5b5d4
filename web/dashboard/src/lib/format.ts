import type { Conversation } from "@/api/types";

/** How a conversation's contact is named: name, else email, else "Visitor". */
export function contactName(conversation: Pick<Conversation, "contact">): string {
  return conversation.contact.name || conversation.contact.email || "Visitor";
}

/** "pending" -> "Pending", for enum values shown as options. */
export function capitalize(value: string): string {
  return value ? value[0]!.toUpperCase() + value.slice(1) : value;
}
