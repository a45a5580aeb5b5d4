import { describe, expect, it } from "vitest";
import { invitationSentence } from "./invitationSentence";

describe("invitationSentence", () => {
  it("names the inviter, the workspace and the role", () => {
    expect(
      invitationSentence({ invitedBy: { displayName: "Olivia Smith" }, workspaceName: "Acme Support", role: "agent" }),
    ).toBe("Olivia Smith invited you to join Acme Support as Agent");
    expect(invitationSentence({ invitedBy: { displayName: "Olivia" }, workspaceName: "Acme", role: "admin" })).toBe(
      "Olivia invited you to join Acme as Owner",
    );
  });

  it("does without an inviter (sent with an API key) or a blank name", () => {
    expect(invitationSentence({ invitedBy: null, workspaceName: "Acme", role: "agent" })).toBe(
      "You are invited to join Acme as Agent",
    );
    expect(invitationSentence({ invitedBy: { displayName: "  " }, workspaceName: "Acme", role: "agent" })).toBe(
      "You are invited to join Acme as Agent",
    );
  });
});
