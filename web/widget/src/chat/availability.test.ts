import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import {
  AVAILABILITY_MAX_WAIT_MS,
  AVAILABILITY_MIN_WAIT_MS,
  AVAILABILITY_RETRY_MS,
  AVAILABILITY_SLACK_MS,
  availabilityRecheckDelay,
  availabilityRetryDelay,
  replyTimeText,
} from "./availability";

const now = Date.parse("2030-01-01T16:30:00Z");
const at = (ms: number) => new Date(now + ms).toISOString();
const problem = (status: number) => new ApiError({ status, detail: "x", retryAfter: null });

describe("reading the business hours again", () => {
  it("reads just after they next begin or end", () => {
    expect(availabilityRecheckDelay(at(30 * 60_000), now)).toBe(30 * 60_000 + AVAILABILITY_SLACK_MS);
    expect(availabilityRecheckDelay("2030-01-01T17:00:00+01:00", now - 3_600_000)).toBe(30 * 60_000 + AVAILABILITY_SLACK_MS);
  });

  it("reads at least hourly: a change days away, none at all, or an unreadable one", () => {
    expect(availabilityRecheckDelay(at(3 * 86_400_000), now)).toBe(AVAILABILITY_MAX_WAIT_MS);
    expect(availabilityRecheckDelay(null, now)).toBe(AVAILABILITY_MAX_WAIT_MS);
    expect(availabilityRecheckDelay("next Monday", now)).toBe(AVAILABILITY_MAX_WAIT_MS);
  });

  it("never reads again at once, even when the change is past", () => {
    expect(availabilityRecheckDelay(at(0), now)).toBe(AVAILABILITY_MIN_WAIT_MS);
    expect(availabilityRecheckDelay(at(-3_600_000), now)).toBe(AVAILABILITY_MIN_WAIT_MS);
  });

  it("retries a failed read soon when it may pass, hourly when it will not", () => {
    for (const status of [0, 401, 408, 429, 500, 503]) expect(availabilityRetryDelay(problem(status))).toBe(AVAILABILITY_RETRY_MS);
    for (const status of [400, 403, 404]) expect(availabilityRetryDelay(problem(status))).toBe(AVAILABILITY_MAX_WAIT_MS);
    expect(availabilityRetryDelay(new SyntaxError("Unexpected token"))).toBe(AVAILABILITY_RETRY_MS);
  });
});

describe("the usual first reply, in words", () => {
  it("rounds to what a person would say", () => {
    expect(replyTimeText(20)).toBe("in under a minute");
    expect(replyTimeText(60)).toBe("in about 1 minute");
    expect(replyTimeText(7 * 60 + 5)).toBe("in about 8 minutes");
    expect(replyTimeText(23 * 60)).toBe("in about 25 minutes");
    expect(replyTimeText(3600)).toBe("in about 1 hour");
    expect(replyTimeText(3 * 3600 + 1200)).toBe("in about 3 hours");
    expect(replyTimeText(2 * 86_400 + 3600)).toBe("in about 2 days");
  });
});
