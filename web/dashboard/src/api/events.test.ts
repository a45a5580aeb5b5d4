import { describe, expect, it, vi } from "vitest";
import { type ApiHooks, createApi } from "./client";
import { fetchEventPage } from "./events";

function setup(answer: () => Response) {
  const seen: Request[] = [];
  const hooks: ApiHooks = { token: () => "workspace-token", unauthorized: vi.fn(), accessEnded: vi.fn() };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    seen.push(request);
    return answer();
  }) as typeof fetch;
  return { api: createApi("http://api.test", hooks, fetchImpl), seen };
}

describe("GET /api/events", () => {
  it("asks for the page after a seq with the workspace token, or for a cursor from now", async () => {
    const page = { events: [], nextAfter: 12, head: 12 };
    const { api, seen } = setup(() => Response.json(page));
    await expect(fetchEventPage(api, 12, 500)).resolves.toEqual(page);
    expect(new URL(seen[0]!.url).search).toBe("?after=12&limit=500");
    expect(seen[0]!.headers.get("Authorization")).toBe("Bearer workspace-token");
    await fetchEventPage(api, null, 500);
    expect(new URL(seen[1]!.url).search).toBe("?limit=500");
  });

  it("throws 410 as an ApiError with that status", async () => {
    const { api } = setup(
      () =>
        new Response(JSON.stringify({ status: 410, code: "events_expired", detail: "older than the log keeps" }), {
          status: 410,
          headers: { "Content-Type": "application/problem+json" },
        }),
    );
    await expect(fetchEventPage(api, 1, 500)).rejects.toMatchObject({ status: 410, detail: "older than the log keeps" });
  });
});
