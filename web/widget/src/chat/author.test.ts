import { describe, expect, it } from "vitest";
import { agentLook, initials } from "./author";

describe("the author of a reply", () => {
  it("takes initials from the first and last word", () => {
    expect(initials("Ana")).toBe("A");
    expect(initials("ana maria lopez")).toBe("AL");
    expect(initials("  Ólafur   Arnalds ")).toBe("ÓA");
    expect(initials("")).toBe("?");
  });

  it("shows the agent's picture only over https, and a name always", () => {
    expect(agentLook({ author: { displayName: "Ana Lopez", avatarUrl: "https://cdn.example/a.png" } })).toEqual({
      name: "Ana Lopez",
      avatarUrl: "https://cdn.example/a.png",
      initials: "AL",
    });
    expect(agentLook({ author: { displayName: "Ana Lopez", avatarUrl: "http://cdn.example/a.png" } }).avatarUrl).toBeNull();
    expect(agentLook({ author: null })).toEqual({ name: "Support", avatarUrl: null, initials: "S" });
  });
});
