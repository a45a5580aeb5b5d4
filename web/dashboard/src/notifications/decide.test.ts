import { describe, expect, it } from "vitest";
import type { Contact, Conversation } from "@/api/types";
import type { HubConversation, HubMessageCreated } from "@/realtime/events";
import {
  alertFor,
  deliveryFor,
  mentions,
  type NotifiableEvent,
  offerPermission,
  openConversationFromPath,
  shouldRing,
  titleWithUnread,
  TONE_INTERVAL_MS,
  unreadTotal,
  type Viewer,
} from "./decide";

const ME = "00000000-0000-0000-0000-00000000000a";
const OTHER = "00000000-0000-0000-0000-00000000000b";
const CONV = "00000000-0000-0000-0000-0000000000c1";

const contact: Contact = { id: "00000000-0000-0000-0000-0000000000d1", displayName: "Teal Otter", name: null };

const viewer: Viewer = { meId: ME, myDisplayName: "Ann Lee", openConversationId: null, tabVisible: true };

function conversation(overrides: Partial<Conversation> = {}): Conversation {
  return {
    id: CONV,
    number: 1,
    channel: "chat",
    contact,
    status: "open",
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
    lastMessageAt: "2026-01-01T00:00:00Z",
    assigneeId: null,
    ...overrides,
  };
}

function created(overrides: Partial<Conversation> = {}): NotifiableEvent {
  const payload: HubConversation = { ...conversation(overrides), seq: 1 };
  return { name: "ConversationCreated", payload };
}

function message(kind: "incoming" | "outgoing" | "note", body: string, authorAgentId: string | null = null): NotifiableEvent {
  const payload: HubMessageCreated = {
    conversationId: CONV,
    seq: 2,
    message: {
      id: "00000000-0000-0000-0000-0000000000e1",
      kind,
      body,
      createdAt: "2026-01-01T00:00:01Z",
      authorAgentId,
      author: authorAgentId ? { displayName: "Tom Fox" } : null,
    },
  };
  return { name: "MessageCreated", payload };
}

describe("alertFor: new conversations", () => {
  it("announces a chat a visitor started", () => {
    expect(alertFor(created(), null, viewer)).toEqual({
      kind: "new-conversation",
      conversationId: CONV,
      title: "New conversation",
      body: "Teal Otter started a chat",
    });
  });
  it("stays quiet about a conversation an agent or the API started", () => {
    expect(alertFor(created({ channel: "manual" }), null, viewer)).toBeNull();
  });
  it("stays quiet about a chat already given to someone else", () => {
    expect(alertFor(created({ assigneeId: OTHER }), null, viewer)).toBeNull();
  });
});

describe("alertFor: incoming messages", () => {
  it("notifies for an unassigned conversation", () => {
    expect(alertFor(message("incoming", "Hello?"), conversation(), viewer)).toMatchObject({ kind: "message", title: "Teal Otter", body: "Hello?" });
  });
  it("notifies for a conversation assigned to me", () => {
    expect(alertFor(message("incoming", "Hi"), conversation({ assigneeId: ME }), viewer)?.kind).toBe("message");
  });
  it("stays quiet for a teammate's conversation", () => {
    expect(alertFor(message("incoming", "Hi"), conversation({ assigneeId: OTHER }), viewer)).toBeNull();
  });
  it("stays quiet when the conversation is unknown", () => {
    expect(alertFor(message("incoming", "Hi"), null, viewer)).toBeNull();
  });
  it("stays quiet for the conversation open in a visible tab", () => {
    expect(alertFor(message("incoming", "Hi"), conversation(), { ...viewer, openConversationId: CONV })).toBeNull();
  });
  it("notifies for the open conversation when the tab is hidden", () => {
    expect(alertFor(message("incoming", "Hi"), conversation(), { ...viewer, openConversationId: CONV, tabVisible: false })).not.toBeNull();
  });
  it("stays quiet for replies, mine or a teammate's", () => {
    expect(alertFor(message("outgoing", "Sure", OTHER), conversation(), viewer)).toBeNull();
    expect(alertFor(message("outgoing", "Sure", ME), conversation(), viewer)).toBeNull();
  });
  it("shortens a long body to one line", () => {
    const alert = alertFor(message("incoming", `line one\n${"x".repeat(300)}`), conversation(), viewer);
    expect(alert?.body.length).toBe(140);
    expect(alert?.body.startsWith("line one x")).toBe(true);
    expect(alert?.body.endsWith("…")).toBe(true);
  });
});

describe("alertFor: mentions", () => {
  it("notifies me of a teammate's note naming me, whoever handles the conversation", () => {
    const alert = alertFor(message("note", "@Ann Lee can you check?", OTHER), conversation({ assigneeId: OTHER }), viewer);
    expect(alert).toMatchObject({ kind: "mention", title: "Tom Fox mentioned you" });
  });
  it("stays quiet for a note that names someone else", () => {
    expect(alertFor(message("note", "@Tom Fox have a look", OTHER), conversation(), viewer)).toBeNull();
  });
  it("stays quiet for my own note naming me", () => {
    expect(alertFor(message("note", "@Ann Lee reminder", ME), conversation(), viewer)).toBeNull();
  });
});

describe("mentions", () => {
  it("matches the whole name after @, in any case", () => {
    expect(mentions("thanks @ann lee!", "Ann Lee")).toBe(true);
    expect(mentions("@Ann Lee", "Ann Lee")).toBe(true);
  });
  it("does not match a longer name or an email address", () => {
    expect(mentions("@Ann Leeds", "Ann Lee")).toBe(false);
    expect(mentions("write to bob@Ann Lee", "Ann Lee")).toBe(false);
  });
  it("takes names with regular-expression characters literally", () => {
    expect(mentions("@A.J. (support)", "A.J. (support)")).toBe(true);
    expect(mentions("@AxJx (support)", "A.J. (support)")).toBe(false);
  });
  it("never matches without a name", () => {
    expect(mentions("@", null)).toBe(false);
    expect(mentions("@ ", " ")).toBe(false);
  });
});

describe("deliveryFor", () => {
  it("shows desktop notifications only when wanted and allowed", () => {
    expect(deliveryFor("message", { desktop: true, sound: false }, "granted")).toEqual({ desktop: true, sound: false });
    expect(deliveryFor("message", { desktop: true, sound: false }, "default").desktop).toBe(false);
    expect(deliveryFor("message", { desktop: true, sound: false }, "denied").desktop).toBe(false);
    expect(deliveryFor("new-conversation", { desktop: false, sound: true }, "granted")).toEqual({ desktop: false, sound: true });
  });
  it("rings for conversations only, not for mentions", () => {
    expect(deliveryFor("mention", { desktop: true, sound: true }, "granted")).toEqual({ desktop: true, sound: false });
  });
});

describe("shouldRing", () => {
  it("rings once per interval", () => {
    expect(shouldRing(null, 1000)).toBe(true);
    expect(shouldRing(1000, 1000 + TONE_INTERVAL_MS - 1)).toBe(false);
    expect(shouldRing(1000, 1000 + TONE_INTERVAL_MS)).toBe(true);
  });
});

describe("offerPermission", () => {
  it("offers only while the browser has not been answered and desktop notifications are wanted", () => {
    expect(offerPermission("default", true, false)).toBe(true);
    expect(offerPermission("default", true, true)).toBe(false);
    expect(offerPermission("default", false, false)).toBe(false);
    expect(offerPermission("granted", true, false)).toBe(false);
    expect(offerPermission("denied", true, false)).toBe(false);
    expect(offerPermission("unsupported", true, false)).toBe(false);
  });
});

describe("titleWithUnread", () => {
  it("prefixes the count", () => {
    expect(titleWithUnread("Inbox · Support Desk", 3)).toBe("(3) Inbox · Support Desk");
  });
  it("replaces an earlier count rather than stacking", () => {
    expect(titleWithUnread("(3) Inbox · Support Desk", 5)).toBe("(5) Inbox · Support Desk");
    expect(titleWithUnread("(99+) Inbox · Support Desk", 2)).toBe("(2) Inbox · Support Desk");
  });
  it("drops the prefix at zero", () => {
    expect(titleWithUnread("(3) Inbox · Support Desk", 0)).toBe("Inbox · Support Desk");
  });
  it("caps at 99+", () => {
    expect(titleWithUnread("Inbox · Support Desk", 250)).toBe("(99+) Inbox · Support Desk");
  });
});

describe("unreadTotal", () => {
  it("sums the lists, counting a conversation once", () => {
    const a = { id: "a", unreadCount: 2 };
    const b = { id: "b", unreadCount: 1 };
    const c = { id: "c", unreadCount: null };
    expect(unreadTotal([[a, c], [b, a]])).toBe(3);
    expect(unreadTotal([])).toBe(0);
  });
  it("counts nothing for the conversation being read", () => {
    expect(unreadTotal([[{ id: "a", unreadCount: 2 }, { id: "b", unreadCount: 1 }]], "a")).toBe(1);
  });
});

describe("openConversationFromPath", () => {
  it("reads the id of a conversation route", () => {
    expect(openConversationFromPath(`/inbox/${CONV}`)).toBe(CONV);
    expect(openConversationFromPath("/inbox")).toBeNull();
    expect(openConversationFromPath("/tickets/x")).toBeNull();
    expect(openConversationFromPath(null)).toBeNull();
  });
});
