import { describe, expect, it } from "vitest";
import { asksForChat, badgeText, launcherLabel, withoutChatFragment } from "./launcher";

describe("the launcher", () => {
  it("names the unread count for screen readers", () => {
    expect(launcherLabel(false, 0)).toBe("Open chat");
    expect(launcherLabel(false, 1)).toBe("Open chat, 1 unread message");
    expect(launcherLabel(false, 2)).toBe("Open chat, 2 unread messages");
    expect(launcherLabel(true, 3)).toBe("Close chat");
  });

  it("shows a short badge", () => {
    expect(badgeText(0)).toBe("");
    expect(badgeText(1)).toBe("1");
    expect(badgeText(9)).toBe("9");
    expect(badgeText(12)).toBe("9+");
  });

  it("opens the chat for the link in reply emails only", () => {
    expect(asksForChat("#supportdesk-chat")).toBe(true);
    expect(asksForChat("")).toBe(false);
    expect(asksForChat("#supportdesk-chat-x")).toBe(false);
    expect(asksForChat("#top")).toBe(false);
  });
});

describe("the page address the chat reports", () => {
  it("drops only the fragment that opened the chat", () => {
    expect(withoutChatFragment("https://shop.example/cart#supportdesk-chat")).toBe("https://shop.example/cart");
    expect(withoutChatFragment("https://shop.example/cart#reviews")).toBe("https://shop.example/cart#reviews");
    expect(withoutChatFragment("https://shop.example/")).toBe("https://shop.example/");
  });
});
