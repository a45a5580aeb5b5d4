// Read reports: the API emails a visitor who left an address the agent replies they have not
// seen, so the chat says what the visitor has seen: when the chat is open, its page visible,
// and it shows an agent reply it has not reported yet. Reports wait a moment (READ_DEBOUNCE_MS)
// so a burst of replies costs one request.

import type { Message } from "./types";

export const READ_DEBOUNCE_MS = 1000;

export interface Seen {
  panelOpen: boolean;
  /** The iframe's document is visible (the tab is in front). */
  visible: boolean;
  messages: Message[];
  /** The id of the newest agent reply already reported, if any. */
  reported: string | null;
}

/** The newest agent reply to report now, or null when there is nothing new to say. */
export function replyToReport({ panelOpen, visible, messages, reported }: Seen): string | null {
  if (!panelOpen || !visible) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.kind === "outgoing") return m.id === reported ? null : m.id;
  }
  return null;
}
