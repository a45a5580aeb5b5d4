import { describe, expect, it } from "vitest";
import {
  ALREADY_RATED,
  COMMENT_GIVEN,
  COMMENT_SENT,
  commentOutcome,
  commentToSend,
  EXPIRED_LINK,
  INVALID_LINK,
  parseRatingLink,
  rateOutcome,
  ratedSentence,
  REOPENED,
  sentence,
} from "./ratingLink";

const problem = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  status,
  body: { type: `urn:supportdesk:problem:${code}`, title: "Problem", status, detail: `the API says ${code}`, code, ...extra },
});

describe("a rating link's query", () => {
  it("gives the workspace, the token and the score", () => {
    expect(parseRatingLink(new URLSearchParams("w=ws_1&t=abc.def&r=4"))).toEqual({ workspaceId: "ws_1", token: "abc.def", rating: 4 });
    expect(parseRatingLink(new URLSearchParams("r=1&t=x&w=y"))?.rating).toBe(1);
    expect(parseRatingLink(new URLSearchParams("w=y&t=x&r=5"))?.rating).toBe(5);
  });

  it("is incomplete without any of them, or with a score that is not 1 to 5", () => {
    for (const query of ["", "t=x&r=3", "w=y&r=3", "w=y&t=x", "w=&t=x&r=3", "w=y&t=%20&r=3"]) {
      expect(parseRatingLink(new URLSearchParams(query)), query).toBeNull();
    }
    for (const score of ["0", "6", "4.0", "4.5", "-1", "04", "four", "1e0"]) {
      expect(parseRatingLink(new URLSearchParams(`w=y&t=x&r=${score}`)), score).toBeNull();
    }
  });
});

describe("recording the rating", () => {
  it("thanks with the conversation, the team and the score stored", () => {
    const outcome = rateOutcome({
      status: 201,
      body: {
        rating: { id: "r1", rating: 4, comment: null, resolvedAt: "2025-01-01T00:00:00Z", createdAt: "2025-01-01T00:01:00Z" },
        conversationNumber: 12,
        teamName: "Acme Support",
      },
    });
    expect(outcome).toEqual({ kind: "rated", rating: 4, conversationNumber: 12, teamName: "Acme Support" });
    if (outcome.kind !== "rated") throw new Error("not rated");
    expect(ratedSentence(outcome)).toBe("You rated conversation #12 with Acme Support 4 of 5.");
  });

  it("still thanks when the stored rating's answer cannot be read", () => {
    expect(rateOutcome({ status: 201, body: null })).toEqual({ kind: "closed", message: "Thank you! Your rating was recorded.", tone: "status" });
  });

  it("says why a link cannot rate, errors as alerts and conflicts as statuses", () => {
    expect(rateOutcome(problem(409, "already_rated"))).toEqual({ kind: "closed", message: ALREADY_RATED, tone: "status" });
    expect(rateOutcome(problem(409, "nothing_to_rate"))).toEqual({ kind: "closed", message: REOPENED, tone: "status" });
    expect(rateOutcome(problem(410, "link_expired"))).toEqual({ kind: "closed", message: EXPIRED_LINK, tone: "alert" });
    expect(rateOutcome(problem(404, "not_found"))).toEqual({ kind: "closed", message: INVALID_LINK, tone: "alert" });
    expect(rateOutcome(problem(400, "validation_failed", { errors: { rating: ["must be 1 to 5"] } }))).toEqual({
      kind: "closed",
      message: INVALID_LINK,
      tone: "alert",
    });
    expect(rateOutcome(problem(409, "ratings_off"))).toEqual({ kind: "closed", message: "The API says ratings_off.", tone: "alert" });
    expect(rateOutcome({ status: 409, body: null })).toEqual({ kind: "closed", message: "This conversation cannot be rated right now.", tone: "alert" });
  });

  it("offers to try again when busy, offline or failing on the API's side", () => {
    expect(rateOutcome(problem(429, "rate_limited")).kind).toBe("retry");
    expect(rateOutcome({ status: 0, body: null })).toEqual({
      kind: "retry",
      message: "We could not reach our service. Check your connection and try again.",
    });
    expect(rateOutcome({ status: 502, body: null })).toEqual({
      kind: "retry",
      message: "Something went wrong on our side (error 502). Please try again.",
    });
  });
});

describe("the API's messages", () => {
  it("read as sentences", () => {
    expect(sentence("this rating link has expired")).toBe("This rating link has expired.");
    expect(sentence(" Done! ")).toBe("Done!");
    expect(sentence("  ")).toBeNull();
  });
});

describe("adding a comment", () => {
  it("sends the draft trimmed, and nothing when it is blank", () => {
    expect(commentToSend("  Quick and kind \n")).toBe("Quick and kind");
    expect(commentToSend(" \n\t ")).toBeNull();
  });

  it("confirms once sent, and when it had been sent already", () => {
    expect(commentOutcome({ status: 200, body: { id: "r1", rating: 4, comment: "Quick" } })).toEqual({ kind: "done", message: COMMENT_SENT });
    expect(commentOutcome(problem(409, "comment_given"))).toEqual({ kind: "done", message: COMMENT_GIVEN });
  });

  it("shows the API's reason beside the field when it refuses the text", () => {
    expect(commentOutcome(problem(400, "validation_failed", { errors: { comment: ["a comment is at most 2000 characters"] } }))).toEqual({
      kind: "invalid",
      message: "A comment is at most 2000 characters.",
    });
    expect(commentOutcome(problem(400, "malformed_json"))).toEqual({ kind: "invalid", message: "The API says malformed_json." });
    expect(commentOutcome({ status: 400, body: null }).kind).toBe("invalid");
  });

  it("gives up when the link no longer allows it, and keeps the form when trying again may work", () => {
    expect(commentOutcome(problem(404, "not_found"))).toEqual({ kind: "closed", message: INVALID_LINK });
    expect(commentOutcome(problem(410, "link_expired"))).toEqual({
      kind: "closed",
      message: "This rating link has expired. Your rating counts, but the comment could not be sent.",
    });
    expect(commentOutcome(problem(409, "nothing_to_rate"))).toEqual({ kind: "closed", message: "The API says nothing_to_rate." });
    expect(commentOutcome(problem(429, "rate_limited")).kind).toBe("retry");
    expect(commentOutcome({ status: 0, body: null }).kind).toBe("retry");
    expect(commentOutcome({ status: 500, body: null }).kind).toBe("retry");
  });
});
