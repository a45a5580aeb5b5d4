// When the agent's own typing is announced: at most one "typing" every 3 s while keys are
// pressed, and "stopped" after 4 s without a key (or on send). Pure state machine for tests.

export const TYPING_REPEAT_MS = 3000;
export const TYPING_IDLE_MS = 4000;

export interface TypingOut {
  /** When "typing: true" was last sent, or null while not typing. */
  sentAt: number | null;
}

/** On a key press: whether to send Typing(true) now, and the next state. */
export function onKeystroke(state: TypingOut, now: number): { send: boolean; next: TypingOut } {
  if (state.sentAt !== null && now - state.sentAt < TYPING_REPEAT_MS) return { send: false, next: state };
  return { send: true, next: { sentAt: now } };
}

/** On idle or send: whether to send Typing(false), and the next state. */
export function onStop(state: TypingOut): { send: boolean; next: TypingOut } {
  return { send: state.sentAt !== null, next: { sentAt: null } };
}
