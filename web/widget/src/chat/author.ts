// Who wrote an agent reply, as the chat shows it: the agent's name with their picture, or their
// initials when they have none (or only a plain-http one, which an https widget cannot show).

import { imageUrl } from "./branding";
import type { Message } from "./types";

export const FALLBACK_AGENT_NAME = "Support";

/** Up to two letters: the first of the first and of the last word. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = words[0];
  if (!first) return "?";
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  return ([...first][0] ?? "").toUpperCase() + (last ? ([...last][0] ?? "").toUpperCase() : "");
}

export interface AgentLook {
  name: string;
  avatarUrl: string | null;
  initials: string;
}

export function agentLook(message: Pick<Message, "author">): AgentLook {
  const name = message.author?.displayName.trim() || FALLBACK_AGENT_NAME;
  return { name, avatarUrl: imageUrl(message.author?.avatarUrl ?? null), initials: initials(name) };
}
