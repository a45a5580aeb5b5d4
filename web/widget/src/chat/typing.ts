// The visitor's own typing signal: Typing(true) at the first keystroke and again every few
// seconds while typing goes on (so the agent's indicator stays lit without a call per key),
// Typing(false) after a pause or when the message is sent.

export interface TypingNotifier {
  /** Call on every edit of the message box. */
  input(): void;
  /** Typing stopped (message sent, box cleared): says so once if it had said "typing". */
  stop(): void;
  dispose(): void;
}

export function typingNotifier(
  send: (isTyping: boolean) => void,
  { repeatMs = 3000, idleMs = 4000, now = () => Date.now() } = {},
): TypingNotifier {
  let typing = false;
  let lastSent = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    clearTimeout(idle);
    if (typing) {
      typing = false;
      send(false);
    }
  };

  return {
    input() {
      const t = now();
      if (!typing || t - lastSent >= repeatMs) {
        typing = true;
        lastSent = t;
        send(true);
      }
      clearTimeout(idle);
      idle = setTimeout(stop, idleMs);
    },
    stop,
    dispose: () => clearTimeout(idle),
  };
}
