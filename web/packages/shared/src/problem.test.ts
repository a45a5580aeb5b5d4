import { describe, expect, it } from "vitest";
import { parseRetryAfter, problemDetail } from "./problem";

describe("problem details", () => {
  it("read Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("30")).toBe(30);
    expect(parseRetryAfter(" 7 ")).toBe(7);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("Tue, 01 Jan 2029 00:01:00 GMT", now)).toBe(0);
  });

  it("show detail, else title, else nothing", () => {
    expect(problemDetail({ title: "Bad Request", detail: "body is required" })).toBe("body is required");
    expect(problemDetail({ title: "Not Found", detail: "" })).toBe("Not Found");
    expect(problemDetail({ title: "" })).toBeNull();
    expect(problemDetail("<html>Bad gateway</html>")).toBeNull();
    expect(problemDetail(null)).toBeNull();
  });
});
