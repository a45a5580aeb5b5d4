// Liveness and readiness probe (interface spec: 200 with the text `OK`).
import { healthResponse } from "@supportdesk/shared/health";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return healthResponse();
}
