// Temporary: a request shape the API is gaining and `schema.ts` does not have yet. Delete this
// file once `npm run gen:api` generates it.
//
// POST /api/tickets with a `conversationId` and no `requester`: the ticket's requester is the
// conversation's contact (no email needed when the contact has none).

import type { components } from "@/api/schema";

type CreateTicket = components["schemas"]["CreateTicket"];

export type CreateTicketFromConversation = Omit<CreateTicket, "requester" | "conversationId"> & { conversationId: string };

/** The body as the generated client types it, until `requester` is optional there. */
export function asCreateTicket(body: CreateTicketFromConversation): CreateTicket {
  return body as unknown as CreateTicket;
}
