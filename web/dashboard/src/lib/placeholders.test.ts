import { describe, expect, it } from "vitest";
import { addFallbacks, barePlaceholders, needsNameFallback } from "./placeholders";

describe("barePlaceholders", () => {
  it("finds a contact name without a fallback, however spaced", () => {
    expect(barePlaceholders("Thanks, {{contact.name}}! Bye {{ contact.name }}.")).toEqual([
      { key: "contact.name", text: "{{contact.name}}", index: 8 },
      { key: "contact.name", text: "{{ contact.name }}", index: 30 },
    ]);
  });
  it("accepts a contact name with a fallback", () => {
    expect(barePlaceholders('Hi {{contact.name | fallback: "there"}}')).toEqual([]);
    expect(barePlaceholders('Hi {{ contact.name|fallback:"" }}')).toEqual([]);
  });
  it("leaves placeholders that always have a value", () => {
    expect(barePlaceholders("{{agent.displayName}} from {{workspace.name}}")).toEqual([]);
  });
});

describe("addFallbacks", () => {
  it("gives each bare contact name the fallback", () => {
    expect(addFallbacks("Hi {{contact.name}}, {{ contact.name }}")).toBe(
      'Hi {{contact.name | fallback: "there"}}, {{contact.name | fallback: "there"}}',
    );
  });
  it("keeps existing fallbacks and other placeholders as written", () => {
    const body = 'Hi {{contact.name | fallback: "friend"}}, {{ agent.displayName }}';
    expect(addFallbacks(body)).toBe(body);
  });
  it("takes another fallback, without quotes that would end it", () => {
    expect(addFallbacks("Hi {{contact.name}}", 'my "friend"')).toBe('Hi {{contact.name | fallback: "my friend"}}');
  });
  it("leaves a body that needs nothing unchanged", () => {
    expect(barePlaceholders(addFallbacks("Hi {{contact.name}}"))).toEqual([]);
  });
});

describe("needsNameFallback", () => {
  it("flags the contact's name without a fallback", () => {
    expect(needsNameFallback("Thanks, {{contact.name}}!")).toBe(true);
    expect(needsNameFallback("Thanks, {{ contact.name }}!")).toBe(true);
  });
  it("accepts a fallback in either quotes, and text without the name", () => {
    expect(needsNameFallback('Thanks, {{contact.name | fallback: "there"}}!')).toBe(false);
    expect(needsNameFallback("Thanks, {{ contact.name|fallback:'there' }}!")).toBe(false);
    expect(needsNameFallback("Thanks!")).toBe(false);
  });
});
