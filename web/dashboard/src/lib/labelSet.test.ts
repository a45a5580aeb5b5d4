import { describe, expect, it } from "vitest";
import type { Label } from "@/api/types";
import { currentLabels, textOn, toggled } from "./labelSet";

const label = (id: string, name: string, color = "#2563eb"): Label => ({
  id,
  name,
  color,
  description: null,
  createdAt: "2026-11-28T10:00:00Z",
  updatedAt: "2026-11-28T10:00:00Z",
});

describe("currentLabels", () => {
  const refs = [
    { id: "a", name: "Old name", color: "#000000" },
    { id: "gone", name: "Deleted", color: "#000000" },
  ];

  it("shows each label as the set has it now and drops deleted ones", () => {
    expect(currentLabels(refs, [label("a", "Billing")])).toEqual([{ id: "a", name: "Billing", color: "#2563eb" }]);
  });

  it("keeps the conversation's copy until the set is read", () => {
    expect(currentLabels(refs, undefined)).toEqual(refs);
  });
});

describe("textOn", () => {
  it("picks the text colour that reads better", () => {
    expect(textOn("#2563eb")).toBe("#ffffff");
    expect(textOn("#fde68a")).toBe("#000000");
    expect(textOn("#000000")).toBe("#ffffff");
    expect(textOn("#ffffff")).toBe("#000000");
    expect(textOn("blue")).toBe("#000000");
  });
});

describe("toggled", () => {
  it("adds or removes one id", () => {
    expect(toggled(["a"], "b", true)).toEqual(["a", "b"]);
    expect(toggled(["a", "b"], "a", false)).toEqual(["b"]);
    expect(toggled(["a"], "a", true)).toEqual(["a"]);
  });
});
