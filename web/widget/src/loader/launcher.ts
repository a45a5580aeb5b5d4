// What the launcher button says and shows: its accessible name carries the unread count (the
// badge itself is hidden from screen readers), and a link from a reply email
// (`#supportdesk-chat` on the visitor's last page) opens the chat at once.

export const CHAT_FRAGMENT = "#supportdesk-chat";

export function asksForChat(hash: string): boolean {
  return hash === CHAT_FRAGMENT;
}

export function launcherLabel(isOpen: boolean, unread: number): string {
  if (isOpen) return "Close chat";
  if (unread <= 0) return "Open chat";
  return `Open chat, ${unread} unread ${unread === 1 ? "message" : "messages"}`;
}

/** The badge's text: the count, "9+" beyond nine, nothing at none. */
export function badgeText(unread: number): string {
  return unread <= 0 ? "" : unread > 9 ? "9+" : String(unread);
}

/** The page's address as the chat reports it: without the fragment that only opened the chat. */
export function withoutChatFragment(href: string): string {
  return href.endsWith(CHAT_FRAGMENT) ? href.slice(0, -CHAT_FRAGMENT.length) : href;
}
