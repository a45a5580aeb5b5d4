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
