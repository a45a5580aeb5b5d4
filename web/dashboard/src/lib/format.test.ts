import { describe, expect, it } from "vitest";
import { contactEmails, contactName } from "./format";

const contact = (fields: { name?: string | null; email?: string | null; claimedEmail?: string | null }) => ({
  id: "c",
  name: null,
  displayName: "Teal Otter",
  email: null,
  claimedEmail: null,
  ...fields,
});

describe("formatting", () => {
  it("names a contact by name, established email, or as a visitor", () => {
    expect(contactName({ contact: contact({ name: "Ida", email: "ida@example.org" }) })).toBe("Ida");
    expect(contactName({ contact: contact({ email: "ida@example.org" }) })).toBe("ida@example.org");
    expect(contactName({ contact: contact({ name: "" }) })).toBe("Visitor");
  });

  it("never names a contact by the email a visitor typed", () => {
    expect(contactName({ contact: contact({ claimedEmail: "ida@example.org" }) })).toBe("Visitor");
  });

  it("tells an established email from a claimed one", () => {
    expect(contactEmails(contact({ email: "ida@example.org" }))).toEqual([{ address: "ida@example.org", claimed: false }]);
    expect(contactEmails(contact({ claimedEmail: "ida@example.org" }))).toEqual([{ address: "ida@example.org", claimed: true }]);
    expect(contactEmails(contact({ email: "ida@example.org", claimedEmail: "ida@example.org" }))).toEqual([
      { address: "ida@example.org", claimed: false },
    ]);
    expect(contactEmails(contact({ email: "ida@example.org", claimedEmail: "eve@example.org" }))).toEqual([
      { address: "ida@example.org", claimed: false },
      { address: "eve@example.org", claimed: true },
    ]);
    expect(contactEmails(contact({}))).toEqual([]);
  });
});
