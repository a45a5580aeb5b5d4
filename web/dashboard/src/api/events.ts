// GET /api/events, the workspace's event log (see realtime/events.ts for what it holds),
// through the one typed API client (its path and query generated from /openapi.json): the
// workspace token, and a 401 or a 403 ending access handled like any other call's.

import type { EventPage } from "@/realtime/events";
import type { Api } from "./client";
import { unwrap } from "./client";

/** A page of the log after `after` (null: none, a cursor from now); throws ApiError (410: gone). */
export async function fetchEventPage(api: Api, after: number | null, limit: number): Promise<EventPage> {
  const query = after === null ? { limit } : { after, limit };
  const page = await unwrap(api.workspace.GET("/api/events", { params: { query } }));
  // The generated page types `data` as unknown; realtime/events.ts pairs each `type` with its
  // generated data schema.
  return page as EventPage;
}
