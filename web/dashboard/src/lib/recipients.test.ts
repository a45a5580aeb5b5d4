import { describe, expect, it } from "vitest";
import type { Message } from "@/api/types";
import {
  addressListProblem,
  chosenRecipients,
  domainOf,
  formatAddressList,
  isOwnAddress,
  MAX_RECIPIENTS,
  newestReceivedEmail,
  ownAddresses,
  parseAddressList,
  sameAddresses,
  threadRecipients,
  withoutTag,
} from "./recipients";

type Email = NonNullable<Message["email"]>;
const party = (address: string, name: string | null = null) => ({ address, name });

const email = (from: string, to: string[], cc: string[] = [], extra: Partial<Email> = {}): Email => ({
  from: party(from),
  to: to.map((a) => party(a)),
  cc: cc.map((a) => party(a)),
  subject: "Printer on fire",
  dmarcFailed: false,
  ...extra,
});

const msg = (id: string, kind: Message["kind"], mail: Message["email"] = null): Message => ({
  id,
  kind,
  body: id,
  createdAt: "2026-11-26T10:00:00Z",
  email: mail,
});

const SETTINGS = { address: "support@acme.test", inboundAddress: "printers.3f9a0c1b2d@inbound.desk.test" };
const NO_CONTACT = { email: null, claimedEmail: null };

describe("addresses", () => {
  it("takes an address's domain and drops a +tag", () => {
    expect(domainOf("Carla@Example.COM")).toBe("example.com");
    expect(domainOf("carla")).toBeNull();
    expect(domainOf("carla@")).toBeNull();
    expect(withoutTag("support+a1b2c3@acme.test")).toBe("support@acme.test");
    expect(withoutTag("support@acme.test")).toBe("support@acme.test");
    expect(withoutTag("no-at-sign+x")).toBe("no-at-sign+x");
  });
});

describe("ownAddresses", () => {
  it("knows the support address and forwarding domain from the settings, and the From of our replies", () => {
    const messages = [msg("a", "incoming", email("carla@example.com", ["support@acme.test"])), msg("b", "outgoing", email("Old-Support@Acme.test", ["carla@example.com"]))];
    const own = ownAddresses(SETTINGS, messages);
    expect(own.forwardingDomain).toBe("inbound.desk.test");
    expect([...own.addresses].sort()).toEqual(["old-support@acme.test", "support@acme.test"]);
  });
  it("without the settings (an Agent may not read them) knows what the thread shows", () => {
    expect(ownAddresses(null, [msg("b", "outgoing", email("support@acme.test", ["carla@example.com"]))])).toEqual({
      addresses: ["support@acme.test"],
      forwardingDomain: null,
    });
    expect(ownAddresses(undefined, [])).toEqual({ addresses: [], forwardingDomain: null });
    expect(ownAddresses({ address: null, inboundAddress: "x.1@inbound.desk.test" }, []).addresses).toEqual([]);
  });
  it("tells our addresses apart without case, with a reply token, and anything at the forwarding domain", () => {
    const own = ownAddresses(SETTINGS, []);
    expect(isOwnAddress("support@acme.test", own)).toBe(true);
    expect(isOwnAddress("Support@ACME.test", own)).toBe(true);
    expect(isOwnAddress("support+3f9a0c@acme.test", own)).toBe(true);
    expect(isOwnAddress("printers.3f9a0c1b2d@inbound.desk.test", own)).toBe(true);
    expect(isOwnAddress("anything@INBOUND.desk.test", own)).toBe(true);
    expect(isOwnAddress("sales@acme.test", own)).toBe(false);
    expect(isOwnAddress("someone@sub.inbound.desk.test", own)).toBe(false);
  });
});

describe("threadRecipients", () => {
  const own = ownAddresses(SETTINGS, []);

  it("is To the newest received email's sender, Cc its other recipients without ours", () => {
    const first = msg(
      "a",
      "incoming",
      email("carla@example.com", ["support@acme.test", "dan@example.com"], ["printers.3f9a0c1b2d@inbound.desk.test", "eve@example.com", "support+tok@acme.test"]),
    );
    expect(threadRecipients([first], NO_CONTACT, own)).toEqual({ to: ["carla@example.com"], cc: ["dan@example.com", "eve@example.com"] });
  });

  it("answers the newest email received, not our replies or notes after it", () => {
    const messages = [
      msg("a", "incoming", email("carla@example.com", ["support@acme.test"], ["dan@example.com"])),
      msg("b", "incoming", email("dan@example.com", ["support@acme.test", "carla@example.com"])),
      msg("c", "outgoing", email("support@acme.test", ["dan@example.com"], ["carla@example.com", "boss@example.com"])),
      msg("d", "note"),
    ];
    expect(newestReceivedEmail(messages)?.id).toBe("b");
    expect(threadRecipients(messages, NO_CONTACT, own)).toEqual({ to: ["dan@example.com"], cc: ["carla@example.com"] });
  });

  it("leaves out the sender and repeats from Cc, without case", () => {
    const m = msg("a", "incoming", email("carla@example.com", ["Carla@Example.com", "dan@example.com"], ["DAN@example.com", "eve@example.com"]));
    expect(threadRecipients([m], NO_CONTACT, own).cc).toEqual(["dan@example.com", "eve@example.com"]);
  });

  it("without the settings, leaves out the address our replies came from", () => {
    const messages = [
      msg("a", "incoming", email("carla@example.com", ["support@acme.test"], ["dan@example.com"])),
      msg("b", "outgoing", email("support@acme.test", ["carla@example.com"], ["dan@example.com"])),
      msg("c", "incoming", email("carla@example.com", ["support+tok@acme.test"], ["dan@example.com"])),
    ];
    expect(threadRecipients(messages, NO_CONTACT, ownAddresses(null, messages))).toEqual({ to: ["carla@example.com"], cc: ["dan@example.com"] });
  });

  it("without an email received, is To the contact's address (else the one they typed), no Cc", () => {
    expect(threadRecipients([msg("a", "incoming")], { email: "carla@example.com", claimedEmail: "c@x.org" }, own)).toEqual({ to: ["carla@example.com"], cc: [] });
    expect(threadRecipients([], { email: null, claimedEmail: "c@example.org" }, own)).toEqual({ to: ["c@example.org"], cc: [] });
    expect(threadRecipients([], NO_CONTACT, own)).toEqual({ to: [], cc: [] });
  });
});

describe("address fields", () => {
  it("reads addresses separated by commas, semicolons or lines, names dropped", () => {
    expect(parseAddressList("")).toEqual([]);
    expect(parseAddressList(" , ")).toEqual([]);
    expect(parseAddressList("a@x.org, b@x.org;c@x.org\nd@x.org,")).toEqual(["a@x.org", "b@x.org", "c@x.org", "d@x.org"]);
    expect(parseAddressList("Dan Boss <dan@example.com>, eve@example.com")).toEqual(["dan@example.com", "eve@example.com"]);
    expect(formatAddressList(["a@x.org", "b@x.org"])).toBe("a@x.org, b@x.org");
    expect(parseAddressList(formatAddressList(["a@x.org", "b@x.org"]))).toEqual(["a@x.org", "b@x.org"]);
  });
  it("compares lists in order, without case", () => {
    expect(sameAddresses(["A@x.org", "b@x.org"], ["a@x.org", "B@X.org"])).toBe(true);
    expect(sameAddresses(["a@x.org", "b@x.org"], ["b@x.org", "a@x.org"])).toBe(false);
    expect(sameAddresses(["a@x.org"], ["a@x.org", "b@x.org"])).toBe(false);
    expect(sameAddresses([], [])).toBe(true);
  });
  it("says what is wrong before sending", () => {
    expect(addressListProblem(["a@x.org"], true)).toBeNull();
    expect(addressListProblem([], false)).toBeNull();
    expect(addressListProblem([], true)).toBe("Add at least one address.");
    expect(addressListProblem(["a@x.org", "dan"], false)).toBe('"dan" is not an email address.');
    expect(addressListProblem(["a@localhost", "b c@x.org"], false)).toBe('These are not email addresses: "a@localhost", "b c@x.org".');
    const many = Array.from({ length: MAX_RECIPIENTS + 1 }, (_, i) => `p${i}@x.org`);
    expect(addressListProblem(many, false)).toBe(`At most ${MAX_RECIPIENTS} addresses.`);
    expect(addressListProblem(many.slice(1), false)).toBeNull();
  });
});

describe("chosenRecipients", () => {
  const thread = { to: ["carla@example.com"], cc: ["dan@example.com"] };
  it("sends nothing for untouched fields, or fields edited back to the thread's addresses", () => {
    expect(chosenRecipients(thread, { to: null, cc: null })).toEqual({});
    expect(chosenRecipients(thread, { to: " Carla@Example.com ", cc: "dan@example.com," })).toEqual({});
  });
  it("sends each changed field alone", () => {
    expect(chosenRecipients(thread, { to: null, cc: "dan@example.com, eve@example.com" })).toEqual({ cc: ["dan@example.com", "eve@example.com"] });
    expect(chosenRecipients(thread, { to: "dan@example.com", cc: null })).toEqual({ to: ["dan@example.com"] });
    expect(chosenRecipients(thread, { to: "carla@example.com", cc: "" })).toEqual({ cc: [] });
    expect(chosenRecipients(thread, { to: "", cc: "" })).toEqual({ to: [], cc: [] });
  });
});
