import { describe, expect, it } from "vitest";
import { checkOrigin, originCheckUrl, refusedOriginMessage } from "./origin";

const API = "https://api.example.com";

function answering(status: number, body: unknown) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetcher = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return {
      ok: status >= 200 && status < 300,
      json: async () => (typeof body === "string" ? JSON.parse(body) : body),
    };
  };
  return { fetcher, calls };
}

describe("the origin check", () => {
  it("asks the CORS-open route for the site key, without credentials", async () => {
    const { fetcher, calls } = answering(200, { allowed: true });
    expect(await checkOrigin(fetcher, API, "swk_a/b")).toBe("allowed");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe(`${API}/widget/v1/sites/swk_a%2Fb/origin-check`);
    expect(calls[0]?.init.credentials).toBe("omit");
    expect(originCheckUrl(API, "swk_1")).toBe(`${API}/widget/v1/sites/swk_1/origin-check`);
  });

  it("says refused only when the API says so", async () => {
    expect(await checkOrigin(answering(200, { allowed: false }).fetcher, API, "swk_1")).toBe("refused");
  });

  it("is unknown when the check itself fails, so the launcher shows as before", async () => {
    const network = async () => {
      throw new TypeError("Failed to fetch");
    };
    expect(await checkOrigin(network, API, "swk_1")).toBe("unknown");
    expect(await checkOrigin(answering(500, { allowed: false }).fetcher, API, "swk_1")).toBe("unknown");
    expect(await checkOrigin(answering(404, {}).fetcher, API, "swk_1")).toBe("unknown");
    expect(await checkOrigin(answering(200, "not json").fetcher, API, "swk_1")).toBe("unknown");
    expect(await checkOrigin(answering(200, { allowed: "no" }).fetcher, API, "swk_1")).toBe("unknown");
    expect(await checkOrigin(answering(200, null).fetcher, API, "swk_1")).toBe("unknown");
  });

  it("tells the site owner which origin to add, and where", () => {
    expect(refusedOriginMessage("https://x.example")).toBe(
      "Support Desk: this page's origin https://x.example is not allowed for this widget. " +
        "Add it in Settings → Chat widget → Allowed origins. If it is there already, check the script tag's " +
        "data-site-key (an unknown site key gets the same answer).",
    );
  });
});
