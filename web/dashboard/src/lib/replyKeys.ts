// Which key sends a reply: with `sendWithEnter` (the profile's default) Enter sends and
// Shift+Enter makes a new line; without it Enter makes a new line and Ctrl+Enter (Cmd+Enter on
// a Mac) sends. Ctrl/Cmd+Enter sends either way. Enter while an input method is composing
// (Japanese, Chinese) belongs to it and never sends.

export interface KeyPress {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing: boolean;
}

export function sendsReply(press: KeyPress, sendWithEnter: boolean): boolean {
  if (press.key !== "Enter" || press.isComposing) return false;
  if (press.ctrlKey || press.metaKey) return true;
  return sendWithEnter && !press.shiftKey;
}

/** The hint under the box, naming the active rule. */
export function sendHint(sendWithEnter: boolean): string {
  return sendWithEnter ? "Enter sends, Shift+Enter adds a line." : "Ctrl+Enter (⌘+Enter on a Mac) sends, Enter adds a line.";
}
