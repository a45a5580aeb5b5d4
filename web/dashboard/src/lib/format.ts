import type { Contact, Conversation } from "@/api/types";

/**
 * How a conversation's contact is named: name, else the email the workspace established,
 * else "Visitor". An address a visitor only typed (`claimedEmail`) never names anyone: it is
 * shown apart, marked unverified (`ContactEmail`).
 */
export function contactName(conversation: Pick<Conversation, "contact">): string {
  return conversation.contact.name || conversation.contact.email || "Visitor";
}

/** A contact's addresses as agents read them: the established one, then a different claim. */
export function contactEmails(contact: Contact): { address: string; claimed: boolean }[] {
  const emails: { address: string; claimed: boolean }[] = [];
  if (contact.email) emails.push({ address: contact.email, claimed: false });
  if (contact.claimedEmail && contact.claimedEmail !== contact.email) {
    emails.push({ address: contact.claimedEmail, claimed: true });
  }
  return emails;
}

/**
 * What "Create ticket" fills in for the requester: the contact's established email and name,
 * and nothing when the workspace has no address for them. A visitor's claim is never filled
 * in: a ticket is filed under whoever owns the address, so a claim would file it under a real
 * customer.
 */
export function requesterDefaults(contact: Contact): { email: string; name: string } {
  return contact.email ? { email: contact.email, name: contact.name ?? "" } : { email: "", name: "" };
}

/** "pending" -> "Pending", for enum values shown as options. */
export function capitalize(value: string): string {
  return value ? value[0]!.toUpperCase() + value.slice(1) : value;
}
