import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, visitorApi } from "./api";

const stored = {
  id: "f1",
  name: "invoice.pdf",
  contentType: "application/pdf",
  size: 4,
  hasThumbnail: false,
  url: "/files/w/f1/original?expires=1&signature=s",
  expiresAt: "2026-11-27T10:05:00Z",
};

function answering(response: () => Response) {
  const seen: Request[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init));
    return response();
  });
  return seen;
}

afterEach(() => vi.unstubAllGlobals());

describe("the visitor API's files", () => {
  it("upload a file as multipart/form-data with one part named file, and the visitor token", async () => {
    const seen = answering(() => Response.json(stored, { status: 201 }));
    const file = new File(["%PDF"], "invoice.pdf", { type: "application/pdf" });
    await expect(visitorApi("http://api.test").upload("visitor-token", file)).resolves.toEqual(stored);
    const request = seen[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("http://api.test/widget/v1/attachments");
    expect(request.headers.get("Authorization")).toBe("Bearer visitor-token");
    expect(request.headers.get("Content-Type")).toMatch(/^multipart\/form-data; boundary=/);
    const part = (await request.formData()).get("file") as File;
    expect(part.name).toBe("invoice.pdf");
    expect(await part.text()).toBe("%PDF");
  });

  it("send a message with its files by id, and without the field when there are none", async () => {
    const seen = answering(() => Response.json({ conversationId: "c1", message: {} }, { status: 201 }));
    const api = visitorApi("http://api.test");
    await api.send("t", "", ["f1", "f2"]);
    await api.send("t", "Hello");
    expect(await seen[0]!.json()).toEqual({ body: "", attachmentIds: ["f1", "f2"] });
    expect(await seen[1]!.json()).toEqual({ body: "Hello" });
  });

  it("ask for a file's fresh links", async () => {
    const seen = answering(() => Response.json(stored));
    await visitorApi("http://api.test").attachment("t", "f1");
    expect(seen[0]!.url).toBe("http://api.test/widget/v1/attachments/f1");
    expect(seen[0]!.method).toBe("GET");
  });

  it("refuse with the API's detail and its Retry-After", async () => {
    answering(() =>
      Response.json(
        { title: "Too Many Requests", status: 429, detail: "you have sent too many files; try again later" },
        { status: 429, headers: { "Retry-After": "120" } },
      ),
    );
    const upload = visitorApi("http://api.test").upload("t", new File(["x"], "a.txt"));
    await expect(upload).rejects.toBeInstanceOf(ApiError);
    await expect(upload).rejects.toMatchObject({ problem: { status: 429, detail: "you have sent too many files; try again later", retryAfter: 120 } });
  });
});

describe("the visitor API's business hours", () => {
  it("read whether the team is in, and until when, with the visitor token", async () => {
    const seen = answering(() => Response.json({ open: false, changesAt: "2030-01-02T08:00:00Z", typicalReplySeconds: 1800 }));
    await expect(visitorApi("http://api.test").availability("visitor-token")).resolves.toEqual({
      open: false,
      changesAt: "2030-01-02T08:00:00Z",
      typicalReplySeconds: 1800,
    });
    expect(seen[0]!.method).toBe("GET");
    expect(seen[0]!.url).toBe("http://api.test/widget/v1/availability");
    expect(seen[0]!.headers.get("Authorization")).toBe("Bearer visitor-token");
  });
});
