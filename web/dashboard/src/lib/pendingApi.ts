// Temporary: `GET /api/tickets?requesterId=` is not in the generated schema yet. This file goes
// once the API's OpenAPI document has the filter and `npm run gen:api` regenerated schema.ts:
// the call then takes `requesterId` directly.

import type { operations } from "@/api/schema";

type TicketQuery = NonNullable<operations["getApiTickets"]["parameters"]["query"]>;

/** The query of a contact's tickets. */
export function requesterTicketsQuery(requesterId: string, limit: number): TicketQuery {
  return { requesterId, limit } as TicketQuery;
}
