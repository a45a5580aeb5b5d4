import { describe, expect, it } from "vitest";
import { capitalize, contactName } from "./format";

describe("formatting", () => {
  it("names a contact by name, email, or as a visitor", () => {
    expect(contactName({ contact: { id: "c", name: "Ida", email: "ida@example.org" } })).toBe("Ida");
    expect(contactName({ contact: { id: "c", name: null, email: "ida@example.org" } })).toBe("ida@example.org");
    expect(contactName({ contact: { id: "c", name: "", email: null } })).toBe("Visitor");
  });

  it("capitalizes enum values", () => {
    expect(capitalize("pending")).toBe("Pending");
    expect(capitalize("")).toBe("");
  });
});
