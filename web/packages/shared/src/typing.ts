// Typing indicators, the same both ways: whoever types says "typing" at the first keystroke
// and again every few seconds while typing goes on (so the other side's indicator stays lit
// without a call per key), and "stopped" after a pause or on send. A "typing" that is never
// followed by "stopped" (a closed tab) goes stale on the other side after TYPING_TTL_MS.

/** At most one "typing" this often while keys are pressed. */
export const TYPING_REPEAT_MS = 3000;
/** "Stopped" after this long without a key. */
export const TYPING_IDLE_MS = 4000;
/** Someone who stops without saying so stops "typing" after this long. */
export const TYPING_TTL_MS = 8000;

/** Whether a "typing" that arrived at `at` still counts at `now`. */
export function typingFresh(at: number, now: number): boolean {
  return now - at < TYPING_TTL_MS;
}

export interface TypingOut {
  /** When "typing: true" was last sent, or null while not typing. */
  sentAt: number | null;
}

/** On a key press: whether to send Typing(true) now, and the next state. */
export function onKeystroke(state: TypingOut, now: number, repeatMs = TYPING_REPEAT_MS): { send: boolean; next: TypingOut } {
  if (state.sentAt !== null && now - state.sentAt < repeatMs) return { send: false, next: state };
  return { send: true, next: { sentAt: now } };
}

/** On idle or send: whether to send Typing(false), and the next state. */
export function onStop(state: TypingOut): { send: boolean; next: TypingOut } {
  return { send: state.sentAt !== null, next: { sentAt: null } };
}

export interface TypingNotifier {
  /** Call on every edit of the message box. */
  input(): void;
  /** Typing stopped (message sent, box cleared): says so once if it had said "typing". */
  stop(): void;
  dispose(): void;
}

/** The state machine above with its idle timer, sending through `send`. */
export function typingNotifier(
  send: (isTyping: boolean) => void,
  { repeatMs = TYPING_REPEAT_MS, idleMs = TYPING_IDLE_MS, now = () => Date.now() } = {},
): TypingNotifier {
  let state: TypingOut = { sentAt: null };
  let idle: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    clearTimeout(idle);
    const { send: say, next } = onStop(state);
    state = next;
    if (say) send(false);
  };

  return {
    input() {
      const { send: say, next } = onKeystroke(state, now(), repeatMs);
      state = next;
      if (say) send(true);
      clearTimeout(idle);
      idle = setTimeout(stop, idleMs);
    },
    stop,
    dispose: () => clearTimeout(idle),
  };
}
