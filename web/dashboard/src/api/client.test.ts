import { describe, expect, it, vi } from "vitest";
import { type ApiHooks, createApi, unwrap } from "./client";
import { ApiError } from "./errors";

function problem(status: number, code: string, detail: string): Response {
  return new Response(JSON.stringify({ type: `urn:supportdesk:problem:${code}`, title: "x", status, detail, code }), {
    status,
    headers: { "Content-Type": "application/problem+json" },
  });
}

function setup(answer: (request: Request) => Response | Promise<Response>) {
  const seen: Request[] = [];
  const hooks = {
    token: vi.fn<ApiHooks["token"]>((credential) => (credential === "user" ? "user-token" : "workspace-token")),
    unauthorized: vi.fn<ApiHooks["unauthorized"]>(),
    accessEnded: vi.fn<ApiHooks["accessEnded"]>(),
  };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    seen.push(request);
    return answer(request);
  }) as typeof fetch;
  return { api: createApi("http://api.test", hooks, fetchImpl), hooks, seen };
}

describe("the API client", () => {
  it("sends the credential of its view, and returns the data", async () => {
    const { api, seen } = setup(() => Response.json({ workspaces: [] }));
    await expect(unwrap(api.user.GET("/workspaces"))).resolves.toEqual({ workspaces: [] });
    expect(seen[0]?.headers.get("Authorization")).toBe("Bearer user-token");
    await unwrap(api.workspace.GET("/api/agents"));
    expect(seen[1]?.headers.get("Authorization")).toBe("Bearer workspace-token");
    await unwrap(api.anon.POST("/auth/forgot-password", { body: { email: "a@example.com" } }));
    expect(seen[2]?.headers.has("Authorization")).toBe(false);
  });

  it("throws problems as ApiError with their detail", async () => {
    const { api, hooks } = setup(() => problem(409, "email_taken", "that email is already registered"));
    const call = unwrap(api.anon.POST("/auth/register", { body: { email: "a@example.com", password: "x", fullName: "A" } }));
    await expect(call).rejects.toMatchObject({ status: 409, code: "email_taken", detail: "that email is already registered" });
    expect(hooks.unauthorized).not.toHaveBeenCalled();
  });

  it("ends the session on a 401 to a call that sent a token, not on a failed login", async () => {
    const { api, hooks } = setup(() => problem(401, "unauthorized", "token expired"));
    await expect(unwrap(api.user.GET("/auth/me"))).rejects.toBeInstanceOf(ApiError);
    expect(hooks.unauthorized).toHaveBeenCalledWith("user");
    hooks.unauthorized.mockClear();
    await expect(unwrap(api.anon.POST("/auth/login", { body: { email: "a@example.com", password: "x" } }))).rejects.toMatchObject({ status: 401 });
    expect(hooks.unauthorized).not.toHaveBeenCalled();
  });

  it("leaves the workspace on a 403 saying the membership ended, not on a forbidden action", async () => {
    const deactivated = setup(() => problem(403, "membership_deactivated", "your access to this workspace has been deactivated"));
    await expect(unwrap(deactivated.api.workspace.GET("/api/conversations"))).rejects.toMatchObject({ status: 403 });
    expect(deactivated.hooks.accessEnded).toHaveBeenCalledWith("your access to this workspace has been deactivated");
    const forbidden = setup(() => problem(403, "owner_only", "only Owners can do that"));
    await expect(unwrap(forbidden.api.workspace.GET("/api/settings"))).rejects.toMatchObject({ detail: "only Owners can do that" });
    expect(forbidden.hooks.accessEnded).not.toHaveBeenCalled();
  });

  it("ignores a refusal of a token the tab has since replaced (renewed, or another workspace selected)", async () => {
    let workspaceToken = "workspace-a";
    const late403 = setup(() => {
      workspaceToken = "workspace-b"; // another workspace was selected while the call was in flight
      return problem(403, "not_a_member", "you are no longer a member of this workspace");
    });
    late403.hooks.token.mockImplementation(() => workspaceToken);
    await expect(unwrap(late403.api.workspace.GET("/api/agents"))).rejects.toMatchObject({ status: 403 });
    expect(late403.hooks.accessEnded).not.toHaveBeenCalled();

    let userToken = "user-old";
    const late401 = setup(() => {
      userToken = "user-renewed"; // renewed while the call was in flight
      return problem(401, "unauthorized", "token expired");
    });
    late401.hooks.token.mockImplementation(() => userToken);
    await expect(unwrap(late401.api.user.GET("/auth/me"))).rejects.toMatchObject({ status: 401 });
    expect(late401.hooks.unauthorized).not.toHaveBeenCalled();
  });

  it("turns a network failure into an ApiError a person can read", async () => {
    const { api } = setup(() => {
      throw new TypeError("fetch failed");
    });
    await expect(unwrap(api.user.GET("/workspaces"))).rejects.toMatchObject({ status: 0, code: "network" });
  });
});
