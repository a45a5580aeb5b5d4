// Who a reply on an email conversation goes to, as the reply box shows it. Pure. The API
// chooses the same way when the reply names no recipients: To is the sender of the newest
// email received in the thread, Cc everyone else that email was sent to, without the
// workspace's own addresses (the support address, any at the forwarding domain, with or
// without a `+tag`); with no email received, To is the contact's address. The box sends `to` or
// `cc` only when the agent changed that field, so the API's choice stands otherwise.

import type { Contact, EmailSettings, Message } from "@/api/types";

/** To and Cc of a reply, as addresses. */
export interface Recipients {
  to: string[];
  cc: string[];
}

/** What the workspace's own addresses are known by. */
export interface OwnAddresses {
  /** Addresses that are ours: the support address, the From of our own replies. */
  addresses: readonly string[];
  /** The forwarding domain (every address there is ours); null when unknown. */
  forwardingDomain: string | null;
}

/** The most addresses To or Cc may hold (the API's limit). */
export const MAX_RECIPIENTS = 20;

const normalize = (address: string) => address.trim().toLowerCase();

/** The domain of an address, lower-cased; null without one. */
export function domainOf(address: string): string | null {
  const at = address.lastIndexOf("@");
  const domain = at >= 0 ? normalize(address.slice(at + 1)) : "";
  return domain || null;
}

/** The address without a `+tag` in its local part: `support+a1b2@x.org` -> `support@x.org`. */
export function withoutTag(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 0) return address;
  const plus = address.slice(0, at).indexOf("+");
  return plus < 0 ? address : address.slice(0, plus) + address.slice(at);
}

/**
 * The workspace's own addresses: from the email settings when the agent may read them (Owners),
 * and the From of every reply the thread sent (the support or forwarding address), which any
 * agent sees.
 */
export function ownAddresses(settings: Pick<EmailSettings, "address" | "inboundAddress"> | null | undefined, messages: readonly Message[]): OwnAddresses {
  const addresses = new Set<string>();
  if (settings?.address) addresses.add(normalize(settings.address));
  for (const m of messages) {
    if (m.kind === "outgoing" && m.email?.from.address) addresses.add(normalize(m.email.from.address));
  }
  return { addresses: [...addresses], forwardingDomain: settings?.inboundAddress ? domainOf(settings.inboundAddress) : null };
}

/** Whether `address` is one of the workspace's own (compared without case, and without a `+tag`). */
export function isOwnAddress(address: string, own: OwnAddresses): boolean {
  const candidates = [normalize(address), normalize(withoutTag(address))];
  if (own.forwardingDomain && domainOf(address) === normalize(own.forwardingDomain)) return true;
  return candidates.some((c) => own.addresses.some((a) => normalize(a) === c));
}

/** The newest email the thread received (an incoming message with email details), if any. */
export function newestReceivedEmail(messages: readonly Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.kind === "incoming" && m.email) return m;
  }
  return null;
}

/** To and Cc of a reply as the thread has them (see the top of this file). */
export function threadRecipients(messages: readonly Message[], contact: Pick<Contact, "email" | "claimedEmail">, own: OwnAddresses): Recipients {
  const received = newestReceivedEmail(messages);
  if (!received?.email) {
    const address = contact.email ?? contact.claimedEmail ?? null;
    return { to: address ? [address] : [], cc: [] };
  }
  const to = received.email.from.address;
  const seen = new Set([normalize(to)]);
  const cc: string[] = [];
  for (const party of [...received.email.to, ...received.email.cc]) {
    const key = normalize(party.address);
    if (!key || seen.has(key) || isOwnAddress(party.address, own)) continue;
    seen.add(key);
    cc.push(party.address);
  }
  return { to: [to], cc };
}

/**
 * The addresses a To or Cc field holds: separated by commas, semicolons or line breaks, each
 * trimmed; `Name <address>` gives its address. Empty entries are dropped.
 */
export function parseAddressList(text: string): string[] {
  return text
    .split(/[,;\n]/)
    .map((entry) => {
      const angle = /<([^<>]*)>\s*$/.exec(entry);
      return (angle ? angle[1]! : entry).trim();
    })
    .filter((entry) => entry !== "");
}

/** Addresses as a field shows them: "a@x.org, b@x.org". */
export function formatAddressList(addresses: readonly string[]): string {
  return addresses.join(", ");
}

/** Whether two lists name the same addresses in the same order (without case). */
export function sameAddresses(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((address, i) => normalize(address) === normalize(b[i]!));
}

const ADDRESS_SHAPE = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;".]+$/;

/**
 * What is wrong with a field's addresses before it is sent, in words, or null: an entry that
 * is not shaped like an address, or too many. (The API checks them again.)
 */
export function addressListProblem(addresses: readonly string[], required: boolean): string | null {
  if (required && addresses.length === 0) return "Add at least one address.";
  const bad = addresses.filter((a) => !ADDRESS_SHAPE.test(a));
  if (bad.length === 1) return `"${bad[0]}" is not an email address.`;
  if (bad.length > 1) return `These are not email addresses: ${bad.map((b) => `"${b}"`).join(", ")}.`;
  if (addresses.length > MAX_RECIPIENTS) return `At most ${MAX_RECIPIENTS} addresses.`;
  return null;
}

/**
 * What the reply sends of its recipients: `to` and `cc` each only when the agent edited that
 * field (`edited` holds its text, null when untouched) to other addresses than the thread's.
 * Left out, the API keeps the thread's.
 */
export function chosenRecipients(thread: Recipients, edited: { to: string | null; cc: string | null }): Partial<Recipients> {
  const chosen: Partial<Recipients> = {};
  if (edited.to !== null) {
    const to = parseAddressList(edited.to);
    if (!sameAddresses(to, thread.to)) chosen.to = to;
  }
  if (edited.cc !== null) {
    const cc = parseAddressList(edited.cc);
    if (!sameAddresses(cc, thread.cc)) chosen.cc = cc;
  }
  return chosen;
}
