import { describe, expect, it, vi } from "vitest";
import { fetchAttachment, uploadAttachment } from "./attachments";
import { type ApiHooks, createApi } from "./client";

const stored = {
  id: "a1",
  name: "shot.png",
  contentType: "image/png",
  size: 3,
  width: 1,
  height: 1,
  hasThumbnail: true,
  url: "/files/w/a1/original?expires=1&signature=s",
  thumbnailUrl: "/files/w/a1/thumbnail?expires=1&signature=t",
  expiresAt: "2026-11-27T10:05:00Z",
};

function setup(answer: (request: Request) => Response) {
  const seen: Request[] = [];
  const hooks: ApiHooks = { token: () => "workspace-token", unauthorized: vi.fn(), accessEnded: vi.fn() };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    seen.push(request);
    return answer(request);
  }) as typeof fetch;
  return { api: createApi("http://api.test", hooks, fetchImpl), seen };
}

describe("attachments through the API client", () => {
  it("upload a file as multipart/form-data with one part named file, with the workspace token", async () => {
    const { api, seen } = setup(() => Response.json(stored, { status: 201 }));
    const file = new File([new Uint8Array([137, 80, 78])], "shot.png", { type: "image/png" });
    await expect(uploadAttachment(api, "c1", file)).resolves.toEqual(stored);
    const request = seen[0]!;
    expect(request.method).toBe("POST");
    expect(new URL(request.url).pathname).toBe("/api/conversations/c1/attachments");
    expect(request.headers.get("Authorization")).toBe("Bearer workspace-token");
    expect(request.headers.get("Content-Type")).toMatch(/^multipart\/form-data; boundary=/);
    const form = await request.formData();
    const part = form.get("file");
    expect(part).toBeInstanceOf(File);
    expect((part as File).name).toBe("shot.png");
    expect(new Uint8Array(await (part as File).arrayBuffer())).toEqual(new Uint8Array([137, 80, 78]));
  });

  it("throw the API's refusal with its detail", async () => {
    const { api } = setup(() =>
      Response.json(
        { type: "about:blank", title: "x", status: 415, code: "file_type_refused", detail: "programs and scripts are refused" },
        { status: 415, headers: { "Content-Type": "application/problem+json" } },
      ),
    );
    const file = new File(["MZ"], "setup.exe");
    await expect(uploadAttachment(api, "c1", file)).rejects.toMatchObject({ status: 415, detail: "programs and scripts are refused" });
  });

  it("ask for a file's fresh links by conversation and id", async () => {
    const { api, seen } = setup(() => Response.json(stored));
    await expect(fetchAttachment(api, "c1", "a1")).resolves.toEqual(stored);
    expect(new URL(seen[0]!.url).pathname).toBe("/api/conversations/c1/attachments/a1");
  });
});
