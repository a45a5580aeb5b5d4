// The reply box's character counter: silent well under the limit, shown from 9,000 characters,
// an error over 10,000 (sending disabled, the text kept as typed, never cut). The API refuses
// more than 10,000 characters with a 400; it counts Unicode scalar values, as this does.

export const MESSAGE_LIMIT = 10_000;
export const COUNTER_FROM = 9_000;

export type CounterState = { shown: false; over: false } | { shown: true; over: boolean; count: number; remaining: number };

export function characterCount(text: string): number {
  return Array.from(text).length;
}

export function counterState(text: string): CounterState {
  const count = characterCount(text);
  if (count < COUNTER_FROM) return { shown: false, over: false };
  return { shown: true, over: count > MESSAGE_LIMIT, count, remaining: MESSAGE_LIMIT - count };
}
