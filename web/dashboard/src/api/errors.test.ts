import { describe, expect, it } from "vitest";
import { accessEnded, ApiError, errorDetail, toApiError } from "./errors";

describe("problem details", () => {
  it("carry detail, code, status and field errors", () => {
    const error = toApiError(400, {
      type: "urn:supportdesk:problem:validation_failed",
      title: "Bad Request",
      status: 400,
      detail: "the request has invalid fields",
      code: "validation_failed",
      errors: { password: ["must contain a digit"] },
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.detail).toBe("the request has invalid fields");
    expect(error.code).toBe("validation_failed");
    expect(error.errors).toEqual({ password: ["must contain a digit"] });
    expect(errorDetail(error)).toBe("the request has invalid fields");
  });

  it("fall back to a readable message for bodies that are not problems", () => {
    expect(toApiError(502, "<html>Bad gateway</html>").detail).toBe("The Support Desk API answered with an error (502).");
    expect(toApiError(404, { title: "Not Found" }).detail).toBe("Not Found");
  });

  it("say when to retry a rate-limited request", () => {
    const headers = new Headers({ "Retry-After": "30" });
    const error = toApiError(429, { detail: "too many attempts", code: "rate_limited" }, headers);
    expect(errorDetail(error)).toBe("too many attempts Try again in 30 s.");
  });

  it("tell an ended membership from a forbidden action", () => {
    expect(accessEnded(toApiError(403, { detail: "deactivated", code: "membership_deactivated" }))).toBe(true);
    expect(accessEnded(toApiError(403, { detail: "owners only", code: "owner_only" }))).toBe(false);
  });
});
