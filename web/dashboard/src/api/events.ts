// GET /api/events, the workspace's event log (see realtime/events.ts for what it holds), through
// the one typed API client: the workspace token, and a 401 or a 403 ending access handled like
// any other call's. The path is not in schema.ts yet, so this narrow wrapper types it by hand.
// REPLACE once `npm run gen:api` has it: call
//   api.workspace.GET("/api/events", { params: { query: { after, limit } } })
// where this is used, alias EventPage to components["schemas"]["EventPage"], and delete this file.

import type { Client } from "openapi-fetch";
import type { EventPage } from "@/realtime/events";
import type { Api } from "./client";
import { unwrap } from "./client";
import type { components } from "./schema";

/** `/api/events` as openapi-typescript would write it. */
interface EventLogPaths {
  "/api/events": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        /** The last seq the client applied; absent: a cursor "from now". */
        query?: { after?: number; limit?: number };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: { headers: { [name: string]: unknown }; content: { "application/json": EventPage } };
        /** `after` is older than the log keeps (30 days): reload everything. */
        410: { headers: { [name: string]: unknown }; content: { "application/problem+json": components["schemas"]["Problem"] } };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}

/** A page of the log after `after` (null: none, a cursor from now); throws ApiError (410: gone). */
export function fetchEventPage(api: Api, after: number | null, limit: number): Promise<EventPage> {
  const client = api.workspace as unknown as Client<EventLogPaths>;
  return unwrap(client.GET("/api/events", { params: { query: after === null ? { limit } : { after, limit } } }));
}
